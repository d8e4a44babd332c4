import { Check, Column, Entity, ForeignKey, Generated, Index, PrimaryColumn, Unique } from 'typeorm';
import { bigint, bigintColumn, wholeNumeric } from '../../../common/database/columns';
import type { QuoteEnd } from '../domain/competition';

/**
 * Every quote a competitive RFQ received (migration 1763800000340), in the order received (`id`),
 * with its end once it ended. Live: `ending IS NULL`. Times of the exchange in unix ms; the
 * maker's signed times in unix seconds; money in micro-units.
 */
@Entity('competition_quotes')
@Unique('competition_quotes_quote_id_key', ['quoteId'])
@Check('competition_quotes_ending_check', `ending IN ('accepted', 'traded_away', 'replaced', 'cancelled', 'expired')`)
@Check('competition_quotes_check', '(ended_at_ms IS NULL) = (ending IS NULL)')
// An RFQ's quotes in order: views, transcripts, the accept's traded_away.
@Index('competition_quotes_rfq', ['rfqId', 'id'])
// One live quote per maker per RFQ (a respond replaces it).
@Index('competition_quotes_live_one', ['rfqId', 'makerAccountId'], { unique: true, where: 'ending IS NULL' })
// A maker's live quotes: its limits usage and rfq.maker.cancel_quotes.
@Index('competition_quotes_maker_live', ['makerAccountId', 'expiresAt', 'rfqId'], { where: 'ending IS NULL' })
// rfq.maker.quotes: a maker's quotes newest first, all and live (migration 1763800000390).
@Index('competition_quotes_maker_quotes', ['makerAccountId', 'receivedAtMs', 'quoteId'])
@Index('competition_quotes_maker_quotes_live', ['makerAccountId', 'receivedAtMs', 'quoteId'], { where: 'ending IS NULL' })
// The expiry sweep: live quotes by their expires_at.
@Index('competition_quotes_due', ['expiresAt'], { where: 'ending IS NULL' })
export class CompetitionQuoteEntity {
  @PrimaryColumn({ name: 'id', type: 'bigint', transformer: bigintColumn, primaryKeyConstraintName: 'competition_quotes_pkey' })
  @Generated('increment')
  id!: bigint;

  @Column({ name: 'quote_id', type: 'char', length: 64 })
  quoteId!: string;

  /** No foreign key to rfqs (migration 1763800000410): written beside its RFQ's row, deleted with it by the history sweep. */
  @Column({ name: 'rfq_id', type: 'char', length: 32, collation: 'C' })
  rfqId!: string;

  @Column(bigint('maker_account_id'))
  @ForeignKey('accounts', { name: 'competition_quotes_maker_account_id_fkey' })
  makerAccountId!: bigint;

  @Column({ name: 'maker_wallet', type: 'text' })
  makerWallet!: string;

  @Column(wholeNumeric('quote_nonce', { precision: 20 }))
  quoteNonce!: bigint;

  @Column(bigint('bid'))
  bid!: bigint;

  @Column(bigint('ask'))
  ask!: bigint;

  @Column(bigint('issued_at'))
  issuedAt!: bigint;

  @Column(bigint('expires_at'))
  expiresAt!: bigint;

  @Column({ name: 'maker_signature', type: 'text' })
  makerSignature!: string;

  @Column(bigint('received_at_ms'))
  receivedAtMs!: bigint;

  @Column(bigint('ended_at_ms', { nullable: true }))
  endedAtMs!: bigint | null;

  @Column({ name: 'ending', type: 'text', nullable: true })
  ending!: QuoteEnd | null;
}
