import { Column, Entity, Index, PrimaryColumn, Generated } from 'typeorm';
import { bigint, bigintColumn } from '../../../common/database/columns';

/** One state move of an RFQ, in order (migration 1). */
@Entity('rfq_events')
@Index('rfq_events_rfq', ['rfqId', 'id'])
export class RfqEventEntity {
  @PrimaryColumn({ name: 'id', type: 'bigint', transformer: bigintColumn, primaryKeyConstraintName: 'rfq_events_pkey' })
  @Generated('increment')
  id!: bigint;

  /** No foreign key to rfqs (migration 1763800000410): written beside its RFQ's row, deleted with it by the history sweep. */
  @Column({ name: 'rfq_id', type: 'char', length: 32, collation: 'C' })
  rfqId!: string;

  @Column({ name: 'event', type: 'text' })
  event!: string;

  @Column({ name: 'state', type: 'text' })
  state!: string;

  /** Unix seconds. */
  @Column(bigint('at'))
  at!: bigint;
}
