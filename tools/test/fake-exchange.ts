// A small stand-in for the exchange (HTTP and the JSON-RPC WebSocket on one port) for the desk's
// tool tests: it answers the methods the CLI's desk commands and the reference maker call, records
// every call, and lets a test script the answers of rfq.maker.respond and rfq.maker.check.
import { createHash } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

export interface Call {
  method: string;
  params: any;
}

type Reply = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

/** An rfq.* failure as the gateway sends it. */
export function rfqError(error: string, message: string, extra: Record<string, unknown> = {}, retryable = false): Reply {
  return { error: { code: 1200, message, data: { error, message, operation_id: 'op-fake', retryable, ...extra } } };
}

export const EXPIRY = 1_924_934_400; // 2030-12-31 08:00 UTC
export const SYMBOL = 'SOL-31DEC30-150-C';

export class FakeExchange {
  readonly calls: Call[] = [];
  /** The maker's limits as set_limits last set them. */
  limits: Record<string, unknown> = {};
  /** Pending RFQs rfq.maker.poll answers (the maker quotes them). */
  pending: Array<Record<string, unknown>> = [];
  /** Answers of rfq.maker.respond and rfq.maker.check, by call: the params in, the reply out. */
  respond: (params: any) => Reply = (params) => ({ result: { rfq_id: params.rfq_id, quote_id: 'ab'.repeat(32), state: 'quoted' } });
  check: (params: any) => Reply = () => ({ result: { ok: true, quote_id: 'ab'.repeat(32), payload: '' } });
  /** Answers of other methods a test scripts (they win over the built-in ones). */
  handlers: Record<string, (params: any) => Reply> = {};
  /** What GET /v1/exchange/keys answers. */
  keys: unknown[] = [];
  /** The instrument's mark, and when the SOL index was posted (default: now). */
  markPrice = '12.5';
  indexUpdatedAt: number | null = null;
  private socket: WebSocket | null = null;
  private seq = 0;

  private constructor(
    private readonly http: Server,
    private readonly wss: WebSocketServer,
  ) {
    wss.on('connection', (socket) => {
      this.socket = socket;
      socket.on('message', (data) => this.onFrame(socket, data.toString()));
    });
  }

  static async start(): Promise<FakeExchange> {
    // The keys route reads the instance made below.
    const made: { exchange?: FakeExchange } = {};
    const http = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url?.startsWith('/v1/exchange/keys')) res.end(JSON.stringify({ keys: made.exchange!.keys }));
      else {
        res.statusCode = 404;
        res.end(JSON.stringify({ error: 'not found' }));
      }
    });
    const wss = new WebSocketServer({ server: http, path: '/client' });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    made.exchange = new FakeExchange(http, wss);
    return made.exchange;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.http.address() as AddressInfo).port}`;
  }

  methods(): string[] {
    return this.calls.map((c) => c.method);
  }

  /** Pushes a notification on the connection. */
  notify(channel: string, data: Record<string, unknown>): void {
    this.socket?.send(JSON.stringify({ jsonrpc: '2.0', method: 'subscription', params: { channel, data: { seq: ++this.seq, ...data } } }));
  }

  async until(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error('condition not met in time');
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  async stop(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  private onFrame(socket: WebSocket, text: string): void {
    const value = JSON.parse(text);
    const answer = (request: any) => {
      this.calls.push({ method: request.method, params: request.params });
      const scripted = this.handlers[request.method];
      return { jsonrpc: '2.0', id: request.id, ...(scripted ? scripted(request.params) : this.handle(request.method, request.params)) };
    };
    socket.send(JSON.stringify(Array.isArray(value) ? value.map(answer) : answer(value)));
  }

  private limitsResult(): Record<string, unknown> {
    return {
      limits: this.limits,
      admin_limits: {},
      usage: { open_quotes: 2, open_notional: '300', open_delta: { SOL: '1.1' }, open_vega: {} },
      protection: { frozen: false, until: null, window: { fills: 0, notional: '0', delta: {} } },
    };
  }

  private handle(method: string, params: any): Reply {
    const now = Math.floor(Date.now() / 1000);
    switch (method) {
      case 'public/get_nonce':
        return { result: { wallet: params.wallet, nonce: 'n1', message: `Sign in to Legwork\n\nWallet: ${params.wallet}\nNonce: n1` } };
      case 'public/auth':
      case 'public/session_resume':
        return { result: { wallet: params.wallet ?? 'w', account_id: 7, roles: ['taker', 'quoter'], session_token: params.session_token ?? 'tok' } };
      case 'public/get_market_config':
        return { result: marketConfig(this.indexUpdatedAt ?? now) };
      case 'public/get_instruments':
        return { result: { instruments: INSTRUMENTS.map((i) => ({ ...i, mark_price: this.markPrice })) } };
      case 'rfq.maker.subscribe':
        return { result: { channel: 'rfq_maker', subscribed: true, account_seq: 0 } };
      case 'rfq.maker.poll':
        return { result: { items: this.pending.splice(0) } };
      case 'rfq.maker.respond':
        return this.respond(params);
      case 'rfq.maker.check':
        return this.check(params);
      case 'rfq.maker.decline':
        return { result: { rfq_id: params.rfq_id, state: 'declined', decline_reason: params.reason } };
      case 'rfq.maker.set_limits':
        this.limits = params.limits;
        return { result: this.limitsResult() };
      case 'rfq.maker.get_limits':
      case 'rfq.maker.reset_protection':
        return { result: this.limitsResult() };
      case 'rfq.cancel':
        if (params.rfq_id === 'f'.repeat(32))
          return rfqError('RFQ_NOT_FOUND', `no RFQ ${params.rfq_id} of this account`, { rfq_id: params.rfq_id, reason: 'rfq_not_found' });
        return { result: { rfq_id: params.rfq_id, state: 'expired', cancelled_at: 1_795_000_000 } };
      case 'rfq.cancel_all':
        return { result: { cancelled: ['a'.repeat(32), 'b'.repeat(32)] } };
      case 'rfq.maker.quotes':
        return { result: quotesPage(params) };
      case 'rfq.maker.set_profile':
        return { result: { listed: false, name: null, cancel_on_disconnect: false, ...params } };
      case 'rfq.maker.cancel_quote':
        return { result: { quote_id: params.quote_id, state: 'cancelled' } };
      default:
        return { error: { code: -32601, message: `method ${method} does not exist`, data: { error: 'METHOD_NOT_FOUND', message: 'no such method' } } };
    }
  }
}

/** The market config the fake exchange answers: one asset, SOL, indexed at `indexedAt`. */
function marketConfig(indexedAt: number) {
  return {
    service_name: 'Legwork',
    quote_domain: createHash('sha256').update('Legwork').digest('hex'),
    settlement_currency: 'USDC',
    decimals: 6,
    payload_versions: { quote: 1, accept: 1 },
    assets: [{ asset: 'SOL', index_price: '150', index_updated_at: indexedAt }],
    rfq: { enabled: true, max_legs: 13, max_open_rfqs: 50, rfq_ttl_seconds: 120, max_quote_lifetime_seconds: 3600, market_data_max_age_seconds: 30 },
  };
}

/** The one instrument the fake exchange lists, with its mark. */
const INSTRUMENTS = [
  { symbol: SYMBOL, asset: 'SOL', strike: '150', kind: 'call', expiry: EXPIRY, paused: false, settled: false, settlement_price: null, created_at: 0 },
].map((i) => ({ ...i, mark_price: '12.5', iv: '0.8' }));

/** A maker quote of `rfq.maker.quotes` (docs/spec/design.md 19), `n` newest first. */
const makerQuote = (n: number, state: string) => ({
  quote_id: String(n).repeat(64).slice(0, 64),
  rfq_id: String(n).repeat(32).slice(0, 32),
  quote_nonce: String(100 - n),
  bid: '1.5',
  ask: '2.25',
  issued_at: 1_795_000_000,
  expires_at: 1_795_000_060,
  received_at_ms: 1_795_000_000_000 - n,
  state,
});

/** Two pages when `all` (the second after the first's last quote), one live quote otherwise. */
function quotesPage(params: { state?: string; after?: string }) {
  if (params.state !== 'all') return { items: [makerQuote(1, 'live')] };
  if (!params.after) return { items: [makerQuote(1, 'live'), makerQuote(2, 'filled')], next_cursor: makerQuote(2, 'filled').quote_id };
  return { items: [makerQuote(3, 'expired')] };
}
