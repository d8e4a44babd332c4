import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { bigint, bigintColumn } from '../../../common/database/columns';

/** A panel maker's decline of a competitive RFQ (migration 1763800000340): the RFQ stays with the others. */
@Entity('competition_declines')
export class CompetitionDeclineEntity {
  /** No foreign key to rfqs (migration 1763800000410): written beside its RFQ's row, deleted with it by the history sweep. */
  @PrimaryColumn({ name: 'rfq_id', type: 'char', length: 32, collation: 'C', primaryKeyConstraintName: 'competition_declines_pkey' })
  rfqId!: string;

  @PrimaryColumn({ name: 'maker_account_id', type: 'bigint', transformer: bigintColumn, primaryKeyConstraintName: 'competition_declines_pkey' })
  @ForeignKey('accounts', { name: 'competition_declines_maker_account_id_fkey' })
  makerAccountId!: bigint;

  @Column({ name: 'reason', type: 'text' })
  reason!: string;

  /** Unix seconds. */
  @Column(bigint('at'))
  at!: bigint;
}
