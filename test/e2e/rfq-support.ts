import { randomUUID } from 'node:crypto';
import { JwtService } from '@nestjs/jwt';
import { encodeBase64Signature, encodeQuotePayload, parseRfqSigned, parseRfqUnsigned, quoteId, signingDomain } from '@legwork/protocol';
export { deleteRedisPrefix } from '../../src/common/redis/delete-prefix';
import { formatSymbol, parseSymbol } from '../../src/modules/instruments/domain/symbol';
import { Http, RpcClient, type TestWallet, freshIp } from './clients';
import { createAccount, signInWs, trader } from './factories';
export { DAY, expirationIn } from './factories';
import { JWT_SECRET, type TestApp } from './harness';

/** Helpers of the RFQ e2e tests: listing a round, signing quotes as a maker would, checking RFQ errors. */

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const nowSeconds = () => Math.floor(Date.now() / 1000);
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Round {
  asset: string;
  expiry: number;
  /** symbol of (strike, kind) */
  symbol(strike: string, kind?: 'call' | 'put'): string;
}

/** Lists calls and puts at `strikes` for `asset` at `expiry` through the admin API. */
export async function listRound(app: TestApp, asset: string, expiry: number, strikes = ['140', '150', '160']): Promise<Round> {
  const res = await new Http(app.url).admin().post('/v1/admin/create-instruments', { asset, expiration: expiry, spot_price: '150', strikes });
  if (res.status !== 200) throw new Error(`create-instruments: ${res.status} ${JSON.stringify(res.body)}`);
  return { asset, expiry, symbol: (strike, kind = 'call') => formatSymbol({ asset, expiry, strike: parseRfqUnsigned(strike), kind }) };
}

export async function pauseRound(app: TestApp, round: Round, paused: boolean): Promise<void> {
  const path = paused ? '/v1/admin/instruments/pause-by-expiration' : '/v1/admin/instruments/resume-by-expiration';
  const res = await new Http(app.url).admin().post(path, { expiration: round.expiry, asset: round.asset });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
}

/** A session token exactly as SessionService issues it (HS256, iss = aud = the service name). */
export function sessionToken(wallet: string, accountId: number | null, roles: string[]): string {
  return new JwtService({ secret: JWT_SECRET }).sign(
    { account_id: accountId, roles, scope: roles.includes('admin') ? 'admin:*' : '' },
    { algorithm: 'HS256', subject: wallet, issuer: 'Legwork', audience: 'Legwork', expiresIn: 3600, jwtid: randomUUID() },
  );
}

/** A WebSocket client signed in as `wallet` by resuming a session (a reconnect, e.g. after a restart). */
export async function resumeWs(app: TestApp, wallet: TestWallet, accountId: number | null, roles: string[]): Promise<RpcClient> {
  const client = await RpcClient.connect(app.wsUrl, { 'x-forwarded-for': freshIp() });
  const result = await client.result('public/session_resume', { session_token: sessionToken(wallet.address, accountId, roles) });
  if (result.account_id !== accountId) throw new Error(`resumed as ${JSON.stringify(result)}`);
  return client;
}

export interface RfqTrader {
  wallet: TestWallet;
  accountId: number;
  client: RpcClient;
}

/**
 * An account with roles and a trading connection signed in with its wallet (`trader` of the
 * factories, or `createAccount` + `signInWs` for a given wallet, e.g. the vectors' maker).
 */
export async function rfqTrader(app: TestApp, roles: string[], wallet?: TestWallet): Promise<RfqTrader> {
  if (!wallet) {
    const t = await trader(app, roles);
    return { wallet: t.wallet, accountId: t.accountId, client: t.client };
  }
  const { accountId } = await createAccount(app, roles, wallet);
  return { wallet, accountId, client: (await signInWs(app, wallet)).client };
}

export const leg = (instrument: string, quantity: string) => ({ instrument, quantity });
export const clientRef = () => randomUUID();

export interface QuoteTerms {
  quote_nonce: string;
  bid: string;
  ask: string;
  issued_at: number;
  expires_at: number;
}

/** Fresh terms: a 60 s quote issued now. */
export function terms(nonce: bigint | number | string, changes: Partial<QuoteTerms> = {}): QuoteTerms {
  const now = nowSeconds();
  return { quote_nonce: String(nonce), bid: '1.5', ask: '2.25', issued_at: now, expires_at: now + 60, ...changes };
}

/**
 * The maker's side of a quote, as a client builds it from the open RFQ object alone: strike and
 * kind from each symbol, asset and expiry from the legs (the vectors' construction).
 */
export function quotePayload(
  maker: TestWallet,
  rfq: { rfq_id: string; legs: Array<{ instrument: string; quantity: string }> },
  t: QuoteTerms,
  expiry: number,
  serviceName = 'Legwork',
): Buffer {
  const legs = rfq.legs.map((l) => {
    const parsed = parseSymbol(l.instrument);
    if (!parsed) throw new Error(`not a symbol: ${l.instrument}`);
    return { symbol: l.instrument, strike: parsed.strike, kind: parsed.kind, quantity: parseRfqSigned(l.quantity) };
  });
  const payload = encodeQuotePayload({
    domain: signingDomain(serviceName),
    rfqId: rfq.rfq_id,
    maker: maker.publicKey,
    quoteNonce: BigInt(t.quote_nonce),
    bid: parseRfqSigned(t.bid),
    ask: parseRfqSigned(t.ask),
    issuedAt: t.issued_at,
    expiresAt: t.expires_at,
    asset: parseSymbol(rfq.legs[0].instrument)!.asset,
    expiry,
    legs,
  });
  return Buffer.from(payload);
}

/** rfq.maker.respond params signed by `maker`, with the quote id the client expects. */
export function signedQuote(maker: TestWallet, rfq: { rfq_id: string; legs: Array<{ instrument: string; quantity: string }> }, t: QuoteTerms, expiry: number) {
  const payload = quotePayload(maker, rfq, t, expiry);
  return { params: { rfq_id: rfq.rfq_id, ...t, maker_signature: encodeBase64Signature(maker.sign(payload)) }, quoteId: quoteId(payload) };
}

/** An RFQ error reply (docs/spec/interface.md 7.2): code 1200, typed data, a fresh operation id. */
export function expectRfqError(reply: any, error: string, retryable = false): void {
  expect(reply.result).toBeUndefined();
  expect(reply.error).toMatchObject({ code: 1200, message: expect.any(String) });
  expect(reply.error.data).toMatchObject({ error, retryable, message: expect.any(String), operation_id: expect.stringMatching(UUID) });
}

/** Resolves with the notification and the time it arrived. */
export function timed(client: RpcClient, match: (n: any) => boolean, timeoutMs = 10_000): Promise<{ n: any; at: number }> {
  return client.next(match, timeoutMs).then((n) => ({ n, at: Date.now() }));
}

/** Resolves true when no matching notification arrives within `ms`. */
export async function silent(client: RpcClient, match: (n: any) => boolean, ms = 300): Promise<boolean> {
  try {
    await client.next(match, ms);
    return false;
  } catch {
    return true;
  }
}

export const on = (channel: string, event: string, rfqId: string) => (n: any) =>
  n.channel === channel && n.data.event === event && (n.data.rfq?.rfq_id ?? n.data.rfq_id) === rfqId;
