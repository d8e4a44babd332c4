import { randomUUID } from 'node:crypto';
import { encodeAcceptPayload, encodeBase64Signature, formatHttp, parseRfqSigned } from '@legwork/protocol';
import { AccountsService } from '../../../src/modules/accounts/accounts.service';
import { parseSymbol } from '../../../src/modules/instruments/domain/symbol';
import type { FundingLeg } from '../../../src/modules/ledger/domain/funding';
import { FillService } from '../../../src/modules/ledger/fill.service';
import { markPrice } from '../../../src/modules/market-data/domain/black76';
import { Http, type TestWallet } from '../clients';
import type { TestApp } from '../harness';
import { type QuoteTerms, type RfqTrader, clientRef, nowSeconds, rfqTrader, signedQuote, sleep, terms } from '../rfq-support';

/** Helpers of the ledger e2e tests: funding, quoting and accepting over the real API, reading the ledger back. */

export const M = 1_000_000n;
export const micro = (text: string) => parseRfqSigned(text);
/** HTTP 8-dp form of a micro amount. */
export const http8 = (x: bigint) => formatHttp(x);

let referenceSeq = 0;
export async function deposit(app: TestApp, accountId: number, amount: string): Promise<void> {
  const res = await new Http(app.url)
    .admin()
    .post(`/v1/admin/accounts/${accountId}/deposit`, { amount, reference: `ledger-${randomUUID()}-${++referenceSeq}` });
  if (res.status !== 200) throw new Error(`deposit: ${res.status} ${JSON.stringify(res.body)}`);
}

export async function withdraw(app: TestApp, accountId: number, amount: string) {
  return new Http(app.url).admin().post(`/v1/admin/accounts/${accountId}/withdraw`, { amount, reference: `ledger-w-${randomUUID()}` });
}

export async function marketData(app: TestApp, asset: string, index: string, iv = '0.8'): Promise<void> {
  const res = await new Http(app.url).admin().post('/v1/admin/market-data', { asset, index_price: index, iv });
  if (res.status !== 200) throw new Error(`market-data: ${res.status} ${JSON.stringify(res.body)}`);
}

export interface Book {
  total: bigint;
  locked: bigint;
  available: bigint;
}

/** The account's balance row (admin reader), in micro-units. */
export async function balanceOf(app: TestApp, accountId: number): Promise<Book> {
  const res = await new Http(app.url).admin().get(`/query/balances?account_id=${accountId}`);
  if (res.status !== 200) throw new Error(`balances: ${res.status} ${JSON.stringify(res.body)}`);
  const row = res.body.rows[0];
  const m = (s: string) => parseRfqSigned(s.slice(0, -2)); // 8 dp → 6 dp
  return { total: m(row.total), locked: m(row.locked), available: m(row.available) };
}

export async function positionsOf(app: TestApp, accountId: number, status: 'open' | 'settled' | 'all' = 'open'): Promise<any[]> {
  const res = await new Http(app.url).admin().get(`/query/rfq-positions?account_id=${accountId}&status=${status}`);
  if (res.status !== 200) throw new Error(`rfq-positions: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.rows;
}

export async function fillsOf(app: TestApp, accountId: number): Promise<any[]> {
  const res = await new Http(app.url).admin().get(`/query/rfq-fills?account_id=${accountId}`);
  if (res.status !== 200) throw new Error(`rfq-fills: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.rows;
}

export function feeAccountId(app: TestApp): number {
  return app.app.get(AccountsService).feeAccountId();
}

/** A taker and a quoter with deposits (none when the amount is null). */
export async function pair(
  app: TestApp,
  takerDeposit: string | null = '1000',
  makerDeposit: string | null = '10000',
): Promise<{ taker: RfqTrader; maker: RfqTrader }> {
  const [taker, maker] = await Promise.all([rfqTrader(app, ['taker']), rfqTrader(app, ['quoter'])]);
  if (takerDeposit) await deposit(app, taker.accountId, takerDeposit);
  if (makerDeposit) await deposit(app, maker.accountId, makerDeposit);
  return { taker, maker };
}

let nonce = BigInt(Date.now()) * 1000n;
export const nextNonce = () => ++nonce;

export interface Quoted {
  rfq: any;
  rfqId: string;
  quoteId: string;
  terms: QuoteTerms;
  legs: Array<{ instrument: string; quantity: string }>;
}

/** The taker opens an RFQ on `legs`; the maker quotes it (default terms: bid 1.5, ask 2.25, 60 s). */
export async function quoted(
  taker: RfqTrader,
  maker: RfqTrader,
  expiry: number,
  legs: Array<{ instrument: string; quantity: string }>,
  changes: Partial<QuoteTerms> = {},
): Promise<Quoted> {
  const rfq = await taker.client.result('rfq.create', { client_ref: clientRef(), legs });
  const t = terms(nextNonce(), changes);
  const { params, quoteId } = signedQuote(maker.wallet, rfq, t, expiry);
  const res = await maker.client.result('rfq.maker.respond', params);
  if (res.quote_id !== quoteId) throw new Error('quote id mismatch');
  return { rfq, rfqId: rfq.rfq_id, quoteId, terms: t, legs };
}

/** rfq.accept params signed by `wallet` (the taker), for `signedSide` (default: the side sent). */
export function acceptParams(
  wallet: TestWallet,
  q: Pick<Quoted, 'rfqId' | 'quoteId' | 'terms'>,
  side: 'buy' | 'sell',
  opts: { expiresAt?: number; signedSide?: 'buy' | 'sell' } = {},
) {
  const expiresAt = opts.expiresAt ?? q.terms.expires_at;
  const payload = encodeAcceptPayload({ rfqId: q.rfqId, quoteId: q.quoteId, taker: wallet.publicKey, side: opts.signedSide ?? side, expiresAt });
  return { quote_id: q.quoteId, side, expires_at: expiresAt, taker_signature: encodeBase64Signature(wallet.sign(payload)) };
}

/** Polls rfq.get until the RFQ is in one of `states`. */
export async function waitForState(taker: RfqTrader, rfqId: string, states: string[], timeoutMs = 15_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const rfq = await taker.client.result('rfq.get', { rfq_id: rfqId });
    if (states.includes(rfq.state)) return rfq;
    if (Date.now() > until) throw new Error(`rfq ${rfqId} still ${rfq.state}, expected ${states.join('|')}`);
    await sleep(50);
  }
}

/** Accepts and waits for the fill; the filled RFQ view. */
export async function acceptAndFill(taker: RfqTrader, q: Quoted, side: 'buy' | 'sell'): Promise<any> {
  const result = await taker.client.result('rfq.accept', acceptParams(taker.wallet, q, side));
  expect(result).toEqual({ rfq_id: q.rfqId, quote_id: q.quoteId, side, state: 'accepted' });
  return waitForState(taker, q.rfqId, ['filled', 'failed']);
}

/**
 * Accepts `q` with its fill held back while `meanwhile` runs (a withdrawal, a price move), then
 * lets the fill go: the RFQ as the fill left it, filled or failed.
 */
export async function acceptWithFillHeld(app: TestApp, taker: RfqTrader, q: Quoted, side: 'buy' | 'sell', meanwhile: () => Promise<void>): Promise<any> {
  const fills = app.app.get(FillService);
  const original = fills.fill.bind(fills);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  fills.fill = async (id, opts) => {
    if (id === q.rfqId) await gate;
    return original(id, opts);
  };
  try {
    await taker.client.result('rfq.accept', acceptParams(taker.wallet, q, side));
    await meanwhile();
    release();
    return await waitForState(taker, q.rfqId, ['filled', 'failed']);
  } finally {
    fills.fill = original;
    release();
  }
}

/** Funding legs of an RFQ at `index`, marks by Black-76 at `now` (as the server prices them). */
export function fundingLegs(
  expiry: number,
  legs: Array<{ instrument: string; quantity: string }>,
  index: bigint,
  iv: bigint,
  now = nowSeconds(),
): FundingLeg[] {
  return legs.map((l) => {
    const s = parseSymbol(l.instrument)!;
    return {
      asset: s.asset,
      expiry,
      strike: s.strike,
      kind: s.kind,
      quantity: parseRfqSigned(l.quantity),
      index,
      mark: markPrice({ index, strike: s.strike, kind: s.kind, iv, secondsToExpiry: expiry - now }),
    };
  });
}

export { nowSeconds, sleep };
