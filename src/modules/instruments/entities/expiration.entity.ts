import { Column, Entity, Index, PrimaryColumn, Unique } from 'typeorm';
import { bigint, bigintColumn, createdAt } from '../../../common/database/columns';

/** An expiration round of an asset (migration 0): at most one per UTC date, settled once. */
@Entity('expirations')
@Unique('expirations_asset_utc_date_key', ['asset', 'utcDate'])
@Index('expirations_unsettled', ['expiry'], { where: 'NOT settled' })
@Index('expirations_settled_at', ['settledAt'], { where: 'settled' })
export class ExpirationEntity {
  @PrimaryColumn({ name: 'asset', type: 'text', primaryKeyConstraintName: 'expirations_pkey' })
  asset!: string;

  /** Unix seconds. */
  @PrimaryColumn({ name: 'expiry', type: 'bigint', transformer: bigintColumn, primaryKeyConstraintName: 'expirations_pkey' })
  expiry!: bigint;

  /** YYYY-MM-DD (node-postgres reads `date` as this string). */
  @Column({ name: 'utc_date', type: 'date' })
  utcDate!: string;

  @Column({ name: 'settled', type: 'boolean', default: false })
  settled!: boolean;

  /** Micro-USDC. */
  @Column(bigint('settlement_price', { nullable: true }))
  settlementPrice!: bigint | null;

  @Column({ name: 'settled_at', type: 'timestamptz', nullable: true })
  settledAt!: Date | null;

  @Column(createdAt('created_at'))
  createdAt!: Date;
}
