import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { bigint, bigintColumn } from '../../../common/database/columns';

/**
 * A maker's limits on its firm quotes, the operator's ceiling over them, and the state of its
 * protection after fills (docs/spec/design.md section 15). One row per account that has ever had
 * limits; respond locks it (FOR UPDATE) to serialize one maker's quotes under limits on what is out.
 */
@Entity('maker_limits')
export class MakerLimitEntity {
  @PrimaryColumn({ name: 'account_id', type: 'bigint', transformer: bigintColumn, primaryKeyConstraintName: 'maker_limits_pkey' })
  @ForeignKey('accounts', { name: 'maker_limits_account_id_fkey' })
  accountId!: bigint;

  /** The maker's own limits, in the wire form of rfq.maker.set_limits ({} = none). */
  @Column({ name: 'limits', type: 'jsonb' })
  limits!: Record<string, unknown>;

  /** The operator's ceiling (PUT /v1/admin/accounts/{account_id}/maker-limits; {} = none). */
  @Column({ name: 'admin_limits', type: 'jsonb' })
  adminLimits!: Record<string, unknown>;

  /** Unix seconds of the last protection trip; null: never tripped, or reset. */
  @Column(bigint('tripped_at', { nullable: true }))
  trippedAt!: bigint | null;

  /** Frozen until (unix seconds); null with tripped_at set: until rfq.maker.reset_protection. */
  @Column(bigint('frozen_until', { nullable: true }))
  frozenUntil!: bigint | null;

  @Column({ name: 'trip_reason', type: 'text', nullable: true })
  tripReason!: string | null;

  @Column(bigint('updated_at'))
  updatedAt!: bigint;
}
