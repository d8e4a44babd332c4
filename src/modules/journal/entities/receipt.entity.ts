import { Check, Column, Entity, ForeignKey, PrimaryColumn, Unique } from 'typeorm';
import { bigint, bigintColumn } from '../../../common/database/columns';

/** A signed receipt of a fill (kind 0) or a revert (kind 1), chained by hash (migration 6; docs/spec/design.md section 14). */
@Entity('receipts')
@Unique('receipts_fill_id_kind_key', ['fillId', 'kind'])
@Check('receipts_journal_seq_check', 'journal_seq >= 1')
@Check('receipts_kind_check', 'kind IN (0, 1)')
export class ReceiptEntity {
  /** Gapless: the primary key keeps the chain from forking. */
  @PrimaryColumn({ name: 'journal_seq', type: 'bigint', transformer: bigintColumn, primaryKeyConstraintName: 'receipts_pkey' })
  journalSeq!: bigint;

  @Column({ name: 'kind', type: 'smallint' })
  kind!: 0 | 1;

  @Column(bigint('fill_id'))
  @ForeignKey('fills', { name: 'receipts_fill_id_fkey' })
  fillId!: bigint;

  @Column({ name: 'payload', type: 'bytea' })
  payload!: Buffer;

  @Column({ name: 'hash', type: 'char', length: 64, collation: 'C' })
  hash!: string;

  @Column({ name: 'prev_hash', type: 'char', length: 64, collation: 'C' })
  prevHash!: string;

  @Column({ name: 'key_id', type: 'char', length: 16 })
  keyId!: string;

  @Column({ name: 'signature', type: 'text' })
  signature!: string;

  /** Unix seconds. */
  @Column(bigint('at'))
  at!: bigint;
}
