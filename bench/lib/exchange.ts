import { randomBytes, randomUUID } from 'node:crypto';
import {
  Ed25519Signer,
  encodeAcceptPayload,
  encodeBase64Signature,
  encodeQuotePayload,
  encodeWallet,
  parseRfqSigned,
  parseRfqUnsigned,
  publicKeyFromSeed,
  signingDomain,
} from '@legwork/protocol';
import { loadConfig } from '../../src/common/config/config';
import { formatSymbol, type OptionKind } from '../../src/modules/instruments/domain/symbol';
import { SessionService } from '../../src/modules/auth/session.service';
import { ADMIN_TOKEN, httpOk } from './env';
import { type Json, type Notification, Rpc } from './rpc';

/**
 * A client's view of the exchange for the bench: admin setup over HTTP (instruments, market data,
 * accounts, deposits) and traders on /client signed in with public/session_resume (a session token
 * minted by the server's own SessionService with the bench's JWT secret: no nonce limit), signing
 * quotes and accepts exactly as the SDK and the e2e tests do.
 */
const DAY = 86_400;

export interface Leg {
  instrument: string;
  quantity: string;
}

export interface Instrument {
  symbol: string;
  strike: bigint;
  kind: OptionKind;
}

export class Round {
  constructor(
    readonly asset: string,
    readonly expiry: number,
    readonly instruments: Instrument[],
  ) {}

  symbol(strike: string, kind: OptionKind = 'call'): string {
    return formatSymbol({ asset: this.asset, expiry: this.expiry, strike: parseRfqUnsigned(strike), kind });
  }

  terms(symbol: string): Instrument {
    const i = this.instruments.find((x) => x.symbol === symbol);
    if (!i) throw new Error(`not an instrument of the round: ${symbol}`);
    return i;
  }
}

export class Trader {
  rpc!: Rpc;
  readonly publicKey: Uint8Array;
  readonly wallet: string;
  private readonly signer: Ed25519Signer;
  private readonly waiters = new Map<string, { events: Set<string>; resolve: (n: Notification & { at: number }) => void }>();
  /** Every notification of channel `rfq`, when `keep` is set (F6 probes). */
  onRfqEvent: ((n: Notification, at: number) => void) | null = null;

  constructor(
    readonly accountId: number,
    readonly seed: Uint8Array,
    readonly roles: string[],
  ) {
    this.publicKey = publicKeyFromSeed(seed);
    this.wallet = encodeWallet(this.publicKey);
    this.signer = new Ed25519Signer(seed);
  }

  /** The trader's signature, with its key object built once (as the SDK's keys do). */
  sign(bytes: Uint8Array): string {
    return encodeBase64Signature(this.signer.sign(bytes));
  }

  /** Connects to /client and resumes a session minted for this wallet. */
  async connect(wsUrl: string, sessions: SessionService, ip: string): Promise<void> {
    this.rpc = await Rpc.connect(wsUrl, { 'x-forwarded-for': ip });
    const result = await this.rpc.result('public/session_resume', { session_token: sessions.issue(this.wallet, this.accountId, this.roles as never) });
    if (Number(result.account_id) !== this.accountId) throw new Error(`resumed as ${JSON.stringify(result)}`);
    this.rpc.onNotification = (n, at) => {
      if (n.channel !== 'rfq') return;
      this.onRfqEvent?.(n, at);
      const rfqId = n.data?.rfq?.rfq_id as string | undefined;
      const waiter = rfqId ? this.waiters.get(rfqId) : undefined;
      if (waiter && waiter.events.has(n.data.event)) {
        this.waiters.delete(rfqId!);
        waiter.resolve({ ...n, at });
      }
    };
  }

  /** Resolves with the first `rfq` event among `events` for `rfqId` (register before the call that causes it). */
  until(rfqId: string, events: string[], timeoutMs = 30_000): Promise<Notification & { at: number }> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(rfqId);
        reject(new Error(`no ${events.join('/')} event for ${rfqId} in ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.set(rfqId, {
        events: new Set(events),
        resolve: (n) => {
          clearTimeout(timer);
          resolve(n);
        },
      });
    });
  }
}

let ipSeq = 0;
const freshIp = () => {
  ipSeq++;
  return `10.77.${(ipSeq >> 8) & 255}.${ipSeq & 255}`;
};

export class Exchange {
  readonly sessions: SessionService;
  readonly domain = signingDomain('Legwork');
  private nonce = BigInt(Date.now()) * 1000n;

  constructor(
    readonly base: string,
    readonly wsUrl: string,
    appEnv: Record<string, string>,
  ) {
    this.sessions = new SessionService(loadConfig(appEnv));
  }

  admin<T = Json>(method: string, path: string, body?: unknown): Promise<T> {
    return httpOk<T>(this.base, method, path, { token: ADMIN_TOKEN, body });
  }

  /** Lists calls and puts at `strikes` for `asset` at 08:00 UTC `days` from today, feeds index and IV. */
  async listRound(asset: string, days: number, strikes: string[], index = '150', iv = '0.8'): Promise<Round> {
    const expiry = (Math.floor(Date.now() / 1000 / DAY) + days) * DAY + 8 * 3600;
    await this.admin('POST', '/v1/admin/create-instruments', { asset, expiration: expiry, spot_price: index, strikes });
    await this.feed(asset, index, iv);
    const instruments: Instrument[] = [];
    for (const s of strikes)
      for (const kind of ['call', 'put'] as const)
        instruments.push({ symbol: formatSymbol({ asset, expiry, strike: parseRfqUnsigned(s), kind }), strike: parseRfqUnsigned(s), kind });
    return new Round(asset, expiry, instruments);
  }

  feed(asset: string, index = '150', iv = '0.8'): Promise<unknown> {
    return this.admin('POST', '/v1/admin/market-data', { asset, index_price: index, iv });
  }

  /** An account with roles and a deposit, not connected. */
  async account(roles: string[], deposit = '100000000'): Promise<Trader> {
    const seed = randomBytes(32);
    const wallet = encodeWallet(publicKeyFromSeed(seed));
    const created = await this.admin('POST', '/v1/admin/accounts', { wallet, roles });
    const trader = new Trader(Number(created.account_id), seed, roles);
    if (deposit !== '0') await this.admin('POST', `/v1/admin/accounts/${trader.accountId}/deposit`, { amount: deposit, reference: `bench-${randomUUID()}` });
    return trader;
  }

  async connect(trader: Trader, subscribe: boolean): Promise<Trader> {
    await trader.connect(this.wsUrl, this.sessions, freshIp());
    if (subscribe) await trader.rpc.result('rfq.subscribe', {});
    return trader;
  }

  nextNonce(): bigint {
    return ++this.nonce;
  }

  /** rfq.maker.respond params for `rfq`, signed by `maker`. */
  quote(maker: Trader, round: Round, rfqId: string, legs: Leg[], lifetimeSeconds: number, bid = '1.5', ask = '2.25') {
    const now = Math.floor(Date.now() / 1000);
    const t = { quote_nonce: this.nextNonce().toString(), bid, ask, issued_at: now, expires_at: now + lifetimeSeconds };
    const payload = encodeQuotePayload({
      domain: this.domain,
      rfqId,
      maker: maker.publicKey,
      quoteNonce: BigInt(t.quote_nonce),
      bid: parseRfqSigned(bid),
      ask: parseRfqSigned(ask),
      issuedAt: t.issued_at,
      expiresAt: t.expires_at,
      asset: round.asset,
      expiry: round.expiry,
      legs: legs.map((l) => {
        const i = round.terms(l.instrument);
        return { symbol: l.instrument, strike: i.strike, kind: i.kind, quantity: parseRfqSigned(l.quantity) };
      }),
    });
    return { rfq_id: rfqId, ...t, maker_signature: maker.sign(payload) };
  }

  /** rfq.accept params for a quote, signed by `taker`. */
  accept(taker: Trader, rfqId: string, quoteId: string, side: 'buy' | 'sell', quoteExpiresAt: number) {
    const expiresAt = Math.min(Math.floor(Date.now() / 1000) + 30, quoteExpiresAt);
    const payload = encodeAcceptPayload({ rfqId, quoteId, taker: taker.publicKey, side, expiresAt });
    return { quote_id: quoteId, side, expires_at: expiresAt, taker_signature: taker.sign(payload) };
  }

  /**
   * One full lifecycle: rfq.create (taker) → rfq.maker.respond (maker, handed the RFQ id directly) →
   * rfq.accept (taker) → the `filled` event on the taker's `rfq` channel. Throws on any failure.
   */
  async lifecycle(taker: Trader, maker: Trader, round: Round, legs: Leg[], side: 'buy' | 'sell', quoteLifetime = 30): Promise<Lifecycle> {
    const t0 = performance.now();
    const clientRef = randomUUID();
    const rfq = await taker.rpc.result('rfq.create', { client_ref: clientRef, legs });
    const quote = this.quote(maker, round, rfq.rfq_id, legs, quoteLifetime);
    const quoted = await maker.rpc.result('rfq.maker.respond', quote);
    const done = taker.until(rfq.rfq_id, ['filled', 'failed']);
    const params = this.accept(taker, rfq.rfq_id, quoted.quote_id, side, quote.expires_at);
    const acceptSentAt = Date.now();
    try {
      await taker.rpc.result('rfq.accept', params);
    } catch (error) {
      done.catch(() => undefined);
      throw error;
    }
    const acceptReplyAt = Date.now();
    const end = await done;
    if (end.data.event !== 'filled') throw new Error(`rfq ${rfq.rfq_id} ${end.data.event}: ${JSON.stringify(end.data.rfq?.failure)}`);
    return {
      rfqId: rfq.rfq_id,
      quoteId: quoted.quote_id,
      clientRef,
      quoteNonce: quote.quote_nonce,
      ms: performance.now() - t0,
      acceptSentAt,
      acceptReplyAt,
      filledAt: end.at,
    };
  }
}

/** One lifecycle's ids and times (epoch ms at the client: the accept sent, its reply, the `filled` event). */
export interface Lifecycle {
  rfqId: string;
  quoteId: string;
  clientRef: string;
  quoteNonce: string;
  /** create → filled, ms. */
  ms: number;
  acceptSentAt: number;
  acceptReplyAt: number;
  filledAt: number;
}

/** accept → `filled` at the taker (F7): from the accept's reply to the `filled` event (0 when the event came first). */
export function acceptToFilled(l: Lifecycle): number {
  return Math.max(0, l.filledAt - l.acceptReplyAt);
}

/** True when the server answers the method (not -32601). */
export async function hasMethod(rpc: Rpc, method: string): Promise<boolean> {
  const reply = await rpc.call(method, {});
  return reply.error?.code !== -32601;
}
