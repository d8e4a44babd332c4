import { randomBytes } from 'node:crypto';
import { formatRfq } from '@legwork/protocol';
import { packageFee } from '../../src/modules/ledger/domain/fees';
import { FillService } from '../../src/modules/ledger/fill.service';
import { Http } from './clients';
import { signInHttp } from './factories';
import type { Environment, TestApp } from './harness';
import { type Rows, expectInvariants } from './invariants';
import { type RfqTrader, type Round, expectRfqError, leg, on, rfqTrader } from './rfq-support';
import {
  M,
  type Quoted,
  acceptAndFill,
  acceptParams,
  balanceOf,
  fillsOf,
  fundingLegs,
  http8,
  nowSeconds,
  pair,
  positionsOf,
  quoted,
  sleep,
  waitForState,
} from './support/ledger';
import { INDEX, ISO, IV, PARAMS, lockOn, snapshotOf, startLedgerApp } from './support/ledger-app';

/**
 * The ledger through the API: a fill's positions, premium, fee and events; each refusal of rfq.accept
 * (nothing changed); the position and fill queries. Funding is ledger-funding.e2e-spec.ts; revert and
 * settlement are ledger-settlement.e2e-spec.ts. The invariants hold after every test.
 */

describe('Ledger: accept, fill, positions, revert, settlement', () => {
  let env: Environment;
  let app: TestApp;
  let admin: Http;
  let rows: Rows;
  let sol: Round;
  let feeId: number;
  const traders: RfqTrader[] = [];

  const spread = () => [leg(sol.symbol('150'), '1'), leg(sol.symbol('140', 'put'), '-2')];
  const lockOf = (positions: Array<[string, 'call' | 'put', bigint]>, index = INDEX) => lockOn(sol, positions, index);
  const snapshot = (...accounts: number[]) => snapshotOf(app, ...accounts);
  const track = async <T extends { taker: RfqTrader; maker: RfqTrader }>(p: Promise<T>) => {
    const value = await p;
    traders.push(value.taker, value.maker);
    return value;
  };

  beforeAll(async () => {
    ({ env, app, admin, rows, sol, feeId } = await startLedgerApp());
  });
  afterEach(async () => {
    await expectInvariants(rows);
  });
  afterAll(async () => {
    for (const t of traders) await t.client.close();
    await app?.close();
    await env?.destroy();
  });

  describe('fills', () => {
    /** A position row of the query API for `account`, on the SOL round. */
    const positionRow = (account: number, strike: string, kind: 'call' | 'put', quantity: bigint) => ({
      account_id: account,
      instrument: sol.symbol(strike, kind),
      asset: 'SOL',
      strike: http8(BigInt(strike) * M),
      kind,
      expiry: sol.expiry,
      settled: false,
      quantity: http8(quantity),
      average_price: expect.stringMatching(/^-?\d+\.\d{8}$/),
      updated_at: expect.stringMatching(ISO),
    });
    /** The fill row (either side's, without role and fee) of the spread() bought at 2.25. */
    const spreadFillRow = (fill: { fill_id: string; filled_at: number }, q: Quoted) => ({
      fill_id: fill.fill_id,
      rfq_id: q.rfqId,
      quote_id: q.quoteId,
      side: 'buy',
      legs: [
        { instrument: sol.symbol('150'), quantity: '1.00000000' },
        { instrument: sol.symbol('140', 'put'), quantity: '-2.00000000' },
      ],
      price: '2.25000000',
      filled_at: fill.filled_at,
      reverted: false,
      receipt: expect.objectContaining({ kind: 0, hash: expect.stringMatching(/^[0-9a-f]{64}$/) }),
      revert_receipt: null,
    });
    /** The events of a bought RFQ, in order: accepted, submitting, filled to the taker; accepted, filled to the maker. */
    const expectBuyEvents = async (taker: RfqTrader, maker: RfqTrader, q: Quoted) => {
      for (const event of ['accepted', 'submitting', 'filled']) {
        const n = await taker.client.next(on('rfq', event, q.rfqId));
        expect(n.data.rfq.state).toBe(event);
      }
      for (const event of ['accepted', 'filled']) {
        const n = await maker.client.next(on('rfq_maker', event, q.rfqId));
        expect(n.data).toMatchObject({ event, rfq: { rfq_id: q.rfqId, quote_id: q.quoteId, state: event, side: 'buy' } });
      }
    };

    it('a buy of a two-leg package: two position rows each, mirrored; premium and fee moved exactly; events to both', async () => {
      const { taker, maker } = await track(pair(app, '1000', '10000'));
      await taker.client.result('rfq.subscribe', {});
      await maker.client.result('rfq.maker.subscribe', {});
      const feeBefore = await balanceOf(app, feeId);
      const q = await quoted(taker, maker, sol.expiry, spread(), { bid: '1.5', ask: '2.25' });
      const filled = await acceptAndFill(taker, q, 'buy');

      const fee = packageFee(fundingLegs(sol.expiry, q.legs, INDEX, IV), PARAMS);
      expect(fee).toBe(135_000n); // 0.045 on the call + 0.09 on two puts: notional-bound
      expect(filled).toMatchObject({ state: 'filled', accepted_side: 'buy', failure: null });
      expect(filled.fill).toEqual({
        fill_id: expect.stringMatching(/^[1-9][0-9]*$/),
        side: 'buy',
        price: '2.25',
        fee: formatRfq(fee),
        filled_at: expect.any(Number),
        reverted: false,
      });

      const takerLock = lockOf([
        ['150', 'call', M],
        ['140', 'put', -2n * M],
      ]);
      const makerLock = lockOf([
        ['150', 'call', -M],
        ['140', 'put', 2n * M],
      ]);
      expect([takerLock, makerLock]).toEqual([280n * M, 150n * M]);
      expect(await balanceOf(app, taker.accountId)).toEqual({
        total: 1000n * M - 2_250_000n - fee,
        locked: takerLock,
        available: 1000n * M - 2_250_000n - fee - takerLock,
      });
      expect(await balanceOf(app, maker.accountId)).toEqual({
        total: 10_000n * M + 2_250_000n,
        locked: makerLock,
        available: 10_000n * M + 2_250_000n - makerLock,
      });
      expect((await balanceOf(app, feeId)).total).toBe(feeBefore.total + fee);

      const takerRows = await positionsOf(app, taker.accountId);
      const makerRows = await positionsOf(app, maker.accountId);
      expect(takerRows).toEqual([positionRow(taker.accountId, '140', 'put', -2n * M), positionRow(taker.accountId, '150', 'call', M)]);
      expect(makerRows).toEqual([positionRow(maker.accountId, '140', 'put', 2n * M), positionRow(maker.accountId, '150', 'call', -M)]);
      // Both counterparties carry the same leg prices; the legs' shares add up to the premium.
      expect(makerRows.map((r) => r.average_price)).toEqual(takerRows.map((r) => r.average_price));
      const [put, call] = takerRows.map((r) => Number(r.average_price));
      expect(Math.abs(call * 1 - 2 * put - 2.25)).toBeLessThanOrEqual(0.000003);

      const fillRow = spreadFillRow(filled.fill, q);
      expect(await fillsOf(app, taker.accountId)).toEqual([{ ...fillRow, role: 'taker', fee: http8(fee) }]);
      expect(await fillsOf(app, maker.accountId)).toEqual([{ ...fillRow, role: 'maker', fee: '0.00000000' }]);
      await expectBuyEvents(taker, maker, q);
    });

    it('a sell of the package: the maker pays bid, signs mirrored, the taker writes the call', async () => {
      const { taker, maker } = await track(pair(app, '1000', '10000'));
      const q = await quoted(taker, maker, sol.expiry, spread(), { bid: '1.5', ask: '2.25' });
      const filled = await acceptAndFill(taker, q, 'sell');
      const fee = packageFee(fundingLegs(sol.expiry, q.legs, INDEX, IV), PARAMS);
      expect(filled.fill).toMatchObject({ side: 'sell', price: '1.5', fee: formatRfq(fee) });

      const takerLock = lockOf([
        ['150', 'call', -M],
        ['140', 'put', 2n * M],
      ]);
      const makerLock = lockOf([
        ['150', 'call', M],
        ['140', 'put', -2n * M],
      ]);
      expect(await balanceOf(app, taker.accountId)).toEqual({
        total: 1000n * M + 1_500_000n - fee,
        locked: takerLock,
        available: 1000n * M + 1_500_000n - fee - takerLock,
      });
      expect(await balanceOf(app, maker.accountId)).toEqual({
        total: 10_000n * M - 1_500_000n,
        locked: makerLock,
        available: 10_000n * M - 1_500_000n - makerLock,
      });
      expect((await positionsOf(app, taker.accountId)).map((r) => [r.instrument, r.quantity])).toEqual([
        [sol.symbol('140', 'put'), '2.00000000'],
        [sol.symbol('150'), '-1.00000000'],
      ]);
      expect((await positionsOf(app, maker.accountId)).map((r) => [r.instrument, r.quantity])).toEqual([
        [sol.symbol('140', 'put'), '-2.00000000'],
        [sol.symbol('150'), '1.00000000'],
      ]);
      expect((await fillsOf(app, maker.accountId))[0]).toMatchObject({ role: 'maker', side: 'sell', price: '1.50000000', fee: '0.00000000' });
    });

    it('one leg: the average price is the premium per contract; a second fill averages in; a fill against it keeps it', async () => {
      const { taker, maker } = await track(pair(app, '1000', '10000'));
      await acceptAndFill(taker, await quoted(taker, maker, sol.expiry, [leg(sol.symbol('160'), '2')], { bid: '2', ask: '2.5' }), 'buy');
      expect((await positionsOf(app, taker.accountId))[0]).toMatchObject({ quantity: '2.00000000', average_price: '1.25000000' });
      expect((await positionsOf(app, maker.accountId))[0]).toMatchObject({ quantity: '-2.00000000', average_price: '1.25000000' });
      await acceptAndFill(taker, await quoted(taker, maker, sol.expiry, [leg(sol.symbol('160'), '1')], { bid: '1.5', ask: '1.75' }), 'buy');
      // (2 × 1.25 + 1 × 1.75) / 3 = 1.416666…
      expect((await positionsOf(app, taker.accountId))[0]).toMatchObject({ quantity: '3.00000000', average_price: '1.41666700' });
      await acceptAndFill(taker, await quoted(taker, maker, sol.expiry, [leg(sol.symbol('160'), '1')], { bid: '3', ask: '3.5' }), 'sell');
      expect((await positionsOf(app, taker.accountId))[0]).toMatchObject({ quantity: '2.00000000', average_price: '1.41666700' });
    });

    it('the fill runs once however often it is run (three runs racing the job)', async () => {
      const { taker, maker } = await track(pair(app));
      const q = await quoted(taker, maker, sol.expiry, [leg(sol.symbol('150'), '1')]);
      await taker.client.result('rfq.accept', acceptParams(taker.wallet, q, 'buy'));
      const fills = app.app.get(FillService);
      await Promise.all([fills.fill(q.rfqId, { final: false }), fills.fill(q.rfqId, { final: false }), fills.fill(q.rfqId, { final: true })]);
      const filled = await waitForState(taker, q.rfqId, ['filled', 'failed']);
      expect(filled.state).toBe('filled');
      const before = await snapshot(taker.accountId, maker.accountId);
      await fills.fill(q.rfqId, { final: true });
      expect(await snapshot(taker.accountId, maker.accountId)).toEqual(before);
      expect(await rows(`SELECT count(*)::int AS n FROM fills WHERE rfq_id = $1`, [q.rfqId])).toEqual([{ n: 1 }]);
    });
  });

  describe('rfq.accept refusals: each its code, nothing changed', () => {
    let taker: RfqTrader;
    let maker: RfqTrader;
    let other: RfqTrader;
    let q: Awaited<ReturnType<typeof quoted>>;
    let before: Awaited<ReturnType<typeof snapshot>>;

    beforeAll(async () => {
      ({ taker, maker } = await track(pair(app)));
      other = await rfqTrader(app, ['taker']);
      traders.push(other);
      q = await quoted(taker, maker, sol.expiry, [leg(sol.symbol('150'), '1')]);
      before = await snapshot(taker.accountId, maker.accountId);
    });

    const refused = async (reply: any, code: string, retryable = false, ids = true) => {
      expectRfqError(reply, code, retryable);
      if (ids) expect(reply.error.data).toMatchObject({ rfq_id: q.rfqId, quote_id: q.quoteId });
      expect((await taker.client.result('rfq.get', { rfq_id: q.rfqId })).state).toBe('quoted');
      expect(await snapshot(taker.accountId, maker.accountId)).toEqual(before);
    };

    it('params off the schema: RFQ_VALUE_OUT_OF_RANGE naming the field', async () => {
      const reply = await taker.client.call('rfq.accept', { ...acceptParams(taker.wallet, q, 'buy'), extra: true });
      await refused(reply, 'RFQ_VALUE_OUT_OF_RANGE', false, false);
      expect(reply.error.data.message).toMatch(/extra/);
      const side = await taker.client.call('rfq.accept', { ...acceptParams(taker.wallet, q, 'buy'), side: 'hold' });
      await refused(side, 'RFQ_VALUE_OUT_OF_RANGE', false, false);
      expect(side.error.data.message).toMatch(/^side/);
    });

    it('an unknown quote, or a quote of another account: RFQ_NOT_FOUND', async () => {
      await refused(
        await taker.client.call('rfq.accept', { ...acceptParams(taker.wallet, q, 'buy'), quote_id: randomBytes(32).toString('hex') }),
        'RFQ_NOT_FOUND',
        false,
        false,
      );
      await refused(await other.client.call('rfq.accept', acceptParams(other.wallet, q, 'buy')), 'RFQ_NOT_FOUND', false, false);
    });

    it('a signature by another wallet, over the other side, or not canonical: RFQ_INVALID_SIGNATURE', async () => {
      await refused(await taker.client.call('rfq.accept', acceptParams(other.wallet, q, 'buy')), 'RFQ_INVALID_SIGNATURE');
      await refused(await taker.client.call('rfq.accept', acceptParams(taker.wallet, q, 'buy', { signedSide: 'sell' })), 'RFQ_INVALID_SIGNATURE');
      const good = acceptParams(taker.wallet, q, 'buy');
      await refused(await taker.client.call('rfq.accept', { ...good, taker_signature: good.taker_signature.slice(0, 86) }), 'RFQ_INVALID_SIGNATURE');
    });

    it("an expires_at after the quote's: RFQ_VALUE_OUT_OF_RANGE", async () => {
      await refused(
        await taker.client.call('rfq.accept', acceptParams(taker.wallet, q, 'buy', { expiresAt: q.terms.expires_at + 1 })),
        'RFQ_VALUE_OUT_OF_RANGE',
      );
    });

    it('an accept past its own expires_at: RFQ_QUOTE_EXPIRED', async () => {
      await refused(await taker.client.call('rfq.accept', acceptParams(taker.wallet, q, 'buy', { expiresAt: nowSeconds() - 2 })), 'RFQ_QUOTE_EXPIRED');
    });

    // docs/spec/design.md 15: the same accept again returns its result (a client that lost the answer retries); another is a conflict.
    it('then the accept goes through once; a repeat returns its result, another accept is RFQ_STATE_CONFLICT; neither changes anything', async () => {
      await acceptAndFill(taker, q, 'buy');
      const after = await snapshot(taker.accountId, maker.accountId);
      expect(await taker.client.result('rfq.accept', acceptParams(taker.wallet, q, 'buy'))).toEqual({
        rfq_id: q.rfqId,
        quote_id: q.quoteId,
        side: 'buy',
        state: 'accepted',
      });
      const reply = await taker.client.call('rfq.accept', acceptParams(taker.wallet, q, 'buy', { expiresAt: q.terms.expires_at - 1 }));
      expectRfqError(reply, 'RFQ_STATE_CONFLICT');
      expect(reply.error.data).toMatchObject({ rfq_id: q.rfqId, quote_id: q.quoteId });
      expect(await snapshot(taker.accountId, maker.accountId)).toEqual(after);
      expect(await rows(`SELECT count(*)::int AS n FROM fills WHERE rfq_id = $1`, [q.rfqId])).toEqual([{ n: 1 }]);
    });

    it('an expired quote: RFQ_QUOTE_EXPIRED', async () => {
      const now = nowSeconds();
      const short = await quoted(taker, maker, sol.expiry, [leg(sol.symbol('150'), '1')], { issued_at: now, expires_at: now + 2 });
      const mid = await snapshot(taker.accountId, maker.accountId);
      await sleep((now + 2) * 1000 - Date.now() + 200);
      const reply = await taker.client.call('rfq.accept', acceptParams(taker.wallet, short, 'buy'));
      expectRfqError(reply, 'RFQ_QUOTE_EXPIRED');
      expect(reply.error.data).toMatchObject({ rfq_id: short.rfqId, quote_id: short.quoteId });
      expect(await snapshot(taker.accountId, maker.accountId)).toEqual(mid);
    });
  });

  describe('queries', () => {
    it('rfq-positions: after is a 400; limit 1 to 1000; status open|settled|all; account rules of balances', async () => {
      const { taker, maker } = await track(pair(app));
      await acceptAndFill(taker, await quoted(taker, maker, sol.expiry, spread()), 'buy');
      const me = (await signInHttp(app, taker.wallet)).http;
      expect((await me.get('/query/rfq-positions')).body.rows).toHaveLength(2);
      expect((await me.get('/query/rfq-positions?limit=1')).body).toEqual({ rows: [expect.objectContaining({ instrument: sol.symbol('140', 'put') })] });
      for (const bad of ['after=1', 'limit=0', 'limit=1001', 'limit=x', 'status=closed', 'cursor=1']) {
        const res = await me.get(`/query/rfq-positions?${bad}`);
        expect([bad, res.status, typeof res.body.error]).toEqual([bad, 400, 'string']);
      }
      expect((await me.get(`/query/rfq-positions?account_id=${maker.accountId}`)).status).toBe(403);
      expect((await new Http(app.url).get('/query/rfq-positions')).status).toBe(401);
      expect((await admin.get('/query/rfq-positions')).status).toBe(400);
      expect((await admin.get(`/query/rfq-positions?account_id=${maker.accountId}&limit=1000`)).body.rows).toHaveLength(2);
    });

    it('rfq-fills: newest first, next_cursor pages with after', async () => {
      const { taker, maker } = await track(pair(app));
      const a = await acceptAndFill(taker, await quoted(taker, maker, sol.expiry, [leg(sol.symbol('150'), '1')]), 'buy');
      const b = await acceptAndFill(taker, await quoted(taker, maker, sol.expiry, [leg(sol.symbol('150'), '1')]), 'sell');
      const me = (await signInHttp(app, maker.wallet)).http;
      const first = await me.get('/query/rfq-fills?limit=1');
      expect(first.body).toEqual({ rows: [expect.objectContaining({ fill_id: b.fill.fill_id, role: 'maker', side: 'sell' })], next_cursor: b.fill.fill_id });
      const second = await me.get(`/query/rfq-fills?limit=1&after=${first.body.next_cursor}`);
      expect(second.body).toEqual({ rows: [expect.objectContaining({ fill_id: a.fill.fill_id, side: 'buy' })] });
      for (const bad of ['after=x', 'after=-1', 'limit=0', 'status=open']) expect((await me.get(`/query/rfq-fills?${bad}`)).status).toBe(400);
      expect((await me.get(`/query/rfq-fills?account_id=${taker.accountId}`)).status).toBe(403);
    });
  });
});
