import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn, Unique } from 'typeorm';
import { bigint, createdAt } from '../../../common/database/columns';

/** A listed option (migration 0): one strike and kind of an expiration round. */
@Entity('instruments')
@Unique('instruments_asset_expiry_strike_kind_key', ['asset', 'expiry', 'strike', 'kind'])
@Check('instruments_strike_check', 'strike > 0')
@Check('instruments_kind_check', `kind IN ('call', 'put')`)
@ForeignKey('expirations', ['asset', 'expiry'], ['asset', 'expiry'], { name: 'instruments_asset_expiry_fkey' })
@Index('instruments_expiry', ['expiry', 'asset'])
export class InstrumentEntity {
  @PrimaryColumn({ name: 'symbol', type: 'text', primaryKeyConstraintName: 'instruments_pkey' })
  symbol!: string;

  @Column({ name: 'asset', type: 'text' })
  asset!: string;

  /** Micro-USDC. */
  @Column(bigint('strike'))
  strike!: bigint;

  @Column({ name: 'kind', type: 'text' })
  kind!: 'call' | 'put';

  /** Unix seconds. */
  @Column(bigint('expiry'))
  expiry!: bigint;

  @Column({ name: 'paused', type: 'boolean', default: false })
  paused!: boolean;

  @Column({ name: 'settled', type: 'boolean', default: false })
  settled!: boolean;

  /** Micro-USDC. */
  @Column(bigint('settlement_price', { nullable: true }))
  settlementPrice!: bigint | null;

  @Column(createdAt('created_at'))
  createdAt!: Date;
}
