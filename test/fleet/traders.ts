import { randomUUID } from 'node:crypto';
import { encodeAcceptPayload, encodeBase64Signature, encodeQuotePayload, parseRfqSigned, quoteId, signingDomain } from '@legwork/protocol';
import { parseSymbol } from '../../src/modules/instruments/domain/symbol';
import { type Http, RpcClient, TestWallet } from '../e2e/clients';
import type { Instance } from './fleet';

/**
 * Clients of a fleet as real users run them: a trader signs in once, and when its instance goes
 * away it reconnects to another live one and resumes its session there (public/session_resume).
 * Every call has a deadline: a call whose socket closed or that got no answer is "unknown", which
 * a user would check with rfq.get (the chaos script checks the database at the end).
 */

export class CallFailed extends Error {
  constructor(
    readonly method: string,
    readonly reply: any,
  ) {
    super(`${method}: ${reply?.error ? JSON.stringify(reply.error.data?.error ?? reply.error.message) : String(reply)}`);
  }
}

let ipSeq = 0;
/** A distinct client address per connection (the per-IP limits are not what is tested here). */
function nextIp(): string {
  ipSeq += 1;
  return `10.77.${(ipSeq >> 8) & 255}.${ipSeq & 255}`;
}

/** Sends a request; rejects when the socket closes or no reply comes within `ms`. */
export function callWithin(client: RpcClient, method: string, params: unknown, ms = 5000): Promise<any> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${method}: no reply within ${ms} ms`)), ms);
    void client.closed.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${method}: socket closed (${code})`));
    });
    client.call(method, params).then((reply) => {
      clearTimeout(timer);
      resolve(reply);
    }, reject);
  });
}

export class FleetTrader {
  client: RpcClient | null = null;
  token: string | null = null;
  instance: Instance | null = null;
  reconnects = 0;

  constructor(
    readonly wallet: TestWallet,
    readonly accountId: number,
    readonly roles: string[],
  ) {}

  /** Creates the account through `admin` and deposits `deposit` USDC. */
  static async create(admin: Http, roles: string[], deposit: string): Promise<FleetTrader> {
    const wallet = new TestWallet();
    const res = await admin.post('/v1/admin/accounts', { wallet: wallet.address, roles });
    if (res.status !== 200 && res.status !== 201) throw new Error(`create account: ${res.status} ${JSON.stringify(res.body)}`);
    const accountId = res.body.account_id as number;
    const dep = await admin.post(`/v1/admin/accounts/${accountId}/deposit`, { amount: deposit, reference: `fleet-${randomUUID()}` });
    if (dep.status !== 200) throw new Error(`deposit: ${dep.status} ${JSON.stringify(dep.body)}`);
    return new FleetTrader(wallet, accountId, roles);
  }

  /** Connects to `instance`: a full sign-in the first time, a session resume after. */
  async connect(instance: Instance): Promise<void> {
    await this.disconnect();
    const client = await RpcClient.connect(instance.wsUrl, { 'x-forwarded-for': nextIp() });
    try {
      if (this.token) {
        const reply = await callWithin(client, 'public/session_resume', { session_token: this.token });
        if (reply.error) throw new CallFailed('public/session_resume', reply);
      } else {
        const nonce = await callWithin(client, 'public/get_nonce', { wallet: this.wallet.address });
        if (nonce.error) throw new CallFailed('public/get_nonce', nonce);
        const message = nonce.result.message as string;
        const auth = await callWithin(client, 'public/auth', { wallet: this.wallet.address, message, signature: this.wallet.signBase58(message) });
        if (auth.error) throw new CallFailed('public/auth', auth);
        this.token = auth.result.session_token;
      }
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    this.client = client;
    this.instance = instance;
  }

  /** Reconnects to the first of `instances` (in the order given) that takes the connection. */
  async reconnect(instances: Instance[]): Promise<boolean> {
    for (const instance of instances) {
      try {
        await this.connect(instance);
        this.reconnects += 1;
        return true;
      } catch {
        /* next one */
      }
    }
    return false;
  }

  get connected(): boolean {
    return this.client !== null && this.client.closeCode === null && this.client.socket.readyState === this.client.socket.OPEN;
  }

  /** The reply envelope; throws when the socket closed or nothing came back in time. */
  call(method: string, params: unknown, ms = 5000): Promise<any> {
    if (!this.client || !this.connected) return Promise.reject(new Error(`${method}: not connected`));
    return callWithin(this.client, method, params, ms);
  }

  async result(method: string, params: unknown, ms = 5000): Promise<any> {
    const reply = await this.call(method, params, ms);
    if (reply.error) throw new CallFailed(method, reply);
    return reply.result;
  }

  async disconnect(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (client) await Promise.race([client.close(), new Promise((r) => setTimeout(r, 1000))]).catch(() => undefined);
  }
}

let nonceSeq = BigInt(Date.now()) * 1000n;

/** rfq.maker.respond params for `rfq`, signed by the maker (bid 1.5, ask 2.25 unless given; 60 s). */
export function quoteFor(
  maker: FleetTrader,
  rfq: { rfq_id: string; legs: Array<{ instrument: string; quantity: string }> },
  expiry: number,
  prices: { bid: string; ask: string } = { bid: '1.5', ask: '2.25' },
) {
  const now = Math.floor(Date.now() / 1000);
  const terms = { quote_nonce: String(++nonceSeq), ...prices, issued_at: now, expires_at: now + 60 };
  const legs = rfq.legs.map((l) => {
    const s = parseSymbol(l.instrument)!;
    return { symbol: l.instrument, strike: s.strike, kind: s.kind, quantity: parseRfqSigned(l.quantity) };
  });
  const payload = encodeQuotePayload({
    domain: signingDomain('Legwork'),
    rfqId: rfq.rfq_id,
    maker: maker.wallet.publicKey,
    quoteNonce: BigInt(terms.quote_nonce),
    bid: parseRfqSigned(terms.bid),
    ask: parseRfqSigned(terms.ask),
    issuedAt: terms.issued_at,
    expiresAt: terms.expires_at,
    asset: parseSymbol(rfq.legs[0].instrument)!.asset,
    expiry,
    legs,
  });
  return { params: { rfq_id: rfq.rfq_id, ...terms, maker_signature: encodeBase64Signature(maker.wallet.sign(payload)) }, quoteId: quoteId(payload), terms };
}

/** rfq.accept params signed by the taker. */
export function acceptFor(taker: FleetTrader, rfqId: string, quote: { quoteId: string; terms: { expires_at: number } }, side: 'buy' | 'sell') {
  const payload = encodeAcceptPayload({ rfqId, quoteId: quote.quoteId, taker: taker.wallet.publicKey, side, expiresAt: quote.terms.expires_at });
  return { quote_id: quote.quoteId, side, expires_at: quote.terms.expires_at, taker_signature: encodeBase64Signature(taker.wallet.sign(payload)) };
}

export interface LifecycleOutcome {
  rfqId: string | null;
  /** The taker saw `accepted` in the accept reply (at `acceptedAt`, ms). */
  accepted: boolean;
  acceptedAt?: number;
  /** Where it stopped: `accepted`, or the step and error that ended it. */
  stoppedAt?: string;
}

/** create (taker) → respond (maker) → accept (taker); the fill is the exchange's from there. */
export async function lifecycle(taker: FleetTrader, maker: FleetTrader, instrument: string, expiry: number, side: 'buy' | 'sell'): Promise<LifecycleOutcome> {
  const out: LifecycleOutcome = { rfqId: null, accepted: false };
  try {
    const rfq = await taker.result('rfq.create', { client_ref: randomUUID(), legs: [{ instrument, quantity: '1' }] });
    out.rfqId = rfq.rfq_id;
    const quote = quoteFor(maker, rfq, expiry);
    const responded = await maker.result('rfq.maker.respond', quote.params);
    if (responded.quote_id !== quote.quoteId) throw new Error('quote id mismatch');
    const accepted = await taker.result('rfq.accept', acceptFor(taker, rfq.rfq_id, quote, side));
    out.accepted = accepted.state === 'accepted';
    out.acceptedAt = Date.now();
  } catch (error) {
    out.stoppedAt = String((error as Error).message ?? error);
  }
  return out;
}
