import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { MethodName, MethodParams } from '@legwork/protocol';
import type { BatchOutcome, BatchRequest, CallResult, LegworkClientEvents, LegworkClientOptions } from './client-options';
import { type AcceptBestOptions, type AcceptedBest, type CheckedTranscript, acceptBest, checkedTranscript, exchangeKeysOf } from './competition';
import type { Keypair } from './keys';
import { clean } from './params';
import { type RateLimitRetryOptions, rateLimitSettings, withRateLimitRetry } from './rate-limit';
import { RpcTransport } from './rpc-transport';
import { Session } from './session';
import { Subscriptions } from './subscriptions';
import type { TranscriptKey } from './transcript';
import type {
  AcceptParams,
  AcceptResult,
  AuthResult,
  CancelAllResult,
  CancelResult,
  Channel,
  CancelQuoteResult,
  CancelQuotesResult,
  CheckQuoteResult,
  ChannelData,
  CreateRfqParams,
  DeclineReason,
  DeclineResult,
  DirectoryMaker,
  GetInstrumentsParams,
  Instrument,
  ListRfqsParams,
  MakerLimits,
  MakerLimitsResult,
  MakerLimitsUpdate,
  MakerProfile,
  MakerProfileUpdate,
  MakerStats,
  MakerQuotesParams,
  MakerQuotesResult,
  MarketConfig,
  OpenRfq,
  Page,
  PollParams,
  RespondParams,
  RespondResult,
  RfqView,
  Side,
  SubscribeResult,
  TranscriptResult,
} from './types';

export type { ReconnectOptions, LegworkClientOptions, GapInfo, LegworkClientEvents, BatchOutcome, BatchRequest } from './client-options';

const MAX_BATCH = 20;

/**
 * The trading WebSocket (JSON-RPC 2.0 at `{ws_url}/client`): request/response matching with a
 * per-request timeout, batches, sign-in, typed RFQ methods, notification iterators with `seq` gap
 * detection, and automatic reconnection that resumes the session with `public/session_resume`
 * and re-subscribes the channels it had.
 *
 * Every `rfq.*` failure rejects with `RfqError` (code 1200), other error replies with
 * `LegworkRpcError`; no reply in time: `TimeoutError`; connection lost with the request in
 * flight: `ConnectionError` (the server may have run it: `rfq.create` is idempotent by
 * `client_ref`, a `respond` by its `quote_nonce` high-water mark).
 *
 * ```ts
 * const client = await LegworkClient.connect('ws://127.0.0.1:3000/client');
 * await client.signIn(Keypair.fromSeed(seed));
 * await client.subscribeRfq();
 * for await (const n of client.notifications('rfq')) console.log(n.seq, n.event, n.rfq.state);
 * ```
 */
export class LegworkClient extends EventEmitter<LegworkClientEvents> {
  /** Number of `seq` gaps seen (each a `gap` event). */
  gaps = 0;
  /** Number of notifications known lost through `seq` gaps. */
  missedNotifications = 0;

  private readonly transport: RpcTransport;
  private readonly subs: Subscriptions;
  private readonly auth: Session;
  private readonly rateLimit: Required<RateLimitRetryOptions> | null;
  private url = '';

  constructor(options: LegworkClientOptions = {}) {
    super();
    this.rateLimit = rateLimitSettings(options.rateLimitRetry);
    this.transport = new RpcTransport(options, {
      events: this,
      onOpen: () => this.subs.resetSeq(),
      onNotification: (params) => this.subs.onNotification(params),
      restore: async () => {
        const session = await this.auth.restore();
        await this.subs.resubscribe();
        return session;
      },
      onShutDown: () => this.subs.endAll(),
    });
    this.subs = new Subscriptions(this, this.transport);
    this.auth = new Session(this, this.transport, options.serviceName);
  }

  /** Creates a client and connects it. */
  static async connect(url: string, options: LegworkClientOptions = {}): Promise<LegworkClient> {
    const client = new LegworkClient(options);
    await client.connect(url);
    return client;
  }

  /**
   * Opens the connection to the full WebSocket URL (`ws://host:3000/client`). The first
   * connection is not retried: a failure rejects.
   */
  async connect(url: string): Promise<void> {
    await this.transport.connect(url);
    this.url = url;
  }

  /** True while connected and not restoring a session. */
  get connected(): boolean {
    return this.transport.connected;
  }

  /** The session token of the last sign-in or resume (a bearer for `LegworkHttp` too). */
  get sessionToken(): string | null {
    return this.auth.sessionToken;
  }

  /** The result of the last sign-in or resume. */
  get session(): AuthResult | null {
    return this.auth.current;
  }

  /** The channels subscribed on this client (re-subscribed after a reconnection). */
  get subscriptions(): Channel[] {
    return this.subs.subscribed;
  }

  // JSON-RPC

  /**
   * One JSON-RPC request. While reconnecting it waits for the connection (within its timeout).
   * Refused for a rate limit, it is sent again after `retry_after_ms` (option `rateLimitRetry`;
   * each attempt has its own timeout).
   * @throws {RfqError | LegworkRpcError | TimeoutError | ConnectionError}
   */
  call<T = never, M extends string = string>(
    method: M,
    params?: M extends MethodName ? MethodParams<M> : Record<string, unknown>,
    options: { timeoutMs?: number } = {},
  ): Promise<CallResult<T, M>> {
    return withRateLimitRetry(() => this.transport.request<CallResult<T, M>>(method, params, false, options.timeoutMs), this.rateLimit);
  }

  /**
   * Sends 1 to 20 requests in one frame (a JSON-RPC batch). Resolves when every reply came; each
   * outcome is the result or the error of its request, in the order given.
   */
  async batch(requests: BatchRequest[], options: { timeoutMs?: number } = {}): Promise<BatchOutcome[]> {
    if (!Array.isArray(requests) || requests.length < 1 || requests.length > MAX_BATCH) throw new RangeError(`a batch holds 1 to ${MAX_BATCH} requests`);
    return Promise.all(
      this.transport.batch(requests, options.timeoutMs).map((p) =>
        p.then(
          (result): BatchOutcome => ({ ok: true, result }),
          (error: Error): BatchOutcome => ({ ok: false, error }),
        ),
      ),
    );
  }

  // Notifications

  /**
   * The notifications of a channel (`params.data`: `{ seq, event, rfq, ... }`) from now on, as an
   * async iterable. Subscribe first (`subscribeRfq`, `subscribeMaker`); the iterable ends when the
   * client is closed, when the loop breaks, or when `signal` aborts. Notifications are buffered
   * until read.
   */
  notifications<C extends keyof ChannelData>(channel: C, options?: { signal?: AbortSignal }): AsyncIterableIterator<ChannelData[C]>;
  notifications(channel: string, options?: { signal?: AbortSignal }): AsyncIterableIterator<Record<string, unknown>>;
  notifications(channel: string, options: { signal?: AbortSignal } = {}): AsyncIterableIterator<unknown> {
    return this.subs.iterate(channel, options.signal);
  }

  // Sign-in and session

  /**
   * Signs in with a wallet key: `public/get_nonce`, sign the message, `public/auth`. Remembers the
   * session token (to resume after a reconnection) and the key (to sign in again when the token
   * can no longer be resumed).
   */
  async signIn(keypair: Keypair): Promise<AuthResult> {
    return this.auth.signIn(keypair, false);
  }

  /** Resumes a session with a session token (`public/session_resume`) and remembers it. */
  async resumeSession(sessionToken: string): Promise<AuthResult> {
    return this.auth.resume(sessionToken);
  }

  // Market

  /** `public/get_market_config`: service name, signing domain, decimals, RFQ limits. */
  getMarketConfig(): Promise<MarketConfig> {
    return this.call('public/get_market_config', {});
  }

  /** `public/get_instruments`: instrument records (default: open instruments of every asset), with marks. */
  async getInstruments(params: GetInstrumentsParams = {}): Promise<Instrument[]> {
    const result = await this.call('public/get_instruments', clean(params));
    return result.instruments;
  }

  // RFQ: taker

  /** `rfq.create` (taker role), idempotent by `client_ref` (generated when omitted); `competition` makes it competitive. */
  createRfq(params: CreateRfqParams): Promise<RfqView> {
    const competition = params.competition && clean(params.competition);
    return this.call('rfq.create', clean({ client_ref: params.client_ref ?? randomUUID(), legs: params.legs, competition }));
  }

  /** `rfq.get`: one of the account's live-book RFQs. */
  getRfq(rfqId: string): Promise<RfqView> {
    return this.call('rfq.get', { rfq_id: rfqId });
  }

  /** `rfq.list`: the account's live-book RFQs, newest first. */
  listRfqs(params: ListRfqsParams = {}): Promise<Page<RfqView>> {
    return this.call('rfq.list', clean(params));
  }

  /**
   * `rfq.subscribe`: taker events on channel `rfq`, kept across reconnections: after one, the
   * client re-subscribes with the last `account_seq` it delivered, so each event reaches the
   * application once, in order. `since` (an account_seq the application kept, e.g. across
   * restarts) replays the stored events after it first.
   */
  subscribeRfq(options: { since?: number } = {}): Promise<SubscribeResult> {
    return this.subs.subscribe('rfq', options.since);
  }

  /** The last `account_seq` delivered on `channel` (undefined before the first account event). */
  lastDelivered(channel: Channel): number | undefined {
    return this.subs.lastDelivered(channel);
  }

  /**
   * `rfq.accept`: accepts one side of a quote; build the params with `signAccept`. Sending the
   * same params again (after a timeout or a lost connection) returns the original result while
   * the RFQ is in the live book: nothing runs twice.
   */
  accept(params: AcceptParams): Promise<AcceptResult> {
    return this.call('rfq.accept', { ...params });
  }

  /**
   * `rfq.cancel` (taker role): withdraws a pending or quoted RFQ (it ends `expired` with
   * `cancelled_at`; its open-RFQ slot is freed). Idempotent; an RFQ in another state is
   * RFQ_STATE_CONFLICT (a racing accept or expiry came first).
   */
  cancelRfq(rfqId: string): Promise<CancelResult> {
    return this.call('rfq.cancel', { rfq_id: rfqId });
  }

  /** `rfq.cancel_all` (taker role): cancels every pending and quoted RFQ of the account; their ids, oldest first. */
  cancelAllRfqs(): Promise<CancelAllResult> {
    return this.call('rfq.cancel_all', {});
  }

  /** Signs (key: `keypair` or the sign-in's) and accepts the best live quote on `side` (buy: `best.ask`, sell: `best.bid`); none: NoBestQuoteError. */
  acceptBest(rfqId: string, side: Side, options: AcceptBestOptions = {}): Promise<AcceptedBest> {
    return acceptBest(this, rfqId, side, { ...options, keypair: options.keypair ?? this.auth.signingKey ?? undefined });
  }

  /** `rfq.transcript` (taker role): the exchange-signed transcript of an ended competitive RFQ. */
  transcript(rfqId: string): Promise<TranscriptResult> {
    return this.call('rfq.transcript', { rfq_id: rfqId });
  }

  /** `rfq.transcript` checked with `keys`, else `GET /v1/exchange/keys` of `httpUrl` (default: this connection's host). */
  verifiedTranscript(rfqId: string, options: { keys?: TranscriptKey; httpUrl?: string } = {}): Promise<CheckedTranscript> {
    return checkedTranscript(this, rfqId, options.keys ?? (() => exchangeKeysOf(this.url, options.httpUrl)));
  }

  /** `rfq.makers` (taker role): the listed makers with their names and last 7 days of competitive RFQs. */
  async makers(): Promise<DirectoryMaker[]> {
    return (await this.call('rfq.makers', {})).makers;
  }

  // RFQ: quoter

  /** `rfq.maker.poll` (quoter role): pending RFQs, oldest first. */
  poll(params: PollParams = {}): Promise<Page<OpenRfq>> {
    return this.call('rfq.maker.poll', clean(params));
  }

  /** `rfq.maker.respond` (quoter role): a signed two-sided quote; build the params with `signQuote`. */
  respond(params: RespondParams): Promise<RespondResult> {
    return this.call('rfq.maker.respond', { ...params });
  }

  /** `rfq.maker.decline` (quoter role). */
  decline(rfqId: string, reason: DeclineReason): Promise<DeclineResult> {
    return this.call('rfq.maker.decline', { rfq_id: rfqId, reason });
  }

  /**
   * `rfq.maker.check` (quoter role): runs every check `respond` would run on these params, limits
   * included, and stores nothing (no nonce is used). On RFQ_INVALID_SIGNATURE the `RfqError`
   * carries `payload` and `quoteId`: the exchange's bytes, to diff against yours.
   */
  checkQuote(params: RespondParams): Promise<CheckQuoteResult> {
    return this.call('rfq.maker.check', { ...params });
  }

  /**
   * `rfq.maker.set_limits` (quoter role): replaces the account's limits (absent fields: no limit;
   * `max_open_quotes: 0` stops new quotes). Live quotes stay firm. Returns `getMakerLimits`'s result.
   */
  setMakerLimits(limits: MakerLimits): Promise<MakerLimitsResult> {
    // The server checks the document field by field (a missing protection field is RFQ_VALUE_OUT_OF_RANGE naming it).
    return this.call('rfq.maker.set_limits', { limits: clean(limits) as MethodParams<'rfq.maker.set_limits'>['limits'] });
  }

  /**
   * Changes some of the maker's limits and keeps the others: reads the current limits, applies
   * `changes` (a field given replaces the current one, `null` removes it) and sets the result.
   * Two writers at once: the last set wins. Returns `getMakerLimits`'s result.
   */
  async updateLimits(changes: MakerLimitsUpdate): Promise<MakerLimitsResult> {
    const { limits } = await this.getMakerLimits();
    const merged: Record<string, unknown> = { ...limits };
    for (const [field, value] of Object.entries(changes)) {
      if (value === null) delete merged[field];
      else if (value !== undefined) merged[field] = value;
    }
    return this.setMakerLimits(merged);
  }

  /**
   * The kill switch: `max_open_quotes` 0, every other limit kept. No new quote is taken
   * (RFQ_OPEN_LIMIT `kill_switch`, not retryable); live quotes stay firm. Lift it with
   * `updateLimits({ max_open_quotes: null })` (or the count you want).
   */
  killSwitch(): Promise<MakerLimitsResult> {
    return this.updateLimits({ max_open_quotes: 0 });
  }

  /**
   * `rfq.maker.quotes` (quoter role): the maker's own quotes, newest first, with their states: to
   * learn the fate of a quote whose reply was lost (a `respond` sent again with the same params
   * answers the original result too).
   */
  makerQuotes(params: MakerQuotesParams = {}): Promise<MakerQuotesResult> {
    return this.call('rfq.maker.quotes', clean(params));
  }

  /** `rfq.maker.get_limits` (quoter role): the account's limits, the operator's, usage at the current marks and protection. */
  getMakerLimits(): Promise<MakerLimitsResult> {
    return this.call('rfq.maker.get_limits', {});
  }

  /** `rfq.maker.reset_protection` (quoter role): lifts a protection freeze that has no end (`frozen_seconds: 0`). */
  resetProtection(): Promise<MakerLimitsResult> {
    return this.call('rfq.maker.reset_protection', {});
  }

  /** `rfq.maker.cancel_quote` (quoter role): withdraws a live competitive quote (the same result again). */
  cancelQuote(quoteId: string): Promise<CancelQuoteResult> {
    return this.call('rfq.maker.cancel_quote', { quote_id: quoteId });
  }

  /** `rfq.maker.cancel_quotes` (quoter role): withdraws every live competitive quote of the caller, oldest first. */
  cancelQuotes(): Promise<CancelQuotesResult> {
    return this.call('rfq.maker.cancel_quotes', {});
  }

  /** `rfq.maker.set_profile` (quoter role): directory listing, name, cancel on disconnect; absent fields kept. */
  setProfile(profile: MakerProfileUpdate): Promise<MakerProfile> {
    return this.call('rfq.maker.set_profile', clean(profile));
  }

  /** `rfq.maker.stats` (quoter role): the caller's own last 7 days of competitive RFQs. */
  makerStats(): Promise<MakerStats> {
    return this.call('rfq.maker.stats', {});
  }

  /** `rfq.maker.subscribe` (quoter role): quoter events on channel `rfq_maker`, kept across reconnections as `subscribeRfq`'s. */
  subscribeMaker(options: { since?: number } = {}): Promise<SubscribeResult> {
    return this.subs.subscribe('rfq_maker', options.since);
  }

  // Connection

  /** Closes the connection for good: pending requests reject with `ConnectionError`, iterators end. */
  async close(): Promise<void> {
    await this.transport.close();
  }
}
