import { Check, Column, Entity, PrimaryColumn } from 'typeorm';
import { bigint } from '../../../common/database/columns';

/** A taker's accept of a quote (migration 2), with the fee frozen at accept and its signed cap. */
@Entity('accepts')
@Check('accepts_side_check', `side IN ('buy', 'sell')`)
@Check('accepts_fee_check', 'fee >= 0')
@Check('accepts_check', 'max_fee >= fee')
export class AcceptEntity {
  /** No foreign key to rfqs (migration 1763800000410): written beside its RFQ's row, deleted with it by the history sweep. */
  @PrimaryColumn({ name: 'rfq_id', type: 'char', length: 32, collation: 'C', primaryKeyConstraintName: 'accepts_pkey' })
  rfqId!: string;

  @Column({ name: 'quote_id', type: 'char', length: 64 })
  quoteId!: string;

  @Column({ name: 'side', type: 'text' })
  side!: 'buy' | 'sell';

  /** Micro-USDC. */
  @Column(bigint('fee'))
  fee!: bigint;

  /** Micro-USDC: the most the taker signed for. */
  @Column(bigint('max_fee'))
  maxFee!: bigint;

  @Column({ name: 'taker_signature', type: 'text' })
  takerSignature!: string;

  /** Unix seconds. */
  @Column(bigint('expires_at'))
  expiresAt!: bigint;

  /** Unix seconds. */
  @Column(bigint('accepted_at'))
  acceptedAt!: bigint;
}
