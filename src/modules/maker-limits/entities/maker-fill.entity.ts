import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { bigint, bigintColumn } from '../../../common/database/columns';

/**
 * A fill of a protected maker's quote in its current protection window (docs/spec/design.md
 * section 15), with its notional and delta at the fill. Written only for makers with protection
 * set; rows older than the window, and every row at a trip, are deleted.
 */
@Entity('maker_fills')
export class MakerFillEntity {
  @PrimaryColumn({ name: 'account_id', type: 'bigint', transformer: bigintColumn, primaryKeyConstraintName: 'maker_fills_pkey' })
  @ForeignKey('accounts', { name: 'maker_fills_account_id_fkey' })
  accountId!: bigint;

  @PrimaryColumn({ name: 'rfq_id', type: 'char', length: 32, collation: 'C', primaryKeyConstraintName: 'maker_fills_pkey' })
  rfqId!: string;

  /** Unix seconds. */
  @Column(bigint('filled_at'))
  filledAt!: bigint;

  @Column({ name: 'asset', type: 'text' })
  asset!: string;

  /** micro-USDC: sum |q| * index at the fill */
  @Column(bigint('notional'))
  notional!: bigint;

  /** micro-units: |sum q * delta| at the fill */
  @Column(bigint('delta'))
  delta!: bigint;
}
