/**
 * The RFQ state machine (docs/spec/design.md section 5): every allowed move, and nothing else. The one
 * service that moves state (RfqTransitionsService) refuses a move that is not in this table.
 */

import { RFQ_STATES, type RfqState, isRfqState } from '@legwork/protocol';

export { RFQ_STATES, type RfqState, isRfqState };

/** from → the states it may move to, with what moves it (for the reader; the code uses the keys). */
export const RFQ_MOVES: Readonly<Record<RfqState, Readonly<Partial<Record<RfqState, string>>>>> = {
  pending: {
    quoted: 'first valid rfq.maker.respond',
    declined: 'first rfq.maker.decline',
    expired: 'expires_at passes, or the round settles',
  },
  quoted: {
    accepted: 'valid rfq.accept (fill job enqueued)',
    expired: "the quote's expires_at passes, or the round settles",
    // Competitive RFQs only (docs/spec/design.md 18): their last live quote ended, or every panel maker declined.
    pending: 'the last live quote of a competitive RFQ ended without an accept, before its expires_at',
    declined: 'every maker of a competitive RFQ’s panel declined',
  },
  accepted: {
    submitting: 'fill job starts',
    failed: 'a check at fill fails',
  },
  submitting: {
    filled: 'ledger commits',
    failed: 'a check at fill fails',
  },
  filled: {
    failed: 'admin revert (failure.error = RFQ_TX_FAILED, fill.reverted = true)',
  },
  declined: {},
  expired: {},
  failed: {},
};

export function canMove(from: RfqState, to: RfqState): boolean {
  return Object.prototype.hasOwnProperty.call(RFQ_MOVES[from], to);
}

/** States that count against MAX_OPEN_RFQS (docs/spec/design.md section 0: pending to submitting). */
export const OPEN_STATES: readonly RfqState[] = ['pending', 'quoted', 'accepted', 'submitting'];

function isOpen(state: RfqState): boolean {
  return OPEN_STATES.includes(state);
}

/** A move out of the open states frees one of the taker's MAX_OPEN_RFQS slots (accounts.open_rfqs). */
export function freesSlot(from: RfqState, to: RfqState): boolean {
  return isOpen(from) && !isOpen(to);
}

/**
 * States an RFQ has ended in: entering one sets `ended_at`, from which the live book keeps the
 * RFQ 24 h. `filled` counts (a later revert to `failed` ends it again, later).
 */
export const ENDED_STATES: readonly RfqState[] = ['filled', 'declined', 'expired', 'failed'];

export function isEnded(state: RfqState): boolean {
  return ENDED_STATES.includes(state);
}

/** How long the live book (rfq.get, rfq.list) keeps an RFQ after it ended, seconds. */
export const LIVE_BOOK_SECONDS = 24 * 3600;

/** States an accept has reached: a conflict there is `already_accepted` (docs/errors.md). */
const ACCEPTED_STATES: readonly RfqState[] = ['accepted', 'submitting', 'filled', 'failed'];

/**
 * The RFQ_STATE_CONFLICT reason of a call that needs the RFQ `quoted` or open (accept, cancel)
 * and found it in `state` (undefined: gone): `already_accepted` once an accept went through,
 * `not_quoted` while pending, `rfq_ended` after any other end.
 */
export function notQuotedReason(state: RfqState | undefined): 'already_accepted' | 'not_quoted' | 'rfq_ended' {
  if (state !== undefined && ACCEPTED_STATES.includes(state)) return 'already_accepted';
  return state === 'pending' ? 'not_quoted' : 'rfq_ended';
}
