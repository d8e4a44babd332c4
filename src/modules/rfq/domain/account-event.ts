import type { RfqRecord } from './rfq-record';
import { makerQuoteEvent, rfqView } from './rfq-view';

// A protection trip is the limits' event, numbered with the RFQ moves' events of the account.
export { type ProtectionTrip, protectionEventData } from '../../maker-limits/domain/protection-trip';

/** Stored events are kept this long (docs/spec/design.md section 13). */
export const EVENT_RETENTION_SECONDS = 7 * 86400;

/** The subscription channels whose events are stored and numbered per account. */
export type AccountEventChannel = 'rfq' | 'rfq_maker';

/** Does the maker holding the quote hear a move from `from` to `to`? (docs/spec/design.md 5, Events) */
export function makerHears(from: string, to: string): boolean {
  return from !== 'pending' && ['accepted', 'filled', 'failed', 'expired'].includes(to);
}

/** `params.data` (without `seq`) of an account event: the same live and in a replay. */
export function accountEventData(
  channel: AccountEventChannel,
  record: RfqRecord,
  accountSeq: number | undefined,
  name?: 'quotes',
): Record<string, unknown> | null {
  const seq = accountSeq === undefined ? {} : { account_seq: accountSeq };
  // `quotes`: the live quotes of a competitive RFQ changed (docs/spec/design.md 18).
  if (channel === 'rfq') return { event: name ?? record.state, rfq: rfqView(record), ...seq };
  const event = makerQuoteEvent(record);
  // { seq, event, rfq } like every notification; `rfq` is the maker's view of its quote (docs/spec/design.md 5).
  return event ? { event: record.state, rfq: event, ...seq } : null;
}

/** `params.data` (without `seq`) of a maker's competitive quote that ended without a fill: `{ rfq_id, quote_id }` only. */
export function quoteEndEventData(event: string, rfqId: string, quoteId: string, accountSeq: number): Record<string, unknown> {
  return { event, rfq: { rfq_id: rfqId, quote_id: quoteId }, account_seq: accountSeq };
}
