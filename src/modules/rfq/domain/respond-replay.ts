import type { RfqErrorReason } from '../../../common/errors/app-error';
import type { RespondCommand } from './rfq-params';
import type { RfqRecord, StoredQuote } from './rfq-record';
import { LIVE_BOOK_SECONDS } from './rfq-state';

/** What a respond answers, the first time and on every exact repeat (docs/spec/design.md section 19). */
export interface RespondResult {
  rfq_id: string;
  quote_id: string;
  state: 'quoted';
}

/**
 * The quotes of `maker` that `rfq` holds: a seed RFQ holds at most one (its first-wins quote). A
 * competitive RFQ's quotes are the competition module's: replayedCompetitive.
 */
function quotesOf(rfq: RfqRecord, makerAccountId: number): StoredQuote[] {
  return rfq.quote && rfq.quote.makerAccountId === makerAccountId ? [rfq.quote] : [];
}

/** Whether a stored quote was taken from exactly these params (the seven fields of section 19). */
function sameParams(quote: StoredQuote, command: RespondCommand): boolean {
  return (
    quote.quoteNonce === command.quoteNonce &&
    quote.bid === command.bid &&
    quote.ask === command.ask &&
    quote.issuedAt === command.issuedAt &&
    quote.expiresAt === command.expiresAt &&
    quote.makerSignature === command.makerSignature
  );
}

/**
 * Idempotent respond (docs/spec/design.md section 19): the original result when a respond of
 * `maker` with exactly these params was taken on `rfq` and the RFQ is still in the live book
 * (`now`: unix seconds), whatever its state since; null otherwise.
 */
export function replayedRespond(rfq: RfqRecord | null, makerAccountId: number, command: RespondCommand, now: number): RespondResult | null {
  if (!rfq || rfq.id !== command.rfqId || !inLiveBook(rfq, now)) return null;
  const quote = quotesOf(rfq, makerAccountId).find((q) => sameParams(q, command));
  return quote ? { rfq_id: rfq.id, quote_id: quote.quoteId, state: 'quoted' } : null;
}

/** Whether the RFQ is still in the live book at `now` (unix seconds): not ended, or ended less than LIVE_BOOK_SECONDS ago. */
const inLiveBook = (rfq: RfqRecord, now: number): boolean => rfq.endedAt === null || rfq.endedAt + LIVE_BOOK_SECONDS > now;

/**
 * Idempotent respond on a competitive RFQ: `kept` is the competitive quote whose quote_id these
 * params make (live, replaced or ended alike), null when none. The original result when it is this
 * maker's on this RFQ, taken from exactly these params (the signature too), and the RFQ is still
 * in the live book; null otherwise.
 */
export function replayedCompetitive(
  rfq: RfqRecord,
  makerAccountId: number,
  command: RespondCommand,
  kept: (StoredQuote & { rfqId: string }) | null,
  now: number,
): RespondResult | null {
  if (!kept || rfq.id !== command.rfqId || kept.rfqId !== rfq.id || kept.makerAccountId !== makerAccountId || !inLiveBook(rfq, now)) return null;
  return sameParams(kept, command) ? { rfq_id: rfq.id, quote_id: kept.quoteId, state: 'quoted' } : null;
}

/**
 * Why a respond or decline found the RFQ closed to it (RFQ_STATE_CONFLICT): `already_quoted` when
 * it holds the caller's own quote (other params), `quoted_by_another` when another maker's quote
 * won it, `rfq_ended` for any other end. The outcome after a quote (accepted, filled) is not told.
 */
export function closedReason(rfq: RfqRecord, makerAccountId: number): RfqErrorReason<'RFQ_STATE_CONFLICT'> {
  if (!rfq.quote) return 'rfq_ended';
  return rfq.quote.makerAccountId === makerAccountId ? 'already_quoted' : 'quoted_by_another';
}
