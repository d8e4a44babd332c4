import type { DeclineReason, RfqCompetition, RfqFailure, Side, StoredQuote } from './domain/rfq-record';
import type { RfqState } from './domain/rfq-state';

/** The moves of an RFQ as RfqRepository makes them (one conditional statement each) and RfqTransitionsService asks them. */

/** Column values a move may set besides state, updated_at and ended_at. */
interface RfqChanges {
  /** pending → quoted. */
  quote?: StoredQuote;
  /** pending → declined. */
  declineReason?: DeclineReason;
  declinedBy?: number;
  /** quoted → accepted. */
  acceptedSide?: Side;
  /** → failed. */
  failure?: RfqFailure;
  /** submitting → filled. */
  fill?: { fillId: string; price: bigint; fee: bigint; filledAt: number };
  /** filled → failed by an admin revert. */
  fillReverted?: boolean;
}

export interface RfqMove {
  rfqId: string;
  from: RfqState;
  to: RfqState;
  changes?: RfqChanges;
  /** Unix seconds of the move (updated_at, ended_at, the event row); default: the caller's now. */
  at: number;
  /**
   * The move happens only while the RFQ's current deadline (its `expires_at` while pending, the
   * quote's while quoted) is after this instant (unix ms): a move racing its own expiry loses.
   */
  deadlineAfterMs?: number;
}

/** The accept row written with the move quoted → accepted: the side and the max_fee frozen at accept. */
export interface AcceptRow {
  quoteId: string;
  side: Side;
  fee: bigint;
  maxFee: bigint;
  takerSignature: string;
  expiresAt: number;
  acceptedAt: number;
}

/** A new RFQ as `insertPending` writes it (legs as stored: decimal text). */
export interface NewRfq {
  id: string;
  accountId: number;
  clientRef: string;
  legs: unknown;
  asset: string;
  expiry: number;
  createdAt: number;
  expiresAt: number;
  maxQuoteExpiresAt: number;
  /** null or absent: a seed RFQ. */
  competition?: RfqCompetition | null;
}

/** A move refused by its own statement (the nonce did not rise): nothing changed. */
export class MoveRefused extends Error {
  constructor(readonly reason: string) {
    super(`move refused: ${reason}`);
  }
}
