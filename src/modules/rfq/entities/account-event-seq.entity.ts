import { Check, Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { bigint, bigintColumn } from '../../../common/database/columns';

/** An account's last event number (migration 6): its row lock orders the account's moves. */
@Entity('account_event_seqs')
@Check('account_event_seqs_last_seq_check', 'last_seq >= 0')
export class AccountEventSeqEntity {
  @PrimaryColumn({ name: 'account_id', type: 'bigint', transformer: bigintColumn, primaryKeyConstraintName: 'account_event_seqs_pkey' })
  @ForeignKey('accounts', { name: 'account_event_seqs_account_id_fkey' })
  accountId!: bigint;

  @Column(bigint('last_seq'))
  lastSeq!: bigint;
}
