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
