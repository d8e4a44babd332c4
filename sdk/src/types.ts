/**
 * Wire shapes of the Legwork interface (docs/spec/interface.md; docs/spec/design.md sections 2 to 8). Decimals are
 * strings on the wire: convert with the decimal helpers this package re-exports from `@legwork/protocol`.
 */
import type { RFQ_STATES } from './enums';
import type { Receipt } from './receipts';

/** RFQ states (docs/spec/interface.md 2.1). */
export type RfqState = (typeof RFQ_STATES)[number];
/** The side a taker accepts: `buy` pays the ask, `sell` receives the bid. */
export type Side = 'buy' | 'sell';
/** Option kind. */
export type OptionKind = 'call' | 'put';
/** Reasons a quoter may give to `rfq.maker.decline`. */
export type DeclineReason = 'unlisted_instrument' | 'near_expiry' | 'size_limit' | 'stale_data' | 'low_confidence' | 'queue_overflow';
/** Roles of an account (docs/spec/design.md 3). */
export type Role = 'taker' | 'quoter' | 'admin' | (string & {});
/** The RFQ error codes of docs/spec/interface.md 7.2. */
export type RfqErrorCode =
  | 'RFQ_NOT_ENABLED'
  | 'RFQ_NOT_READY'
  | 'RFQ_INVALID_INSTRUMENT'
  | 'RFQ_SIZE_INVALID'
  | 'RFQ_PRECISION_UNSUPPORTED'
  | 'RFQ_VALUE_OUT_OF_RANGE'
  | 'RFQ_OPEN_LIMIT'
  | 'RFQ_NOT_FOUND'
  | 'RFQ_WRONG_ROLE'
  | 'RFQ_INVALID_SIGNATURE'
  | 'RFQ_CANONICAL_MISMATCH'
  | 'RFQ_QUOTE_EXPIRED'
  | 'RFQ_STATE_CONFLICT'
  | 'RFQ_TAKER_UNFUNDED'
  | 'RFQ_BALANCE_INSUFFICIENT'
  | 'RFQ_PRICE_TOLERANCE'
  | 'RFQ_ATTESTATION_FAILED'
  | 'RFQ_TX_FAILED'
  | 'RFQ_RATE_LIMITED';

/** One leg of an RFQ: a listed symbol and a signed quantity in taker-buy orientation. */
export interface RfqLeg {
  instrument: string;
  /** RfqSignedDecimal, non-zero. */
  quantity: string;
}

/** Instrument record of `public/get_instruments` and the HTTP API (docs/spec/design.md 2). */
export interface Instrument {
  symbol: string;
  asset: string;
  /** RFQ decimal. */
  strike: string;
  kind: OptionKind;
  /** Unix seconds. */
  expiry: number;
  paused: boolean;
  settled: boolean;
  settlement_price: string | null;
  created_at: number;
  /** `public/get_instruments` only. */
  mark_price?: string | null;
  /** `public/get_instruments` only. */
  iv?: string | null;
}

/** The terms of an instrument a quote payload needs. */
export type InstrumentTerms = Pick<Instrument, 'symbol' | 'asset' | 'strike' | 'kind' | 'expiry'>;

/** The quote an RFQ holds, as the taker sees it. */
export interface QuoteView {
  quote_id: string;
  /** The maker's wallet, so the taker can rebuild and check the payload. */
  maker: string;
  quote_nonce: string;
  bid: string;
  ask: string;
  issued_at: number;
  expires_at: number;
  maker_signature: string;
}

/** A fill of an RFQ. */
export interface FillView {
  fill_id: string;
  side: Side;
  price: string;
  fee: string;
  filled_at: number;
  reverted: boolean;
  /** The exchange's signed receipt, in `filled` events (verify with `verifyReceipt`); the taker's copy carries `taker_salt`. */
  receipt?: Receipt;
}

/** The taker's view of an RFQ: result of `rfq.create`, `rfq.get`, items of `rfq.list`, `rfq` events. */
export interface RfqView {
  rfq_id: string;
  client_ref: string;
  state: RfqState;
  legs: RfqLeg[];
  created_at: number;
  updated_at: number;
  expires_at: number;
  max_quote_expires_at: number;
  quote: QuoteView | null;
  accepted_side: Side | null;
  decline_reason: DeclineReason | null;
  failure: { error: string; message: string } | null;
  fill: FillView | null;
  /** Unix seconds of the taker's `rfq.cancel` (the RFQ is then `expired`), else null (docs/spec/design.md 15). */
  cancelled_at: number | null;
}

/** An open RFQ as a quoter sees it (`rfq.maker.poll`, `rfq_maker` created events): the taker stays anonymous. */
export interface OpenRfq {
  rfq_id: string;
  legs: RfqLeg[];
  created_at: number;
  expires_at: number;
  max_quote_expires_at: number;
}

/** What the maker holding a quote hears on `rfq_maker` (accepted, filled, failed, expired). */
export interface MakerQuoteEvent {
  rfq_id: string;
  quote_id: string;
  state: RfqState;
  side: Side | null;
  fill: FillView | null;
}

/** A page of `rfq.list` or `rfq.maker.poll`. */
export interface Page<T> {
  items: T[];
  next_cursor?: string;
}

/** Params of `rfq.create`. */
export interface CreateRfqParams {
  /** Lowercase UUID, the idempotency key per account. The SDK generates one when omitted. */
  client_ref?: string;
  legs: RfqLeg[];
}

/** Params of `rfq.list`. */
export interface ListRfqsParams {
  states?: RfqState[];
  cursor?: string;
  limit?: number;
}

/** Params of `rfq.maker.poll`. */
export interface PollParams {
  cursor?: string;
  limit?: number;
}

/** Params of `rfq.maker.respond` (see `signQuote`). */
export interface RespondParams {
  rfq_id: string;
  quote_nonce: string;
  bid: string;
  ask: string;
  issued_at: number;
  expires_at: number;
  /** Canonical base64 of the 64-byte signature over the 1,050-byte StrategyQuotePayload. */
  maker_signature: string;
}

/** Params of `rfq.accept` (see `signAccept`). */
export interface AcceptParams {
  quote_id: string;
  side: Side;
  expires_at: number;
  /** Canonical base64 of the 64-byte signature over the 105-byte StrategyAcceptPayload. */
  taker_signature: string;
}

/** Result of `rfq.maker.respond`. */
export interface RespondResult {
  rfq_id: string;
  quote_id: string;
  state: 'quoted';
}

/** Result of `rfq.maker.decline`. */
export interface DeclineResult {
  rfq_id: string;
  state: 'declined';
  decline_reason: DeclineReason;
}

/** Result of `rfq.accept`. */
export interface AcceptResult {
  rfq_id: string;
  quote_id: string;
  side: Side;
  state: 'accepted';
}

// The desk (docs/spec/design.md 15): the taker's cancel, the maker's limits, protection and check.

/** Result of `rfq.cancel`: the RFQ ended in `expired` at `cancelled_at` (the same result on a repeat). */
export interface CancelResult {
  rfq_id: string;
  state: 'expired';
  cancelled_at: number;
}

/** Result of `rfq.cancel_all`: the RFQs it cancelled, oldest first. */
export interface CancelAllResult {
  cancelled: string[];
}

/** A per-asset decimal map (`{ SOL: "100" }`): RfqDecimal strings. */
export type AssetDecimals = Record<string, string>;

/** Maker protection after fills: thresholds over the fills of the last `window_seconds`. */
export interface MakerProtectionLimits {
  window_seconds?: number;
  max_fills?: number;
  /** RfqDecimal. */
  max_fill_notional?: string;
  max_fill_delta?: AssetDecimals;
  /** Frozen this long after a trip; 0: until `rfq.maker.reset_protection`. */
  frozen_seconds?: number;
}

/** Limits of one maker account: every field optional, absent = no limit. Decimals are RfqDecimal strings. */
export interface MakerLimits {
  /** 0 is the kill switch: no new quote until it is raised. */
  max_open_quotes?: number;
  max_open_notional?: string;
  max_quote_notional?: string;
  max_open_delta?: AssetDecimals;
  max_open_vega?: AssetDecimals;
  /** A quote whose bid or ask is further than this from the mark (bps of its notional) is refused. */
  price_band_bps?: number;
  protection?: MakerProtectionLimits;
}

/** The worst case of the maker's live quotes at the current marks. */
export interface MakerUsage {
  open_quotes: number;
  open_notional: string;
  open_delta: AssetDecimals;
  open_vega: AssetDecimals;
}

/** Whether protection froze the maker, and the fills of the current window. */
export interface MakerProtectionState {
  frozen: boolean;
  /** Unix seconds the freeze ends; null when not frozen or frozen until a reset. */
  until: number | null;
  window: { fills: number; notional: string; delta: AssetDecimals };
}

/** Result of `rfq.maker.get_limits` and `rfq.maker.set_limits`. */
export interface MakerLimitsResult {
  limits: MakerLimits;
  /** The operator's ceiling: each field's effective limit is the stricter of the two. */
  admin_limits: MakerLimits;
  usage: MakerUsage;
  protection: MakerProtectionState;
}

/** Result of `rfq.maker.check`: every check of respond passed; nothing was stored. */
export interface CheckQuoteResult {
  ok: true;
  quote_id: string;
  /** Canonical base64 of the 1,050-byte StrategyQuotePayload the exchange built from the params. */
  payload: string;
}

/** Result of `rfq.subscribe` and `rfq.maker.subscribe`. */
export interface SubscribeResult {
  channel: Channel;
  subscribed: true;
  /** The account's latest account_seq at the time of the call. */
  account_seq: number;
}

/** A nonce for sign-in (`public/get_nonce`, `POST /v1/auth/nonce`). */
export interface NonceResult {
  wallet?: string;
  nonce: string;
  expires_at?: number;
  /** The exact text to sign. */
  message?: string;
}

/** Result of sign-in and session resume. `account_id` is null for a wallet with no account. */
export interface AuthResult {
  wallet: string;
  account_id: number | null;
  roles: Role[];
  session_token: string;
}

/** Result of `public/get_market_config` (docs/spec/design.md 4). */
export interface MarketConfig {
  service_name: string;
  /** Hex of the signing domain, SHA-256 of the service name. */
  quote_domain: string;
  settlement_currency: string;
  decimals: number;
  payload_versions: { quote: number; accept: number };
  assets: Array<{ asset: string; index_price: string | null; index_updated_at: number | null }>;
  rfq: {
    enabled: boolean;
    max_legs: number;
    max_open_rfqs: number;
    rfq_ttl_seconds: number;
    max_quote_lifetime_seconds: number;
    taker_fee_bps: number;
    trade_fee_cap_bps: number;
    taker_fee_tolerance_bps: number;
    market_data_max_age_seconds: number;
  };
}

/** Params of `public/get_instruments`. */
export interface GetInstrumentsParams {
  asset?: string;
  expiry?: number;
  include_settled?: boolean;
}

/** Notification channels. */
export type Channel = 'rfq' | 'rfq_maker';

/** Events of the taker channel `rfq`. */
export type RfqEventName = 'quoted' | 'declined' | 'expired' | 'accepted' | 'submitting' | 'filled' | 'failed';

/** `params.data` of a notification on `rfq`: the taker's RFQ moved. */
export interface RfqNotification {
  /** Per connection, +1 per notification (a gap means a lost notification). */
  seq: number;
  /** Per account, +1 per event, kept across connections (docs/spec/design.md 13). */
  account_seq: number;
  event: RfqEventName;
  rfq: RfqView;
}

/** `params.data` of a notification on `rfq_maker`. */
export type MakerNotification =
  | { seq: number; event: 'created'; rfq: OpenRfq }
  | { seq: number; event: 'closed'; rfq: OpenRfq & { state: RfqState } }
  | { seq: number; account_seq: number; event: 'accepted' | 'filled' | 'failed' | 'expired'; rfq: MakerQuoteEvent }
  | ProtectionNotification;

/** `params.data` of the `protection` event on `rfq_maker`: the maker's protection tripped (docs/spec/design.md 15). */
export interface ProtectionNotification {
  seq: number;
  account_seq: number;
  event: 'protection';
  protection: ProtectionTrip;
}

/** What tripped the maker's protection, and until when it refuses new quotes. */
export interface ProtectionTrip {
  tripped_at: number;
  /** Unix seconds the freeze ends; null: until `rfq.maker.reset_protection`. */
  until: number | null;
  reason: string;
}

/**
 * `params.data` on channel `session` (no subscription): the connection's sign-in ended at its
 * token's `exp` or at a revoke of the account's sessions; it is as before sign-in until the next
 * `signIn` / `resume`.
 */
export interface SessionNotification {
  seq: number;
  event: 'expired' | 'revoked';
}

/** The notification type of each channel. */
export interface ChannelData {
  rfq: RfqNotification;
  rfq_maker: MakerNotification;
  session: SessionNotification;
}

/** A funding requirement of one accept side (docs/spec/interface.md 2.3). */
export interface FundingRequirement {
  required: string;
  estimate: boolean;
  funded: boolean;
  package_cash_delta?: string;
  cash_debit?: string;
  fee?: string;
  max_fee?: string;
  writer?: boolean;
  lock_increase?: string;
  post_fill_locked?: string;
}

/** `details` of RFQ_TAKER_UNFUNDED (advisory). */
export interface FundingView {
  anchored: boolean;
  free_balance: string | null;
  buy: FundingRequirement | null;
  sell: FundingRequirement | null;
}

/** A list response of the HTTP query API. */
export interface CursorRows<T> {
  rows: T[];
  next_cursor?: string;
}

/** A balance row (`GET /query/balances`); amounts have 8 decimal places. */
export interface BalanceRow {
  account_id: number;
  currency: string;
  available: string;
  locked: string;
  total: string;
  updated_at: string;
}

/** A net RFQ position row (`GET /query/rfq-positions`). */
export interface RfqPositionRow {
  account_id: number;
  instrument: string;
  asset: string;
  strike: string;
  kind: OptionKind;
  expiry: number;
  settled: boolean;
  quantity: string;
  /** Average price per contract over the fills that made the position; null when none can be given. */
  average_price: string | null;
  updated_at: string;
  [key: string]: unknown;
}

/** A fill row (`GET /query/rfq-fills`). */
export interface RfqFillRow {
  fill_id: string;
  rfq_id: string;
  quote_id: string;
  role: 'taker' | 'maker';
  side: Side;
  legs: RfqLeg[];
  price: string;
  fee: string;
  filled_at: number | string;
  reverted: boolean;
  receipt: Receipt | null;
  revert_receipt: Receipt | null;
  [key: string]: unknown;
}
