import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigint, bigintColumn } from '../../../common/database/columns';

/** The RFQ row as it was after a move, its values as text (bigints survive JSON). */
export type StoredRfqSnapshot = Record<string, unknown>;

/** A notification sent to an account, kept 7 days for replay (migration 6; docs/spec/design.md section 13). */
@Entity('account_events')
@Check('account_events_channel_check', `channel IN ('rfq', 'rfq_maker')`)
@Index('account_events_at', ['at'])
export class AccountEventEntity {
  @PrimaryColumn({ name: 'account_id', type: 'bigint', transformer: bigintColumn, primaryKeyConstraintName: 'account_events_pkey' })
  accountId!: bigint;

  /** Gapless per account, in commit order. */
  @PrimaryColumn({ name: 'account_seq', type: 'bigint', transformer: bigintColumn, primaryKeyConstraintName: 'account_events_pkey' })
  accountSeq!: bigint;

  @Column({ name: 'channel', type: 'text' })
  channel!: 'rfq' | 'rfq_maker';

  @Column({ name: 'event', type: 'text' })
  event!: string;

  @Column({ name: 'rfq', type: 'jsonb' })
  rfq!: StoredRfqSnapshot;

  /** Unix seconds. */
  @Column(bigint('at'))
  at!: bigint;
}
