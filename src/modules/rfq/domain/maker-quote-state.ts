import type { MakerQuoteState } from '@legwork/protocol';
import type { RfqState } from './rfq-state';

/**
 * The state of a seed quote in rfq.maker.quotes (docs/spec/design.md section 19): it follows its
 * RFQ. `live` while the RFQ is `quoted` and the quote's `expires_at` (unix seconds) is after
 * `now`, `accepted` while the RFQ is accepted or submitting, then `filled` or `failed`; `expired`
 * when the RFQ expired, was cancelled, or is `quoted` past the quote's time (the sweep has not
 * moved it yet).
 */
export function seedQuoteState(rfqState: RfqState, quoteExpiresAt: number, now: number): MakerQuoteState {
  switch (rfqState) {
    case 'quoted':
      return quoteExpiresAt > now ? 'live' : 'expired';
    case 'accepted':
    case 'submitting':
      return 'accepted';
    case 'filled':
    case 'failed':
      return rfqState;
    default:
      return 'expired';
  }
}

/**
 * The state of a competitive quote (docs/spec/design.md 18, 19): `live` until it ends or passes
 * its `expires_at` (the sweep has not ended it yet: `expired`); the accepted one follows its RFQ as
 * a seed quote does (`rfqState`: the RFQ's state, read for the accepted ones only); any other end
 * is its own name.
 */
export function competitiveQuoteState(
  end: 'accepted' | 'traded_away' | 'replaced' | 'cancelled' | 'expired' | null,
  rfqState: RfqState | undefined,
  quoteExpiresAt: number,
  now: number,
): MakerQuoteState {
  if (end === null) return quoteExpiresAt > now ? 'live' : 'expired';
  if (end !== 'accepted') return end;
  return rfqState === 'filled' || rfqState === 'failed' ? rfqState : 'accepted';
}

/** The keyset place of a quote in a maker's list: newest first by (received_at_ms, quote_id). */
interface Placed {
  received_at_ms: number;
  quote_id: string;
}

/** Whether `a` comes before `b` in the list (newer, or as new with the greater quote_id). */
const before = (a: Placed, b: Placed): boolean => a.received_at_ms > b.received_at_ms || (a.received_at_ms === b.received_at_ms && a.quote_id > b.quote_id);

/** Two pages of one list, each newest first, merged in its order and cut to `limit`. */
export function mergeNewestFirst<T extends Placed>(a: readonly T[], b: readonly T[], limit: number): T[] {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (out.length < limit && (i < a.length || j < b.length)) {
    if (j >= b.length || (i < a.length && before(a[i], b[j]))) out.push(a[i++]);
    else out.push(b[j++]);
  }
  return out;
}
