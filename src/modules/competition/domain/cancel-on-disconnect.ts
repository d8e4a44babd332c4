/**
 * How long a maker with cancel_on_disconnect may have no open connection before its live
 * competitive quotes end (docs/spec/design.md 19: within 5 s). With a check every second and a
 * presence heartbeat every second, the quotes end 2.5 to 3.5 s after the last connection closed,
 * 1.5 to 3.5 s after the instance holding it died.
 */
export const CANCEL_ON_DISCONNECT_GRACE_MS = 2500;

/** A watched maker: cancel_on_disconnect set and a live competitive quote. */
export interface WatchedMaker {
  accountId: number;
  /** The last time (unix ms) any instance saw it with an open connection; undefined: no record. */
  lastSeenMs: number | undefined;
  /** Since when (unix ms) this checker has watched it: the grace of a maker without a record counts from there. */
  watchedSinceMs: number;
}

/** The makers whose quotes end now: not seen connected for more than the grace. */
export function disconnectedMakers(nowMs: number, watched: readonly WatchedMaker[], graceMs = CANCEL_ON_DISCONNECT_GRACE_MS): number[] {
  return watched.filter((m) => nowMs - (m.lastSeenMs ?? m.watchedSinceMs) > graceMs).map((m) => m.accountId);
}
