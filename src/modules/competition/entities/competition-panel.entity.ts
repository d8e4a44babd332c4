import { Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { bigintColumn } from '../../../common/database/columns';

/**
 * A maker on a competitive RFQ's panel (migration 1763800000400), written with the RFQ: the makers
 * directory counts the RFQs that reached a maker in the last 7 days off the primary key (maker,
 * then the time-ordered RFQ id). An RFQ without a panel has no rows: it reaches every quoter.
 */
@Entity('competition_panels')
// The RFQ's rows, deleted with it by the history sweep's own statement (RfqHistoryRepository.deleteUnfilled):
// no foreign key to rfqs, whose per-row cascade trigger would lengthen every sweep statement.
@Index('competition_panels_rfq', ['rfqId'])
export class CompetitionPanelEntity {
  @PrimaryColumn({ name: 'maker_account_id', type: 'bigint', transformer: bigintColumn, primaryKeyConstraintName: 'competition_panels_pkey' })
  @ForeignKey('accounts', { name: 'competition_panels_maker_account_id_fkey' })
  makerAccountId!: bigint;

  @PrimaryColumn({ name: 'rfq_id', type: 'char', length: 32, collation: 'C', primaryKeyConstraintName: 'competition_panels_pkey' })
  rfqId!: string;
}
