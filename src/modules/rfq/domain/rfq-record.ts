import type { Receipt } from '@legwork/protocol';
import type { RfqErrorCode } from '../../../common/errors/app-error';
import type { RfqState } from './rfq-state';

/** An RFQ as the services hold it: money and quantities in micro-units, times in unix seconds. */

export type { DeclineReason, Side } from '@legwork/protocol';
import type { DeclineReason, Side } from '@legwork/protocol';

/** A leg as the taker sent it, in the taker's order; `quantity` in micro-contracts, taker-buy orientation. */
export interface RfqLeg {
  instrument: string;
  quantity: bigint;
}

/** The one quote an RFQ may hold (the first valid rfq.maker.respond). */
export interface StoredQuote {
  quoteId: string;
  makerAccountId: number;
  /** Base58 wallet of the maker (its public key signed the payload). */
  makerWallet: string;
  quoteNonce: bigint;
  bid: bigint;
  ask: bigint;
  issuedAt: number;
  expiresAt: number;
  /** Canonical base64 of the 64 signature bytes. */
  makerSignature: string;
  /** Unix milliseconds when the exchange took it (rfq.maker.quotes); a quote stored without it gets its move's time. */
  receivedAtMs?: number;
}

/** A quote of a competitive RFQ (docs/spec/design.md 18): the quote and when the exchange took it (unix ms). */
export interface CompetitiveQuote extends StoredQuote {
  receivedAtMs: number;
}

/** The quote a maker's respond makes (`command`, checked as `quoteId`), taken by the exchange at `receivedAtMs`. */
export function quoteOf(
  maker: { accountId: number; wallet: string },
  command: Pick<StoredQuote, 'quoteNonce' | 'bid' | 'ask' | 'issuedAt' | 'expiresAt' | 'makerSignature'>,
  quoteId: string,
  receivedAtMs: number,
): CompetitiveQuote {
  const { quoteNonce, bid, ask, issuedAt, expiresAt, makerSignature } = command;
  return { quoteId, makerAccountId: maker.accountId, makerWallet: maker.wallet, quoteNonce, bid, ask, issuedAt, expiresAt, makerSignature, receivedAtMs };
}

/** The competition asked at create: the panel's wallets in the order given and their account ids; null: every quoter. */
export interface RfqCompetition {
  makers: string[] | null;
  accounts: number[] | null;
}

export interface RfqFailure {
  error: RfqErrorCode;
  message: string;
}

/** The fill of a filled (or reverted) RFQ, as the RFQ view shows it. */
interface RfqFill {
  /** The ledger's fill id (a decimal string: bigserial). */
  fillId: string;
  /** Package premium: `ask` on a buy, `bid` on a sell. */
  price: bigint;
  /** Taker fee charged. */
  fee: bigint;
  filledAt: number;
  reverted: boolean;
  /** The exchange's signed receipt (docs/spec/design.md 14), where it was read with the fill: `filled` events. */
  receipt?: Receipt;
  /** The taker's salt of the receipt, hex (docs/spec/design.md 16): only the taker's view shows it. */
  takerSalt?: string;
}

export interface RfqRecord {
  id: string;
  /** The taker. */
  accountId: number;
  clientRef: string;
  legs: RfqLeg[];
  /** The one underlying and expiry every leg shares. */
  asset: string;
  expiry: number;
  state: RfqState;
  createdAt: number;
  updatedAt: number;
  /** Deadline of the pending RFQ: `created_at + RFQ_TTL_SECONDS`. */
  expiresAt: number;
  /** `min(created_at + 3600, expiry)`. */
  maxQuoteExpiresAt: number;
  quote: StoredQuote | null;
  declineReason: DeclineReason | null;
  /** The quoter that declined (it gets no `closed` event). */
  declinedBy: number | null;
  acceptedSide: Side | null;
  failure: RfqFailure | null;
  fill: RfqFill | null;
  /** When it last entered filled, declined, expired or failed. */
  endedAt: number | null;
  /** When the taker cancelled it (it is then `expired`); null otherwise. */
  cancelledAt: number | null;
  /** null for a seed RFQ (one quote, first wins); the competition of a competitive one (docs/spec/design.md 18). */
  competition: RfqCompetition | null;
  /**
   * The live quotes of a competitive RFQ, in the order received, where the record was read with
   * them (the competition module's reads and events); absent: none known (an ended competition has none).
   */
  liveQuotes?: CompetitiveQuote[];
  /** The `account_seq` of the events this record's move stored, by channel (docs/spec/design.md 13); set by a move only. */
  accountSeqs?: Partial<Record<'rfq' | 'rfq_maker', number>>;
}

/** Legs in their stored form (jsonb): canonical decimal strings, the taker's order. */
export interface StoredLeg {
  instrument: string;
  quantity: string;
}

/** Are two leg arrays the same strategy, leg by leg in the same order (canonical values)? */
export function sameLegs(a: readonly RfqLeg[], b: readonly RfqLeg[]): boolean {
  return a.length === b.length && a.every((leg, i) => leg.instrument === b[i].instrument && leg.quantity === b[i].quantity);
}
