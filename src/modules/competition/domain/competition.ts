import { type RfqTranscript, type TranscriptQuote, formatRfq } from '@legwork/protocol';
import type { CompetitiveQuote, RfqRecord, Side } from '../../rfq/domain/rfq-record';
import { quoteFields } from '../../rfq/domain/rfq-view';
import type { StoredLiveQuote } from '../../rfq/rfq-row';

/**
 * Competitive RFQs (docs/spec/design.md 18): the quotes of one RFQ, their ends, the best live
 * price and the transcript. Pure: records in, values out.
 */

/** How a competitive quote ended. */
export type QuoteEnd = 'accepted' | 'traded_away' | 'replaced' | 'cancelled' | 'expired';

/** A quote with its end, as the transcript lists it. */
export interface EndedQuote extends CompetitiveQuote {
  endedAtMs: number | null;
  end: QuoteEnd | null;
}

/** A live quote as the taker's stored `quotes` event carries it (numbers as text). */
export function storedLive(q: CompetitiveQuote): StoredLiveQuote {
  return {
    quote_id: q.quoteId,
    maker_account_id: String(q.makerAccountId),
    maker_wallet: q.makerWallet,
    quote_nonce: q.quoteNonce.toString(),
    bid: q.bid.toString(),
    ask: q.ask.toString(),
    issued_at: String(q.issuedAt),
    expires_at: String(q.expiresAt),
    maker_signature: q.makerSignature,
    received_at_ms: String(q.receivedAtMs),
  };
}

/** The accepted side's package price: the ask for a buy, the bid for a sell. */
export const priceOf = (q: Pick<CompetitiveQuote, 'bid' | 'ask'>, side: Side): bigint => (side === 'buy' ? q.ask : q.bid);

/** Was `accepted` the best live price on its side among `live` (lowest ask for a buy, highest bid for a sell)? */
export function isBest(accepted: CompetitiveQuote, side: Side, live: readonly CompetitiveQuote[]): boolean {
  return live.every((q) => (side === 'buy' ? accepted.ask <= q.ask : accepted.bid >= q.bid));
}

/** The accept that ended a competition, as the transcript records it. */
export interface TranscriptAccept {
  quoteId: string;
  side: Side;
  price: bigint;
  atMs: number;
  best: boolean;
}

/**
 * The transcript object of docs/spec/design.md 18: every quote the RFQ received in the order
 * received (each ended: the competition is over), decimals as canonical strings, times integers.
 */
export function buildTranscript(
  service: string,
  rfq: RfqRecord,
  quotes: readonly EndedQuote[],
  closedAtMs: number,
  accept: TranscriptAccept | null,
): RfqTranscript {
  return {
    kind: 'legwork.rfq_transcript',
    version: 1,
    service,
    rfq_id: rfq.id,
    legs: rfq.legs.map((l) => ({ instrument: l.instrument, quantity: formatRfq(l.quantity) })),
    created_at: rfq.createdAt,
    closed_at_ms: closedAtMs,
    makers: rfq.competition?.makers ?? null,
    quotes: quotes.map((q): TranscriptQuote => ({
      ...quoteFields(q),
      received_at_ms: q.receivedAtMs,
      ended_at_ms: q.endedAtMs ?? closedAtMs,
      end: q.end ?? 'expired',
    })),
    accepted: accept && { quote_id: accept.quoteId, side: accept.side, price: formatRfq(accept.price), at_ms: accept.atMs, best: accept.best },
  };
}
