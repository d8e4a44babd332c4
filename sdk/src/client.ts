import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { type MethodName, type MethodParams, type MethodResult, SUBSCRIBE_METHODS } from '@legwork/protocol';
import WebSocket from 'ws';
import { ConnectionError, LegworkRpcError, TimeoutError, rpcErrorFrom } from './errors';
import { type Keypair, messageToSign } from './keys';
import type {
  AcceptParams,
  AcceptResult,
  AuthResult,
  CancelAllResult,
  CancelResult,
  Channel,
  CheckQuoteResult,
  ChannelData,
  CreateRfqParams,
  DeclineReason,
  DeclineResult,
  GetInstrumentsParams,
  Instrument,
  ListRfqsParams,
  MakerLimits,
  MakerLimitsResult,
  MarketConfig,
  NonceResult,
  OpenRfq,
  Page,
  PollParams,
  RespondParams,
  RespondResult,
  RfqView,
  SubscribeResult,
} from './types';

/** Reconnect backoff: delay of attempt n = min(maxDelayMs, initialDelayMs * factor^(n-1)), less up to `jitter` of it. */
export interface ReconnectOptions {
  /** Default 250. */
  initialDelayMs?: number;
  /** Default 10,000. */
  maxDelayMs?: number;
  /** Default 2. */
  factor?: number;
  /** Fraction of the delay taken off at random, 0 to 1. Default 0.2. */
  jitter?: number;
  /** Attempts before giving up (the client then closes). Default: no limit. */
  maxAttempts?: number;
}

/** Options of {@link LegworkClient}. */
export interface LegworkClientOptions {
  /** Per-request timeout, including any wait for a reconnection. Default 10,000 ms. */
  requestTimeoutMs?: number;
  /** Reconnect automatically (default true), with these backoff settings. */
  reconnect?: boolean | ReconnectOptions;
  /** Client-side ping interval: a connection that did not answer the previous ping is cut (and reconnected). 0 disables. Default 15,000 ms. */
  heartbeatMs?: number;
  /** Service name for the sign-in message when the server does not send it (default "Legwork"). */
  serviceName?: string;
  /** Options passed to `new WebSocket(url, options)` (headers, TLS, ...). */
  wsOptions?: WebSocket.ClientOptions;
}

/** A `seq` gap on the connection: `missed` notifications were lost. */
export interface GapInfo {
  channel: string;
  expected: number;
  received: number;
  missed: number;
}

/** Events of {@link LegworkClient}. */
export interface LegworkClientEvents {
  /** Every subscription notification: its channel and `params.data` (`{ seq, event, rfq, ... }`). */
  notification: [channel: string, data: Record<string, unknown>];
  /** A `seq` gap: notifications were lost (resync with `listRfqs` / `poll`). */
  gap: [info: GapInfo];
  /** The connection closed (a reconnection follows unless the client was closed or reconnecting is off). */
  disconnected: [info: { code: number; reason: string }];
  /** A reconnection attempt is scheduled. */
  reconnecting: [info: { attempt: number; delayMs: number }];
  /**
   * Reconnected, the session resumed and the channels re-subscribed. Notifications sent while
   * disconnected are lost: resync with `listRfqs` / `poll`.
   */
  reconnected: [info: { attempt: number; session: AuthResult | null }];
  /** Restoring the session or a subscription after a reconnection failed on the server's answer. */
  resumeError: [error: Error];
  /** The client is closed for good (by `close()`, or after the last reconnection attempt). */
  closed: [];
}

/** The outcome of one request of a batch. */
export type BatchOutcome<T = unknown> = { ok: true; result: T } | { ok: false; error: Error };

/** One request of a batch. */
export interface BatchRequest {
  method: string;
  params?: Record<string, unknown>;
}

/**
 * What `call` resolves with: the declared result of a method of the contract, `T` when given, else
 * unknown (a method the contract does not know).
 */
type CallResult<T, M extends string> = [T] extends [never] ? (M extends MethodName ? MethodResult<M> : unknown) : T;

interface Entry {
  method: string;
  params: Record<string, unknown> | undefined;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout | null;
  id: number | null;
  settled: boolean;
}

interface Frame {
  entries: Entry[];
  batch: boolean;
}

interface Sink {
  buffer: unknown[];
  waiter: ((result: IteratorResult<never>) => void) | null;
  done: boolean;
}

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

  private url: string | null = null;
  private socket: WebSocket | null = null;
  private ready = false;
  private closed = false;
  private reconnecting = false;
  private nextId = 1;
  private lastSeq = 0;
  /** The last account_seq handed to the application, per channel: the `since` of a re-subscribe (docs/spec/design.md 13). */
  private readonly lastAccountSeq = new Map<Channel, number>();
  private readonly pending = new Map<number, Entry>();
  private readonly waiting: Frame[] = [];
  private readonly channels = new Set<Channel>();
  private readonly sinks = new Map<string, Set<Sink>>();
  private token: string | null = null;
  private keypair: Keypair | null = null;
  private lastAuth: AuthResult | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private reconnectTimer: { timer: NodeJS.Timeout; wake: () => void } | null = null;
  private readonly requestTimeoutMs: number;
  private readonly reconnect: Required<ReconnectOptions> | null;
  private readonly heartbeatMs: number;

  constructor(private readonly options: LegworkClientOptions = {}) {
    super();
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    this.heartbeatMs = options.heartbeatMs ?? 15_000;
    const r = options.reconnect ?? true;
    this.reconnect =
      r === false
        ? null
        : {
            initialDelayMs: 250,
            maxDelayMs: 10_000,
            factor: 2,
            jitter: 0.2,
            maxAttempts: Number.POSITIVE_INFINITY,
            ...(r === true ? {} : r),
          };
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
    if (this.closed) throw new ConnectionError('the client is closed');
    if (this.url !== null) throw new ConnectionError('connect() was called already');
    this.url = url;
    try {
      await this.openSocket();
    } catch (error) {
      this.url = null;
      throw error;
    }
    this.markReady();
  }

  /** True while connected and not restoring a session. */
  get connected(): boolean {
    return this.ready;
  }

  /** The session token of the last sign-in or resume (a bearer for `LegworkHttp` too). */
  get sessionToken(): string | null {
    return this.token;
  }

  /** The result of the last sign-in or resume. */
  get session(): AuthResult | null {
    return this.lastAuth;
  }

  /** The channels subscribed on this client (re-subscribed after a reconnection). */
  get subscriptions(): Channel[] {
    return [...this.channels];
  }

  // JSON-RPC

  /**
   * One JSON-RPC request. While reconnecting it waits for the connection (within its timeout).
   * @throws {RfqError | LegworkRpcError | TimeoutError | ConnectionError}
   */
  call<T = never, M extends string = string>(
    method: M,
    params?: M extends MethodName ? MethodParams<M> : Record<string, unknown>,
    options: { timeoutMs?: number } = {},
  ): Promise<CallResult<T, M>> {
    const [entry, promise] = this.entry<CallResult<T, M>>(method, params, options.timeoutMs);
    this.submit({ entries: [entry], batch: false }, false);
    return promise;
  }

  /**
   * Sends 1 to 20 requests in one frame (a JSON-RPC batch). Resolves when every reply came; each
   * outcome is the result or the error of its request, in the order given.
   */
  async batch(requests: BatchRequest[], options: { timeoutMs?: number } = {}): Promise<BatchOutcome[]> {
    if (!Array.isArray(requests) || requests.length < 1 || requests.length > MAX_BATCH) throw new RangeError(`a batch holds 1 to ${MAX_BATCH} requests`);
    const pairs = requests.map((r) => this.entry(r.method, r.params, options.timeoutMs));
    this.submit({ entries: pairs.map(([e]) => e), batch: true }, false);
    return Promise.all(
      pairs.map(([, p]) =>
        p.then(
          (result): BatchOutcome => ({ ok: true, result }),
          (error: Error): BatchOutcome => ({ ok: false, error }),
        ),
      ),
    );
  }

  private entry<T>(method: string, params: Record<string, unknown> | undefined, timeoutMs = this.requestTimeoutMs): [Entry, Promise<T>] {
    let entry!: Entry;
    const promise = new Promise<T>((resolve, reject) => {
      entry = { method, params, resolve: resolve as (v: unknown) => void, reject, timer: null, id: null, settled: false };
    });
    entry.timer = setTimeout(() => {
      if (entry.id !== null) this.pending.delete(entry.id);
      this.settle(entry, new TimeoutError(method, timeoutMs));
    }, timeoutMs);
    return [entry, promise];
  }

  private settle(entry: Entry, error: Error | null, result?: unknown): void {
    if (entry.settled) return;
    entry.settled = true;
    if (entry.timer) clearTimeout(entry.timer);
    if (error) entry.reject(error);
    else entry.resolve(result);
  }

  /** Sends now when ready (or when `internal`, on the socket being restored), else queues for the reconnection. */
  private submit(frame: Frame, internal: boolean): void {
    if (this.closed) {
      for (const e of frame.entries) this.settle(e, new ConnectionError('the client is closed', e.method));
      return;
    }
    if (internal || this.ready) {
      this.transmit(frame);
      return;
    }
    if (this.url === null) {
      for (const e of frame.entries) this.settle(e, new ConnectionError('not connected: call connect() first', e.method));
      return;
    }
    this.waiting.push(frame);
  }

  private transmit(frame: Frame): void {
    const live = frame.entries.filter((e) => !e.settled);
    if (live.length === 0) return;
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      for (const e of live) this.settle(e, new ConnectionError('not connected', e.method));
      return;
    }
    const envelopes = live.map((e) => {
      e.id = this.nextId++;
      this.pending.set(e.id, e);
      const envelope: Record<string, unknown> = { jsonrpc: '2.0', id: e.id, method: e.method };
      if (e.params !== undefined) envelope.params = e.params;
      return envelope;
    });
    socket.send(JSON.stringify(frame.batch ? envelopes : envelopes[0]), (error) => {
      if (!error) return;
      for (const e of live) {
        if (e.id !== null) this.pending.delete(e.id);
        this.settle(e, new ConnectionError(`send failed: ${error.message}`, e.method));
      }
    });
  }

  private onMessage(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return;
    }
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item !== 'object' || item === null) continue;
      const message = item as { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: unknown };
      if (message.method === 'subscription') this.onNotification(message.params);
      else if (typeof message.id === 'number') this.onReply(message.id, message);
    }
  }

  private onReply(id: number, reply: { result?: unknown; error?: unknown }): void {
    const entry = this.pending.get(id);
    if (!entry) return; // timed out already
    this.pending.delete(id);
    if (reply.error !== undefined && reply.error !== null) this.settle(entry, rpcErrorFrom(reply.error, entry.method));
    else this.settle(entry, null, reply.result);
  }

  // Notifications

  private onNotification(params: unknown): void {
    if (typeof params !== 'object' || params === null) return;
    const { channel, data } = params as { channel?: unknown; data?: unknown };
    if (typeof channel !== 'string' || typeof data !== 'object' || data === null) return;
    const seq = (data as { seq?: unknown }).seq;
    if (typeof seq === 'number') {
      const expected = this.lastSeq + 1;
      if (seq > expected) {
        this.gaps += 1;
        this.missedNotifications += seq - expected;
        this.emit('gap', { channel, expected, received: seq, missed: seq - expected });
      }
      if (seq > this.lastSeq) this.lastSeq = seq;
    }
    const accountSeq = (data as { account_seq?: unknown }).account_seq;
    if (typeof accountSeq === 'number' && (channel === 'rfq' || channel === 'rfq_maker')) {
      // Delivered already (a replay overlapping what came before the reconnection): once only.
      const last = this.lastAccountSeq.get(channel);
      if (last !== undefined && accountSeq <= last) return;
      this.lastAccountSeq.set(channel, accountSeq);
    }
    this.emit('notification', channel, data as Record<string, unknown>);
    for (const sink of this.sinks.get(channel) ?? []) {
      if (sink.waiter) {
        const waiter = sink.waiter;
        sink.waiter = null;
        waiter({ value: data as never, done: false });
      } else {
        sink.buffer.push(data);
      }
    }
  }

  /**
   * The notifications of a channel (`params.data`: `{ seq, event, rfq, ... }`) from now on, as an
   * async iterable. Subscribe first (`subscribeRfq`, `subscribeMaker`); the iterable ends when the
   * client is closed, when the loop breaks, or when `signal` aborts. Notifications are buffered
   * until read.
   */
  notifications<C extends keyof ChannelData>(channel: C, options?: { signal?: AbortSignal }): AsyncIterableIterator<ChannelData[C]>;
  notifications(channel: string, options?: { signal?: AbortSignal }): AsyncIterableIterator<Record<string, unknown>>;
  notifications(channel: string, options: { signal?: AbortSignal } = {}): AsyncIterableIterator<unknown> {
    const sink: Sink = { buffer: [], waiter: null, done: this.closed };
    let set = this.sinks.get(channel);
    if (!set) this.sinks.set(channel, (set = new Set()));
    set.add(sink);
    const end = (): IteratorResult<never> => {
      sink.done = true;
      this.sinks.get(channel)?.delete(sink);
      const waiter = sink.waiter;
      sink.waiter = null;
      waiter?.({ value: undefined as never, done: true });
      return { value: undefined as never, done: true };
    };
    const signal = options.signal;
    if (signal) {
      if (signal.aborted) end();
      else signal.addEventListener('abort', () => end(), { once: true });
    }
    const iterator: AsyncIterableIterator<unknown> = {
      [Symbol.asyncIterator]: () => iterator,
      next: () => {
        if (sink.buffer.length > 0) return Promise.resolve({ value: sink.buffer.shift(), done: false });
        if (sink.done) return Promise.resolve({ value: undefined, done: true });
        return new Promise<IteratorResult<unknown>>((resolve) => (sink.waiter = resolve));
      },
      return: () => Promise.resolve(end()),
    };
    return iterator;
  }

  // Sign-in and session

  /**
   * Signs in with a wallet key: `public/get_nonce`, sign the message, `public/auth`. Remembers the
   * session token (to resume after a reconnection) and the key (to sign in again when the token
   * can no longer be resumed).
   */
  async signIn(keypair: Keypair): Promise<AuthResult> {
    return this.signInWith(keypair, false);
  }

  /** Resumes a session with a session token (`public/session_resume`) and remembers it. */
  async resumeSession(sessionToken: string): Promise<AuthResult> {
    const result = await this.call('public/session_resume', { session_token: sessionToken });
    this.remember(result);
    return result;
  }

  private async signInWith(keypair: Keypair, internal: boolean): Promise<AuthResult> {
    const nonce = await this.request<NonceResult>('public/get_nonce', { wallet: keypair.wallet }, internal);
    const message = messageToSign(nonce, keypair.wallet, this.options.serviceName);
    const result = await this.request<AuthResult>('public/auth', { wallet: keypair.wallet, signature: keypair.signBase58(message), message }, internal);
    this.keypair = keypair;
    this.remember(result);
    return result;
  }

  private remember(result: AuthResult): void {
    this.lastAuth = result;
    this.token = result.session_token;
  }

  private request<T>(method: string, params: Record<string, unknown>, internal: boolean): Promise<T> {
    if (!internal) return this.call<T>(method, params) as Promise<T>;
    const [entry, promise] = this.entry<T>(method, params);
    this.submit({ entries: [entry], batch: false }, true);
    return promise;
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

  /** `rfq.create` (taker role): opens an RFQ; idempotent by `client_ref`, generated when omitted. */
  createRfq(params: CreateRfqParams): Promise<RfqView> {
    return this.call('rfq.create', { client_ref: params.client_ref ?? randomUUID(), legs: params.legs });
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
    return this.subscribeChannel('rfq', options.since);
  }

  /** The last `account_seq` delivered on `channel` (undefined before the first account event). */
  lastDelivered(channel: Channel): number | undefined {
    return this.lastAccountSeq.get(channel);
  }

  private async subscribeChannel(channel: Channel, since: number | undefined): Promise<SubscribeResult> {
    if (since !== undefined) this.lastAccountSeq.set(channel, since);
    const result = await this.call<SubscribeResult>(SUBSCRIBE_METHODS[channel], since === undefined ? {} : { since });
    this.channels.add(channel);
    if (since === undefined && typeof result.account_seq === 'number')
      this.lastAccountSeq.set(channel, Math.max(this.lastAccountSeq.get(channel) ?? 0, result.account_seq));
    return result;
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

  /** `rfq.maker.get_limits` (quoter role): the account's limits, the operator's, usage at the current marks and protection. */
  getMakerLimits(): Promise<MakerLimitsResult> {
    return this.call('rfq.maker.get_limits', {});
  }

  /** `rfq.maker.reset_protection` (quoter role): lifts a protection freeze that has no end (`frozen_seconds: 0`). */
  resetProtection(): Promise<MakerLimitsResult> {
    return this.call('rfq.maker.reset_protection', {});
  }

  /** `rfq.maker.subscribe` (quoter role): quoter events on channel `rfq_maker`, kept across reconnections as `subscribeRfq`'s. */
  subscribeMaker(options: { since?: number } = {}): Promise<SubscribeResult> {
    return this.subscribeChannel('rfq_maker', options.since);
  }

  // Connection

  /** Closes the connection for good: pending requests reject with `ConnectionError`, iterators end. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.ready = false;
    this.reconnectTimer?.wake();
    this.stopHeartbeat();
    const socket = this.socket;
    this.socket = null;
    this.failAll(new ConnectionError('the client is closed'));
    this.endSinks();
    if (socket && socket.readyState !== WebSocket.CLOSED) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          socket.terminate();
          resolve();
        }, 1000);
        socket.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
        socket.close(1000, 'client closed');
      });
    }
    this.emit('closed');
  }

  private openSocket(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const socket = new WebSocket(this.url!, this.options.wsOptions);
      let opened = false;
      socket.on('open', () => {
        opened = true;
        if (this.closed) {
          socket.terminate();
          reject(new ConnectionError('the client is closed'));
          return;
        }
        this.socket = socket;
        this.lastSeq = 0; // seq counts per connection
        this.startHeartbeat(socket);
        resolve();
      });
      socket.on('message', (data) => {
        if (socket === this.socket) this.onMessage(data.toString());
      });
      socket.on('error', (error) => {
        if (!opened) reject(new ConnectionError(`cannot connect to ${this.url}: ${error.message}`));
      });
      socket.on('close', (code, reason) => {
        if (!opened) {
          reject(new ConnectionError(`cannot connect to ${this.url}: closed with ${code}`));
          return;
        }
        this.onClose(socket, code, reason.toString());
      });
    });
  }

  private onClose(socket: WebSocket, code: number, reason: string): void {
    if (socket !== this.socket) return;
    this.socket = null;
    this.ready = false;
    this.stopHeartbeat();
    for (const entry of this.pending.values()) this.settle(entry, new ConnectionError(`connection closed (${code}) before the reply`, entry.method));
    this.pending.clear();
    this.emit('disconnected', { code, reason });
    if (this.closed || this.reconnecting) return; // close(), or the reconnection loop sees the failure itself
    if (!this.reconnect) {
      this.shutDown(new ConnectionError(`connection closed (${code})`));
      return;
    }
    void this.reconnectLoop();
  }

  private async reconnectLoop(): Promise<void> {
    const r = this.reconnect!;
    this.reconnecting = true;
    try {
      for (let attempt = 1; !this.closed; attempt++) {
        if (attempt > r.maxAttempts) {
          this.shutDown(new ConnectionError(`gave up reconnecting after ${r.maxAttempts} attempts`));
          return;
        }
        const base = Math.min(r.maxDelayMs, r.initialDelayMs * r.factor ** (attempt - 1));
        const delayMs = Math.round(base * (1 - r.jitter * Math.random()));
        this.emit('reconnecting', { attempt, delayMs });
        await this.sleep(delayMs);
        if (this.closed) return;
        try {
          await this.openSocket();
          const session = await this.restore();
          if (this.closed) return;
          this.markReady();
          this.emit('reconnected', { attempt, session });
          return;
        } catch {
          const socket = this.socket;
          this.socket = null;
          this.stopHeartbeat();
          socket?.terminate();
        }
      }
    } finally {
      this.reconnecting = false;
    }
  }

  /**
   * On a fresh connection: resume the session (or sign in again with the remembered key), then
   * re-subscribe. A connection failure throws (the loop retries); a refusal by the server is
   * reported with `resumeError` and the client goes on without it.
   */
  private async restore(): Promise<AuthResult | null> {
    let session: AuthResult | null = null;
    if (this.token) {
      try {
        session = await this.request<AuthResult>('public/session_resume', { session_token: this.token }, true);
        this.remember(session);
      } catch (error) {
        if (!(error instanceof LegworkRpcError)) throw error;
        if (this.keypair) {
          session = await this.signInWith(this.keypair, true).catch((e: Error) => {
            if (!(e instanceof LegworkRpcError)) throw e;
            this.emit('resumeError', e);
            return null;
          });
        } else {
          this.emit('resumeError', error);
        }
        if (!session) {
          this.token = null;
          this.lastAuth = null;
        }
      }
    }
    for (const channel of [...this.channels]) {
      // From the last event delivered: what was sent while away is replayed, nothing twice.
      const since = this.lastAccountSeq.get(channel);
      try {
        await this.request(SUBSCRIBE_METHODS[channel], since === undefined ? {} : { since }, true);
      } catch (error) {
        if (!(error instanceof LegworkRpcError)) throw error;
        this.emit('resumeError', error);
        // Older than the stored events (7 days): live from now; the application re-reads its state.
        const live =
          since === undefined
            ? null
            : await this.request<SubscribeResult>(SUBSCRIBE_METHODS[channel], {}, true).catch((e: Error) => {
                if (!(e instanceof LegworkRpcError)) throw e;
                return null;
              });
        if (live) this.lastAccountSeq.set(channel, live.account_seq);
        else this.channels.delete(channel);
      }
    }
    return session;
  }

  private markReady(): void {
    this.ready = true;
    const frames = this.waiting.splice(0);
    for (const frame of frames) this.transmit(frame);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.reconnectTimer = null;
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.reconnectTimer = { timer, wake };
    });
  }

  private startHeartbeat(socket: WebSocket): void {
    this.stopHeartbeat();
    if (this.heartbeatMs <= 0) return;
    let alive = true;
    const mark = () => (alive = true);
    socket.on('pong', mark);
    socket.on('ping', mark);
    socket.on('message', mark);
    this.heartbeat = setInterval(() => {
      if (!alive) {
        socket.terminate();
        return;
      }
      alive = false;
      try {
        socket.ping();
      } catch {
        /* closing */
      }
    }, this.heartbeatMs);
    this.heartbeat.unref();
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  private failAll(error: ConnectionError): void {
    for (const entry of this.pending.values()) this.settle(entry, new ConnectionError(error.message, entry.method));
    this.pending.clear();
    for (const frame of this.waiting.splice(0)) for (const e of frame.entries) this.settle(e, new ConnectionError(error.message, e.method));
  }

  private endSinks(): void {
    for (const set of this.sinks.values()) {
      for (const sink of set) {
        sink.done = true;
        const waiter = sink.waiter;
        sink.waiter = null;
        waiter?.({ value: undefined as never, done: true });
      }
    }
    this.sinks.clear();
  }

  /** The connection is gone for good (no reconnection): fail everything, end iterators. */
  private shutDown(error: ConnectionError): void {
    if (this.closed) return;
    this.closed = true;
    this.ready = false;
    this.failAll(error);
    this.endSinks();
    this.emit('closed');
  }
}

/** Drops undefined values (the server refuses unknown or ill-typed params). */
function clean<T extends object>(params: T): T {
  return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)) as T;
}
