import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { bigint, bigintColumn, wholeNumeric } from '../../../common/database/columns';

/**
 * An account's net position in an instrument (migrations 2 and 3) with its exact average price
 * `avg_num / avg_den` (lowest terms, null when flat) and that average rounded to a micro-unit.
 */
@Entity('positions')
@Check('positions_average', '(avg_num IS NULL) = (avg_den IS NULL) AND (avg_den IS NULL OR avg_den > 0) AND (average_price IS NULL) = (avg_num IS NULL)')
@Index('positions_instrument', ['instrument'])
// (account_id, settled, expiry, instrument COLLATE "C") WHERE quantity <> 0: TypeORM's index
// metadata has no collation, so it is declared here but not synchronized (migration 1763800000260).
@Index('positions_by_expiry', { synchronize: false })
export class PositionEntity {
  @PrimaryColumn({ name: 'account_id', type: 'bigint', transformer: bigintColumn, primaryKeyConstraintName: 'positions_pkey' })
  @ForeignKey('accounts', { name: 'positions_account_id_fkey' })
  accountId!: bigint;

  @PrimaryColumn({ name: 'instrument', type: 'text', primaryKeyConstraintName: 'positions_pkey' })
  @ForeignKey('instruments', { name: 'positions_instrument_fkey' })
  instrument!: string;

  /** Signed micro-contracts. */
  @Column(bigint('quantity'))
  quantity!: bigint;

  /** Unix seconds: the instrument's expiry, set on insert (trigger positions_expiry, migration 1763800000260). */
  @Column(bigint('expiry'))
  expiry!: bigint;

  @Column({ name: 'settled', type: 'boolean', default: false })
  settled!: boolean;

  /** Micro-USDC. */
  @Column(bigint('settlement_amount', { nullable: true }))
  settlementAmount!: bigint | null;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;

  @Column(wholeNumeric('avg_num', { nullable: true }))
  avgNum!: bigint | null;

  @Column(wholeNumeric('avg_den', { nullable: true }))
  avgDen!: bigint | null;

  /** Micro-USDC per contract, rounded half away from zero. */
  @Column(bigint('average_price', { nullable: true }))
  averagePrice!: bigint | null;
}
