import type { DeclineReason, RfqLeg } from './rfq-record';
import type { RfqState } from './rfq-state';

/**
 * The rfq.* commands as the services take them: the params parsed by the methods' declarations
 * (packages/protocol/src/contract/methods-rfq.ts), which the gateway's one validator checks with the contract's error codes.
 */

export interface CreateRfqCommand {
  clientRef: string;
  /** Canonical values in the taker's order; not yet checked against the instruments. */
  legs: RfqLeg[];
  /** docs/spec/design.md 18: a competitive RFQ; `makers` the panel (its checks are the service's). */
  competition?: { makers?: string[] };
}

export interface ListRfqsQuery {
  /** null: every state. */
  states: RfqState[] | null;
  cursor: string | null;
  limit: number;
}

export interface PollQuery {
  cursor: string | null;
  limit: number;
}

export interface RespondCommand {
  rfqId: string;
  quoteNonce: bigint;
  bid: bigint;
  ask: bigint;
  issuedAt: number;
  expiresAt: number;
  /** As sent: whether it is canonical base64 of 64 bytes is the signature check's business. */
  makerSignature: string;
}

export interface DeclineCommand {
  rfqId: string;
  reason: DeclineReason;
}
