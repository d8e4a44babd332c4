import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn, Generated, Unique } from 'typeorm';
import { bigint, bigintColumn } from '../../../common/database/columns';

/** A fill (migration 2): at most one per RFQ; a revert marks it, never deletes it. */
@Entity('fills')
@Unique('fills_rfq_id_key', ['rfqId'])
@Check('fills_side_check', `side IN ('buy', 'sell')`)
@Check('fills_fee_check', 'fee >= 0')
@Check('fills_check', 'taker_account_id <> maker_account_id')
@Check('fills_check1', 'reverted = (reverted_at IS NOT NULL)')
@Check('fills_taker_salt_check', 'octet_length(taker_salt) = 32')
// `id DESC`: TypeORM's index metadata has no sort order, so these two are declared here but not
// synchronized (the migrations create them; the schema test checks their definitions).
@Index('fills_taker', { synchronize: false }) // (taker_account_id, id DESC)
@Index('fills_maker', { synchronize: false }) // (maker_account_id, id DESC)
@Index('fills_filled_at', ['filledAt'])
export class FillEntity {
  @PrimaryColumn({ name: 'id', type: 'bigint', transformer: bigintColumn, primaryKeyConstraintName: 'fills_pkey' })
  @Generated('increment')
  id!: bigint;

  @Column({ name: 'rfq_id', type: 'char', length: 32, collation: 'C' })
  @ForeignKey('rfqs', { name: 'fills_rfq_id_fkey' })
  rfqId!: string;

  @Column({ name: 'quote_id', type: 'char', length: 64 })
  quoteId!: string;

  @Column(bigint('taker_account_id'))
  @ForeignKey('accounts', { name: 'fills_taker_account_id_fkey' })
  takerAccountId!: bigint;

  @Column(bigint('maker_account_id'))
  @ForeignKey('accounts', { name: 'fills_maker_account_id_fkey' })
  makerAccountId!: bigint;

  @Column(bigint('fee_account_id'))
  @ForeignKey('accounts', { name: 'fills_fee_account_id_fkey' })
  feeAccountId!: bigint;

  @Column({ name: 'side', type: 'text' })
  side!: 'buy' | 'sell';

  /** Micro-USDC, the package premium. */
  @Column(bigint('price'))
  price!: bigint;

  /** Micro-USDC. */
  @Column(bigint('fee'))
  fee!: bigint;

  /** Unix seconds. */
  @Column(bigint('filled_at'))
  filledAt!: bigint;

  @Column({ name: 'reverted', type: 'boolean', default: false })
  reverted!: boolean;

  /**
   * 32 random bytes drawn with the fill (docs/spec/design.md 16): its receipts hold SHA-256("LEGWORK_TAKER"
   * || salt || the taker's key), and only the taker's copies carry the salt. Null for a fill whose
   * receipt is version 1 (signed before the column), until a revert draws one.
   */
  @Column({ name: 'taker_salt', type: 'bytea', nullable: true })
  takerSalt!: Buffer | null;

  /** Unix seconds; set exactly when reverted. */
  @Column(bigint('reverted_at', { nullable: true }))
  revertedAt!: bigint | null;
}
