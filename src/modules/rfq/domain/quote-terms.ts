import { RfqError, type RfqErrorReason } from '../../../common/errors/app-error';

/**
 * The value and time rules of a quote (docs/spec/interface.md 4.2 rfq.maker.respond rules 1 and 4,
 * docs/spec/design.md section 5), in the order they are checked: `bid <= ask`, `issued_at < expires_at`,
 * a lifetime of at most 3600 s, `expires_at <= max_quote_expires_at`, `issued_at <= now + 5`
 * (each RFQ_VALUE_OUT_OF_RANGE, never clamped), then `expires_at > now` (RFQ_QUOTE_EXPIRED).
 */

const MAX_QUOTE_LIFETIME_SECONDS = 3600;
/** How far a maker's clock may run ahead of ours. */
const ISSUED_AT_SKEW_SECONDS = 5;

export interface QuoteTerms {
  bid: bigint;
  ask: bigint;
  issuedAt: number;
  expiresAt: number;
}

export function checkQuoteTerms(quote: QuoteTerms, maxQuoteExpiresAt: number, now: number, rfqId: string): void {
  const outOfRange = (message: string, reason: RfqErrorReason<'RFQ_VALUE_OUT_OF_RANGE'>) => new RfqError('RFQ_VALUE_OUT_OF_RANGE', message, { rfqId, reason });
  if (quote.bid > quote.ask) throw outOfRange('bid must not be above ask', 'bid_above_ask');
  if (quote.issuedAt >= quote.expiresAt) throw outOfRange('issued_at must be before expires_at', 'quote_times');
  if (quote.expiresAt - quote.issuedAt > MAX_QUOTE_LIFETIME_SECONDS) {
    throw outOfRange(`expires_at - issued_at must be at most ${MAX_QUOTE_LIFETIME_SECONDS} seconds`, 'quote_times');
  }
  if (quote.expiresAt > maxQuoteExpiresAt)
    throw outOfRange(`expires_at must be at or before max_quote_expires_at ${maxQuoteExpiresAt}`, 'quote_expiry_too_late');
  if (quote.issuedAt > now + ISSUED_AT_SKEW_SECONDS) throw outOfRange(`issued_at is in the future (server time ${now})`, 'issued_in_future');
  if (quote.expiresAt <= now)
    throw new RfqError('RFQ_QUOTE_EXPIRED', `expires_at ${quote.expiresAt} has passed (server time ${now})`, { rfqId, reason: 'quote_expired' });
}

/** docs/spec/design.md section 5: `max_quote_expires_at = min(created_at + 3600, expiry of the legs)`. */
export function maxQuoteExpiresAt(createdAt: number, expiry: number): number {
  return Math.min(createdAt + MAX_QUOTE_LIFETIME_SECONDS, expiry);
}
