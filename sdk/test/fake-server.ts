import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import bs58 from 'bs58';
import { type WebSocket, WebSocketServer } from 'ws';
import { decodeWallet, verifySignature } from '../src/index';
import { COMPETITIVE_RFQ, SEED_RFQ, UNQUOTED_RFQ, competition } from './fake-competition';

export interface Call {
  connection: number;
  method: string;
  params: any;
}

interface Conn {
  n: number;
  socket: WebSocket;
  seq: number;
  channels: Set<string>;
}

/**
 * A tiny JSON-RPC 2.0 server over `ws` that answers like Legwork's gateway for the methods the
 * client tests need: sign-in, session resume, subscriptions, an RFQ error, echo with a delay,
 * and a method that never answers.
 */
export class FakeServer {
  readonly calls: Call[] = [];
  readonly connections: Conn[] = [];
  /** Session tokens the server accepts for public/session_resume. */
  readonly tokens = new Set<string>();
  private tokenSeq = 0;
  /** The account's stored events on `rfq` (docs/spec/design.md 13): rfq.subscribe { since } replays those after it. */
  readonly stored: Array<Record<string, unknown> & { account_seq: number }> = [];
  /** Replay from one before `since` too (a server overlapping what was delivered: the client must drop it). */
  overlap = false;
  private readonly nonces = new Map<string, string>();
  /** The maker's limits as `rfq.maker.set_limits` last set them (docs/spec/design.md 15). */
  limits: Record<string, unknown> = {};
  /** How many times each key of the `limited` method was refused (the rate-limit retry tests). */
  private readonly refusals = new Map<string, number>();

  /** What `GET /v1/exchange/keys` answers (the transcript's online check). */
  exchangeKeys: unknown[] = [];
  /** The competitive RFQs `rfq.get` knows (docs/spec/design.md 18), by id. */
  readonly rfqs = new Map<string, Record<string, any>>([COMPETITIVE_RFQ, UNQUOTED_RFQ, SEED_RFQ].map((r) => [r.rfq_id, r]));

  private constructor(
    readonly wss: WebSocketServer,
    private readonly http: Server,
  ) {
    wss.on('connection', (socket) => {
      const conn: Conn = { n: this.connections.length + 1, socket, seq: 0, channels: new Set() };
      this.connections.push(conn);
      socket.on('message', (data) => void this.onFrame(conn, data.toString()));
    });
  }

  static async start(): Promise<FakeServer> {
    // The keys route reads the instance made below.
    const made: { server?: FakeServer } = {};
    const http = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/v1/exchange/keys') res.end(JSON.stringify({ keys: made.server!.exchangeKeys }));
      else res.writeHead(404).end('{"error":"not found"}');
    });
    const wss = new WebSocketServer({ server: http });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    made.server = new FakeServer(wss, http);
    return made.server;
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.http.address() as AddressInfo).port}/client`;
  }

  /** The newest connection. */
  get current(): Conn {
    return this.connections[this.connections.length - 1];
  }

  callsOn(connection: number): string[] {
    return this.calls.filter((c) => c.connection === connection).map((c) => c.method);
  }

  /** Pushes a notification with the connection's next seq (`skip` seq numbers are lost on the way). */
  notify(conn: Conn, channel: string, data: Record<string, unknown>, skip = 0): void {
    conn.seq += 1 + skip;
    conn.socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'subscription', params: { channel, data: { seq: conn.seq, ...data } } }));
  }

  /** Waits until `predicate` holds (polling). */
  async until(predicate: () => boolean, timeoutMs = 3000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error('condition not met in time');
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  async stop(): Promise<void> {
    for (const c of this.connections) c.socket.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  private limitsResult(): Record<string, unknown> {
    return {
      limits: this.limits,
      admin_limits: {},
      usage: { open_quotes: 1, open_notional: '150', open_delta: { SOL: '0.5' }, open_vega: { SOL: '0.2' } },
      protection: { frozen: false, until: null, window: { fills: 0, notional: '0', delta: {} } },
    };
  }

  private async onFrame(conn: Conn, text: string): Promise<void> {
    const value = JSON.parse(text);
    if (Array.isArray(value)) {
      const replies = [];
      for (const request of value) replies.push(await this.handle(conn, request));
      conn.socket.send(JSON.stringify(replies));
      return;
    }
    const reply = await this.handle(conn, value);
    if (reply) conn.socket.send(JSON.stringify(reply));
  }

  /** The sign-in methods: a nonce per wallet, the signature checked over its message, tokens this server issued. */
  private signIn(method: string, params: any, ok: (result: unknown) => unknown, fail: (code: number, error: string, message: string) => unknown): unknown {
    switch (method) {
      case 'public/get_nonce': {
        const nonce = Buffer.from(Array.from({ length: 16 }, (_, i) => (i * 7 + this.calls.length) & 255)).toString('hex');
        this.nonces.set(params.wallet, nonce);
        const message = `Sign in to Legwork\n\nWallet: ${params.wallet}\nNonce: ${nonce}`;
        return ok({ wallet: params.wallet, nonce, expires_at: 0, message });
      }
      case 'public/auth': {
        const nonce = this.nonces.get(params.wallet);
        this.nonces.delete(params.wallet);
        const expected = `Sign in to Legwork\n\nWallet: ${params.wallet}\nNonce: ${nonce}`;
        if (!nonce || params.message !== expected) return fail(1002, 'AUTH_INVALID_NONCE', 'unknown nonce');
        if (!verifySignature(decodeWallet(params.wallet), Buffer.from(params.message, 'utf8'), bs58.decode(params.signature))) {
          return fail(1001, 'AUTH_INVALID_SIGNATURE', 'bad signature');
        }
        const token = `token-${++this.tokenSeq}`;
        this.tokens.add(token);
        return ok({ wallet: params.wallet, account_id: 7, roles: ['taker', 'quoter'], session_token: token });
      }
      case 'public/session_resume':
        if (!this.tokens.has(params.session_token)) return fail(1004, 'SESSION_INVALID', 'session token bad');
        return ok({ wallet: 'w', account_id: 7, roles: ['taker', 'quoter'], session_token: params.session_token });
      default:
        return fail(1004, 'SESSION_INVALID', 'session token bad');
    }
  }

  private async handle(conn: Conn, request: any): Promise<any> {
    const { id, method, params } = request;
    this.calls.push({ connection: conn.n, method, params });
    const ok = (result: unknown) => ({ jsonrpc: '2.0', id, result });
    const fail = (code: number, error: string, message: string) => ({ jsonrpc: '2.0', id, error: { code, message, data: { error, message } } });
    switch (method) {
      case 'public/get_nonce':
      case 'public/auth':
      case 'public/session_resume':
        return this.signIn(method, params, ok, fail);
      case 'rfq.subscribe': {
        conn.channels.add('rfq');
        const since = params?.since;
        if (typeof since === 'number') {
          for (const event of this.stored) if (event.account_seq > since - (this.overlap ? 1 : 0)) this.notify(conn, 'rfq', event);
        }
        return ok({ channel: 'rfq', subscribed: true, account_seq: this.stored.length ? this.stored[this.stored.length - 1].account_seq : 0 });
      }
      case 'rfq.maker.subscribe':
        conn.channels.add('rfq_maker');
        return ok({ channel: 'rfq_maker', subscribed: true });
      case 'rfq.get':
        if (this.rfqs.has(params.rfq_id)) return ok(this.rfqs.get(params.rfq_id));
        return rfqFail(id, 'RFQ_NOT_FOUND', 'no such RFQ', { operation_id: 'op-1', rfq_id: params.rfq_id });
      case 'rfq.accept':
        if (params.quote_id.startsWith('0b'))
          return ok({ rfq_id: COMPETITIVE_RFQ.rfq_id, quote_id: params.quote_id, side: params.side, state: 'accepted', best: true });
        return rfqFail(id, 'RFQ_TAKER_UNFUNDED', 'taker lacks funds', {
          operation_id: 'op-2',
          quote_id: params.quote_id,
          details: { anchored: true, free_balance: '0', buy: null, sell: null },
        });
      case 'rfq.create':
        return ok({ rfq_id: '0'.repeat(32), client_ref: params.client_ref, state: 'pending', legs: params.legs });
      // The desk (docs/spec/design.md 15).
      case 'rfq.cancel':
        if (params.rfq_id === 'f'.repeat(32)) return rfqFail(id, 'RFQ_NOT_FOUND', 'no such RFQ', { rfq_id: params.rfq_id });
        return ok({ rfq_id: params.rfq_id, state: 'expired', cancelled_at: 1_795_000_000 });
      case 'rfq.cancel_all':
        return ok({ cancelled: ['a'.repeat(32), 'b'.repeat(32)] });
      case 'rfq.maker.check':
        if (params.maker_signature === 'bad') {
          return rfqFail(id, 'RFQ_INVALID_SIGNATURE', 'maker_signature does not verify', { rfq_id: params.rfq_id, quote_id: 'ee'.repeat(32), payload: 'AAEC' });
        }
        return ok({ ok: true, quote_id: 'ee'.repeat(32), payload: 'AAEC' });
      case 'rfq.maker.set_limits':
        this.limits = params.limits;
        return ok(this.limitsResult());
      case 'rfq.maker.get_limits':
      case 'rfq.maker.reset_protection':
        return ok(this.limitsResult());
      case 'echo':
        await new Promise((r) => setTimeout(r, params?.delayMs ?? 0));
        return ok({ echo: params });
      case 'never':
        return new Promise(() => undefined);
      default:
        return this.reconcile(id, method, params, ok) ?? competition(id, method, params) ?? fail(-32601, 'METHOD_NOT_FOUND', `method ${method} does not exist`);
    }
  }

  /** Quotes a desk can reconcile (docs/spec/design.md 19), and a method refused for a rate limit; undefined for any other method. */
  private reconcile(id: unknown, method: string, params: any, ok: (result: unknown) => unknown): unknown {
    switch (method) {
      case 'rfq.maker.respond':
        return rfqFail(id, 'RFQ_STATE_CONFLICT', 'the RFQ is no longer open for quotes', { rfq_id: params.rfq_id, reason: 'quoted_by_another' });
      case 'rfq.maker.quotes':
        return ok({ items: [MAKER_QUOTE], ...(params.limit === 1 ? { next_cursor: MAKER_QUOTE.quote_id } : {}) });
      case 'limited': {
        // Refused `params.times` times (per `params.key`) with the rate limit `params.error`, then answered.
        const seen = (this.refusals.get(params.key) ?? 0) + 1;
        this.refusals.set(params.key, seen);
        if (seen > params.times) return ok({ attempts: seen });
        const data = { error: params.error, message: 'slow down', retry_after_ms: params.wait, operation_id: 'op-rl', retryable: true, reason: 'rate_limited' };
        return { jsonrpc: '2.0', id, error: { code: params.error === 'RATE_LIMITED' ? 1005 : 1200, message: 'slow down', data } };
      }
    }
    return undefined;
  }
}

/** The one quote of `rfq.maker.quotes` here. */
export const MAKER_QUOTE = {
  quote_id: 'ee'.repeat(32),
  rfq_id: 'c'.repeat(32),
  quote_nonce: '7',
  bid: '1.5',
  ask: '2.25',
  issued_at: 1_795_000_000,
  expires_at: 1_795_000_060,
  received_at_ms: 1_795_000_000_123,
  state: 'live',
} as const;

/** An rfq.* failure as the gateway sends it: code 1200 with the typed data. */
function rfqFail(id: unknown, error: string, message: string, extra: Record<string, unknown> = {}) {
  return { jsonrpc: '2.0', id, error: { code: 1200, message, data: { error, message, operation_id: 'op-desk', retryable: false, ...extra } } };
}
