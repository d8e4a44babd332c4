/**
 * Wire shapes of the Legwork interface (docs/spec/interface.md; docs/spec/design.md sections 2 to 8), read off
 * the contract of `@legwork/protocol` (its method declarations and view schemas, the ones the
 * server validates and documents), so they cannot drift from what the server sends. Decimals are
 * strings on the wire: convert with the decimal helpers this package re-exports from `@legwork/protocol`.
 */
import type { EventData, MethodParams, MethodResult, SubscriptionChannel, View } from '@legwork/protocol';

export type { DeclineReason, MethodName, MethodParams, MethodResult, OptionKind, RfqErrorCode, RfqState, Side, View } from '@legwork/protocol';

/** Roles of an account (docs/spec/design.md 3); open to roles a newer server adds. */
export type Role = View<'Role'> | (string & {});

/** One leg of an RFQ: a listed symbol and a signed quantity in taker-buy orientation. */
export type RfqLeg = View<'RfqLeg'>;

/** Instrument record of `public/get_instruments` and the HTTP API (docs/spec/design.md 2); the marks are `public/get_instruments` only. */
export type Instrument = Omit<View<'InstrumentRecord'>, 'mark_price' | 'iv'> & Partial<Pick<View<'InstrumentRecord'>, 'mark_price' | 'iv'>>;

/** The terms of an instrument a quote payload needs. */
export type InstrumentTerms = Pick<Instrument, 'symbol' | 'asset' | 'strike' | 'kind' | 'expiry'>;

/** The quote an RFQ holds, as the taker sees it. */
export type QuoteView = View<'RfqQuote'>;

/** A fill of an RFQ; `receipt` (in `filled` events) is the exchange's signed receipt (verify with `verifyReceipt`). */
export type FillView = View<'RfqFill'>;

/** The taker's view of an RFQ: result of `rfq.create`, `rfq.get`, items of `rfq.list`, `rfq` events. */
export type RfqView = View<'RfqView'>;

/** An open RFQ as a quoter sees it (`rfq.maker.poll`, `rfq_maker` created events): the taker stays anonymous. */
export type OpenRfq = View<'OpenRfq'>;

/** What the maker holding a quote hears on `rfq_maker` (accepted, filled, failed, expired). */
export type MakerQuoteEvent = View<'MakerQuoteEvent'>;

/** A page of `rfq.list` or `rfq.maker.poll`. */
export interface Page<T> {
  items: T[];
  next_cursor?: string;
}

/** Params of `rfq.create`. `client_ref`: lowercase UUID, the idempotency key per account; the SDK generates one when omitted. */
export type CreateRfqParams = Omit<MethodParams<'rfq.create'>, 'client_ref'> & { client_ref?: string };

/** Params of `rfq.list`. */
export type ListRfqsParams = MethodParams<'rfq.list'>;

/** Params of `rfq.maker.poll`. */
export type PollParams = MethodParams<'rfq.maker.poll'>;

/** Params of `rfq.maker.respond` (see `signQuote`). */
export type RespondParams = MethodParams<'rfq.maker.respond'>;

/** Params of `rfq.accept` (see `signAccept`). */
export type AcceptParams = MethodParams<'rfq.accept'>;

/** Params of `public/get_instruments`. */
export type GetInstrumentsParams = MethodParams<'public/get_instruments'>;

export type RespondResult = MethodResult<'rfq.maker.respond'>;
export type DeclineResult = MethodResult<'rfq.maker.decline'>;
export type AcceptResult = MethodResult<'rfq.accept'>;

// The desk (docs/spec/design.md 15): the taker's cancel, the maker's limits, protection and check.

/** Result of `rfq.cancel`: the RFQ ended in `expired` at `cancelled_at` (the same result on a repeat). */
export type CancelResult = MethodResult<'rfq.cancel'>;

/** Result of `rfq.cancel_all`: the RFQs it cancelled, oldest first. */
export type CancelAllResult = MethodResult<'rfq.cancel_all'>;

/** A per-asset decimal map (`{ SOL: "100" }`): RfqDecimal strings. */
export type AssetDecimals = Record<string, string>;

/**
 * Maker protection after fills: thresholds over the fills of the last `window_seconds`. Every
 * field optional here, so a desk can build it piece by piece; the server requires `window_seconds`
 * and `frozen_seconds` (View<'MakerProtection'>) and names a missing one in RFQ_VALUE_OUT_OF_RANGE.
 */
export type MakerProtectionLimits = Partial<View<'MakerProtection'>>;

/** Limits of one maker account: every field optional, absent = no limit. Decimals are RfqDecimal strings. */
export type MakerLimits = Omit<View<'MakerLimits'>, 'protection'> & { protection?: MakerProtectionLimits };

/** A change to the maker's limits (`updateLimits`): each field given replaces the current one; `null` removes it. */
export type MakerLimitsUpdate = { [K in keyof MakerLimits]?: MakerLimits[K] | null };

/** Params of `rfq.maker.quotes`: `state` "live" (default) or "all", a page after a quote_id, 1 to 500 (default 100). */
export type MakerQuotesParams = MethodParams<'rfq.maker.quotes'>;

/** One of the maker's own quotes (`rfq.maker.quotes`), with its state (`live`, `accepted`, `filled`, `failed`, `expired`, ...). */
export type MakerQuote = View<'MakerQuote'>;

/** Result of `rfq.maker.quotes`: newest first; `next_cursor` when more remain. */
export type MakerQuotesResult = MethodResult<'rfq.maker.quotes'>;

/** Result of `rfq.maker.get_limits`, `rfq.maker.set_limits` and `rfq.maker.reset_protection`. */
export type MakerLimitsResult = MethodResult<'rfq.maker.get_limits'>;

/** The worst case of the maker's live quotes at the current marks. */
export type MakerUsage = MakerLimitsResult['usage'];

/** Whether protection froze the maker, and the fills of the current window. */
export type MakerProtectionState = MakerLimitsResult['protection'];

/** Result of `rfq.maker.check`: every check of respond passed; nothing was stored. */
export type CheckQuoteResult = MethodResult<'rfq.maker.check'>;

/** Result of `rfq.subscribe` and `rfq.maker.subscribe`. */
export type SubscribeResult = MethodResult<'rfq.subscribe'> | MethodResult<'rfq.maker.subscribe'>;

/** A nonce for sign-in (`public/get_nonce`, `POST /v1/auth/nonce`). */
export type NonceResult = MethodResult<'public/get_nonce'>;

/** Result of sign-in and session resume. `account_id` is null for a wallet with no account. */
export type AuthResult = MethodResult<'public/auth'>;

/** Result of `public/get_market_config` (docs/spec/design.md 4). */
export type MarketConfig = MethodResult<'public/get_market_config'>;

/** Notification channels a client subscribes to. */
export type Channel = SubscriptionChannel;

/** `params.data` of a notification on `rfq`: the taker's RFQ moved. */
export type RfqNotification = EventData<'rfq'>;

/** Events of the taker channel `rfq`. */
export type RfqEventName = RfqNotification['event'];

/** `params.data` of a notification on `rfq_maker`. */
export type MakerNotification = EventData<'rfq_maker'>;

/** `params.data` of the `protection` event on `rfq_maker`: the maker's protection tripped (docs/spec/design.md 15). */
export type ProtectionNotification = Extract<MakerNotification, { event: 'protection' }>;

/** What tripped the maker's protection, and until when it refuses new quotes. */
export type ProtectionTrip = View<'MakerProtectionTrip'>;

/**
 * `params.data` on channel `session` (no subscription): the connection's sign-in ended at its
 * token's `exp` or at a revoke of the account's sessions; it is as before sign-in until the next
 * `signIn` / `resume`.
 */
export type SessionNotification = EventData<'session'>;

/** The notification type of each channel. */
export interface ChannelData {
  rfq: RfqNotification;
  rfq_maker: MakerNotification;
  session: SessionNotification;
}

/** A funding requirement of one accept side (docs/spec/interface.md 2.3). */
export type FundingRequirement = View<'RfqFundingRequirement'>;

/** `details` of RFQ_TAKER_UNFUNDED (advisory). */
export type FundingView = View<'RfqTakerFunding'>;

// Competition (docs/spec/design.md 18): several makers quote, the taker takes one and can prove what it was offered.

/** `competition` of `rfq.create`: `makers`, the taker's panel (quoters' wallets); absent: every quoter. */
export type CompetitionParams = NonNullable<MethodParams<'rfq.create'>['competition']>;

/** A live quote of a competitive RFQ (`RfqView.quotes`): the quote object plus `received_at_ms`. */
export type LiveQuote = View<'RfqLiveQuote'>;

/** `RfqView.best` of a competitive RFQ: the quote_id of the highest live bid and of the lowest live ask, null when none. */
export type BestQuotes = View<'RfqBest'>;

/** Result of `rfq.maker.cancel_quote`. */
export type CancelQuoteResult = MethodResult<'rfq.maker.cancel_quote'>;

/** Result of `rfq.maker.cancel_quotes`: the quotes cancelled, oldest first. */
export type CancelQuotesResult = MethodResult<'rfq.maker.cancel_quotes'>;

/** Params of `rfq.maker.set_profile`: an absent field keeps its value. */
export type MakerProfileUpdate = MethodParams<'rfq.maker.set_profile'>;

/** The maker's whole profile (result of `rfq.maker.set_profile`). */
export type MakerProfile = MethodResult<'rfq.maker.set_profile'>;

/** A maker's last 7 days of competitive RFQs (`rfq.maker.stats`, and each maker of `rfq.makers`). */
export type MakerStats = View<'MakerStats'>;

/** A listed maker of the directory (`rfq.makers`): wallet, name and stats. */
export type DirectoryMaker = View<'DirectoryMaker'>;

/** Result of `rfq.transcript`: the exchange-signed transcript of an ended competitive RFQ. */
export type TranscriptResult = MethodResult<'rfq.transcript'>;

/** A list response of the HTTP query API. */
export interface CursorRows<T> {
  rows: T[];
  next_cursor?: string;
}

/** The rows of the HTTP query API: balances, RFQ positions, RFQ fills (amounts have 8 decimal places). */
export type { BalanceRow, RfqFillRow, RfqPositionRow } from '@legwork/protocol';
