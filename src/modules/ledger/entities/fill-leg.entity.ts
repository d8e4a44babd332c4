import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn, Unique } from 'typeorm';
import { bigint, bigintColumn } from '../../../common/database/columns';

/** One leg of a fill (migration 2): its quantity, its share of the premium and its mark at the fill. */
@Entity('fill_legs')
@Unique('fill_legs_fill_id_instrument_key', ['fillId', 'instrument'])
@Check('fill_legs_leg_index_check', 'leg_index >= 0')
@Check('fill_legs_quantity_check', 'quantity <> 0')
@Index('fill_legs_instrument', ['instrument'])
export class FillLegEntity {
  @PrimaryColumn({ name: 'fill_id', type: 'bigint', transformer: bigintColumn, primaryKeyConstraintName: 'fill_legs_pkey' })
  @ForeignKey('fills', { name: 'fill_legs_fill_id_fkey' })
  fillId!: bigint;

  @PrimaryColumn({ name: 'leg_index', type: 'smallint', primaryKeyConstraintName: 'fill_legs_pkey' })
  legIndex!: number;

  @Column({ name: 'instrument', type: 'text' })
  @ForeignKey('instruments', { name: 'fill_legs_instrument_fkey' })
  instrument!: string;

  /** Signed micro-contracts, taker-buy orientation. */
  @Column(bigint('quantity'))
  quantity!: bigint;

  /** Micro-USDC: the leg's share of the package premium. */
  @Column(bigint('premium'))
  premium!: bigint;

  /** Micro-USDC per contract at the fill. */
  @Column(bigint('mark'))
  mark!: bigint;
}
