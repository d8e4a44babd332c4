import { Check, Column, Entity, ForeignKey, Generated, PrimaryColumn, Unique } from 'typeorm';
import { bigint, bigintColumn } from '../../../common/database/columns';

/**
 * A receipt staged by its fill or revert, waiting for the appender to chain it (migration
 * 1763800000320; docs/receipts.md): `body` is the receipt with journal_seq, prev_hash and the
 * taker's commitment zero. Deleted in the transaction that writes its receipt.
 */
@Entity('journal_pending')
@Unique('journal_pending_fill_id_kind_key', ['fillId', 'kind'])
@Check('journal_pending_kind_check', 'kind IN (0, 1)')
@Check('journal_pending_body_check', 'octet_length(body) = 1072')
export class JournalPendingEntity {
  /** Staging order: the appender chains in it. */
  @PrimaryColumn({ name: 'id', type: 'bigint', transformer: bigintColumn, primaryKeyConstraintName: 'journal_pending_pkey' })
  @Generated('increment')
  id!: bigint;

  @Column({ name: 'kind', type: 'smallint' })
  kind!: 0 | 1;

  @Column(bigint('fill_id'))
  @ForeignKey('fills', { name: 'journal_pending_fill_id_fkey' })
  fillId!: bigint;

  @Column({ name: 'body', type: 'bytea' })
  body!: Buffer;

  /** Unix seconds: filled_at, or the revert's time. */
  @Column(bigint('at'))
  at!: bigint;
}
