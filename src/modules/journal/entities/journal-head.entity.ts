import { Check, Column, Entity, PrimaryColumn } from 'typeorm';
import { bigint } from '../../../common/database/columns';

/** The one row (id 1) every fill and revert locks to take the next journal_seq and the hash to link to (migration 6). */
@Entity('journal_head')
@Check('journal_head_id_check', 'id = 1')
export class JournalHeadEntity {
  @PrimaryColumn({ name: 'id', type: 'smallint', primaryKeyConstraintName: 'journal_head_pkey' })
  id!: number;

  @Column(bigint('journal_seq'))
  journalSeq!: bigint;

  @Column({ name: 'hash', type: 'char', length: 64, collation: 'C' })
  hash!: string;
}
