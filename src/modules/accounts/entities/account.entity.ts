import { Check, Column, Entity, PrimaryColumn, Generated, Unique } from 'typeorm';
import { bigint, bigintColumn, createdAt } from '../../../common/database/columns';

/** An account: one wallet, its roles, its open-RFQ count (migrations 0, 5 and 7). */
@Entity('accounts')
@Unique('accounts_wallet_key', ['wallet'])
@Check('accounts_open_rfqs_check', 'open_rfqs >= 0')
export class AccountEntity {
  @PrimaryColumn({ name: 'id', type: 'bigint', transformer: bigintColumn, primaryKeyConstraintName: 'accounts_pkey' })
  @Generated('increment')
  id!: bigint;

  @Column({ name: 'wallet', type: 'text' })
  wallet!: string;

  @Column({ name: 'roles', type: 'text', array: true, default: () => "'{}'" })
  roles!: string[];

  @Column(createdAt('created_at'))
  createdAt!: Date;

  /** How many of the taker's RFQs are pending, quoted, accepted or submitting (kept by the RFQ moves). */
  @Column({ name: 'open_rfqs', type: 'integer', default: 0 })
  openRfqs!: number;

  /** Unix seconds; sessions issued at or before it are refused (null: never). */
  @Column(bigint('sessions_revoked_at', { nullable: true }))
  sessionsRevokedAt!: bigint | null;
}
