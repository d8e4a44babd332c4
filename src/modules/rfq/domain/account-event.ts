import type { RfqRecord } from './rfq-record';
import { makerQuoteEvent, rfqView } from './rfq-view';

/** Stored events are kept this long (docs/spec/design.md section 13). */
export const EVENT_RETENTION_SECONDS = 7 * 86400;

/** The subscription channels whose events are stored and numbered per account. */
export type AccountEventChannel = 'rfq' | 'rfq_maker';

/** A maker's protection trip (docs/spec/design.md section 15): the `protection` of its `rfq_maker` event. */
export interface ProtectionTrip {
  /** Unix seconds. */
  tripped_at: number;
  /** Unix seconds; null: frozen until rfq.maker.reset_protection. */
  until: number | null;
  /** The threshold exceeded and the value reached. */
  reason: string;
}

/** `params.data` (without `seq`) of a protection trip: the same live and in a replay. */
export function protectionEventData(trip: ProtectionTrip, accountSeq: number): Record<string, unknown> {
  return { event: 'protection', protection: trip, account_seq: accountSeq };
}

/** Does the maker holding the quote hear a move from `from` to `to`? (docs/spec/design.md 5, Events) */
export function makerHears(from: string, to: string): boolean {
  return from !== 'pending' && ['accepted', 'filled', 'failed', 'expired'].includes(to);
}

/** `params.data` (without `seq`) of an account event: the same live and in a replay. */
export function accountEventData(channel: AccountEventChannel, record: RfqRecord, accountSeq: number | undefined): Record<string, unknown> | null {
  const seq = accountSeq === undefined ? {} : { account_seq: accountSeq };
  if (channel === 'rfq') return { event: record.state, rfq: rfqView(record), ...seq };
  const event = makerQuoteEvent(record);
  // { seq, event, rfq } like every notification; `rfq` is the maker's view of its quote (docs/spec/design.md 5).
  return event ? { event: record.state, rfq: event, ...seq } : null;
}
