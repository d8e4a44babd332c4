import { type View, formatRfq } from '@legwork/protocol';
import type { CompetitiveQuote, RfqRecord, StoredLeg, StoredQuote } from './rfq-record';
import type { RfqState } from './rfq-state';

/** The wire forms of an RFQ (docs/spec/design.md section 5). Pure: records in, JSON-ready objects out. */

type RfqFillView = View<'RfqFill'>;

/** Result of rfq.create and rfq.get, items of rfq.list, `data.rfq` of `rfq` events (the taker's view). */
export type RfqView = View<'RfqView'>;

/** Items of rfq.maker.poll and `data.rfq` of `rfq_maker` created events: the taker stays anonymous. */
export type OpenRfqView = View<'OpenRfq'>;

/** What the maker holding the quote hears on `rfq_maker` (accepted, filled, failed, expired). */
export type MakerQuoteEvent = View<'MakerQuoteEvent'>;

export function legsView(rfq: Pick<RfqRecord, 'legs'>): StoredLeg[] {
  return rfq.legs.map((leg) => ({ instrument: leg.instrument, quantity: formatRfq(leg.quantity) }));
}

/**
 * `forTaker`: the taker's view, which alone carries the salt that ties the receipt's commitment to
 * its wallet (docs/spec/design.md 16); the maker's view of the same fill never does.
 */
function fillView(rfq: RfqRecord, forTaker: boolean): RfqFillView | null {
  if (!rfq.fill || !rfq.acceptedSide) return null;
  const f = rfq.fill;
  const view: RfqFillView = {
    fill_id: f.fillId,
    side: rfq.acceptedSide,
    price: formatRfq(f.price),
    fee: formatRfq(f.fee),
    filled_at: f.filledAt,
    reverted: f.reverted,
  };
  const salt = forTaker ? f.takerSalt : undefined;
  if (f.receipt) view.receipt = salt ? { ...f.receipt, taker_salt: salt } : f.receipt;
  return view;
}

type LiveQuoteView = View<'RfqLiveQuote'>;

/** What every view of a quote says of it (the RFQ's quote, a live quote, a transcript's quote). */
export function quoteFields(q: StoredQuote) {
  return {
    quote_id: q.quoteId,
    maker: q.makerWallet,
    quote_nonce: q.quoteNonce.toString(),
    bid: formatRfq(q.bid),
    ask: formatRfq(q.ask),
    issued_at: q.issuedAt,
    expires_at: q.expiresAt,
  };
}

function liveQuoteView(q: CompetitiveQuote): LiveQuoteView {
  return { ...quoteFields(q), maker_signature: q.makerSignature, received_at_ms: q.receivedAtMs };
}

/**
 * The best live quote of each side (docs/spec/design.md 18): the highest bid and the lowest ask,
 * ties to the earlier received (`quotes` in the order received).
 */
function bestOf(quotes: readonly CompetitiveQuote[]): { bid: string | null; ask: string | null } {
  let bid: CompetitiveQuote | null = null;
  let ask: CompetitiveQuote | null = null;
  for (const q of quotes) {
    if (!bid || q.bid > bid.bid) bid = q;
    if (!ask || q.ask < ask.ask) ask = q;
  }
  return { bid: bid?.quoteId ?? null, ask: ask?.quoteId ?? null };
}

/** The competition of the view: null for a seed RFQ; the live quotes (none known: none) and the best. */
function competitionView(rfq: RfqRecord): Pick<RfqView, 'competition' | 'quotes' | 'best'> {
  if (!rfq.competition) return { competition: null, quotes: null, best: null };
  const live = rfq.liveQuotes ?? [];
  return { competition: { makers: rfq.competition.makers }, quotes: live.map(liveQuoteView), best: bestOf(live) };
}

export function rfqView(rfq: RfqRecord): RfqView {
  const q = rfq.quote;
  return {
    rfq_id: rfq.id,
    client_ref: rfq.clientRef,
    state: rfq.state,
    legs: legsView(rfq),
    created_at: rfq.createdAt,
    updated_at: rfq.updatedAt,
    expires_at: rfq.expiresAt,
    max_quote_expires_at: rfq.maxQuoteExpiresAt,
    quote: q ? { ...quoteFields(q), maker_signature: q.makerSignature } : null,
    accepted_side: rfq.acceptedSide,
    decline_reason: rfq.declineReason,
    failure: rfq.failure ? { error: rfq.failure.error, message: rfq.failure.message } : null,
    fill: fillView(rfq, true),
    cancelled_at: rfq.cancelledAt,
    ...competitionView(rfq),
  };
}

export function openRfqView(rfq: RfqRecord): OpenRfqView {
  return {
    rfq_id: rfq.id,
    legs: legsView(rfq),
    created_at: rfq.createdAt,
    expires_at: rfq.expiresAt,
    max_quote_expires_at: rfq.maxQuoteExpiresAt,
    ...(rfq.competition ? { competitive: true as const } : {}),
  };
}

/** The open object plus the state it left pending for (`rfq_maker` closed events). */
export function closedRfqView(rfq: RfqRecord): OpenRfqView & { state: RfqState } {
  return { ...openRfqView(rfq), state: rfq.state };
}

/** null when the RFQ holds no quote. */
export function makerQuoteEvent(rfq: RfqRecord): MakerQuoteEvent | null {
  if (!rfq.quote) return null;
  return { rfq_id: rfq.id, quote_id: rfq.quote.quoteId, state: rfq.state, side: rfq.acceptedSide, fill: fillView(rfq, false) };
}
