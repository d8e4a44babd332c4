import { Check, Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { bigint } from '../../../common/database/columns';

/** The latest implied volatility of an instrument (migration 0). */
@Entity('instrument_ivs')
@Check('instrument_ivs_iv_check', 'iv >= 0')
export class InstrumentIvEntity {
  @PrimaryColumn({ name: 'symbol', type: 'text', primaryKeyConstraintName: 'instrument_ivs_pkey' })
  @ForeignKey('instruments', { name: 'instrument_ivs_symbol_fkey' })
  symbol!: string;

  /** Micro-units (1.0 = 1 000 000). */
  @Column(bigint('iv'))
  iv!: bigint;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
