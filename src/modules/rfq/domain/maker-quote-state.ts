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
