import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { bigint, bigintColumn } from '../../../common/database/columns';

/**
 * A maker's competitive-quote counter (migration 1763800000340): raised in every transaction that
 * ends one of its competitive quotes without an event to it (cancel, decline), so the version of
 * its set of quotes that its limits usage is kept at (MakerLimitsService) moves with every change.
 */
@Entity('competition_makers')
export class CompetitionMakerEntity {
  @PrimaryColumn({ name: 'account_id', type: 'bigint', transformer: bigintColumn, primaryKeyConstraintName: 'competition_makers_pkey' })
  @ForeignKey('accounts', { name: 'competition_makers_account_id_fkey' })
  accountId!: bigint;

  @Column(bigint('quotes_seq'))
  quotesSeq!: bigint;
}
