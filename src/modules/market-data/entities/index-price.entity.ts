import { Check, Column, Entity, PrimaryColumn } from 'typeorm';
import { bigint } from '../../../common/database/columns';

/** The latest index price of an asset (migration 0). */
@Entity('index_prices')
@Check('index_prices_index_price_check', 'index_price > 0')
export class IndexPriceEntity {
  @PrimaryColumn({ name: 'asset', type: 'text', primaryKeyConstraintName: 'index_prices_pkey' })
  asset!: string;

  /** Micro-USDC. */
  @Column(bigint('index_price'))
  indexPrice!: bigint;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
