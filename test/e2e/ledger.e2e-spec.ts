import { randomBytes, randomUUID } from 'node:crypto';
import { formatRfq } from '@legwork/protocol';
import { packageFee } from '../../src/modules/ledger/domain/fees';
import { fundingView } from '../../src/modules/ledger/domain/funding';
import { portfolioLock } from '../../src/modules/ledger/domain/lock';
import { FillService } from '../../src/modules/ledger/fill.service';
import { Http } from './clients';
import { signInHttp } from './factories';
import { Environment, type TestApp } from './harness';
import { type Rows, appRows, expectInvariants } from './invariants';
import { type RfqTrader, type Round, expectRfqError, expirationIn, leg, listRound, on, pauseRound, rfqTrader } from './rfq-support';
import {
  M,
  acceptAndFill,
  acceptParams,
  balanceOf,
  deposit,
  feeAccountId,
  fillsOf,
  fundingLegs,
  http8,
  marketData,
  nowSeconds,
  pair,
  positionsOf,
  quoted,
  sleep,
  waitForState,
  withdraw,
} from './support/ledger';

const INDEX = 150n * M;
const IV = 800_000n;
const PARAMS = { takerFeeBps: 3, tradeFeeCapBps: 1250, takerFeeToleranceBps: 100, lockUpsideBps: 10_000 };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('Ledger: accept, fill, positions, revert, settlement', () => {
  let env: Environment;
  let app: TestApp;
  let admin: Http;
  let rows: Rows;
  let sol: Round;
  let paused: Round;
  let eth: Round;
  let feeId: number;
  const traders: RfqTrader[] = [];

  const spread = () => [leg(sol.symbol('150'), '1'), leg(sol.symbol('140', 'put'), '-2')];
  const lockOf = (positions: Array<[string, 'call' | 'put', bigint]>, index = INDEX, round = sol) =>
    portfolioLock(
      positions.map(([strike, kind, quantity]) => ({ asset: round.asset, expiry: round.expiry, strike: BigInt(strike) * M, kind, quantity })),
      { indexByAsset: { [round.asset]: index }, lockUpsideBps: 10_000 },
    );
  const snapshot = async (...accounts: number[]) =>
    Promise.all(accounts.map(async (id) => ({ balance: await balanceOf(app, id), positions: await positionsOf(app, id, 'all') })));
  const track = async <T extends { taker: RfqTrader; maker: RfqTrader }>(p: Promise<T>) => {
    const value = await p;
    traders.push(value.taker, value.maker);
    return value;
  };

  beforeAll(async () => {
    env = await Environment.create({ MARKET_DATA_MAX_AGE_SECONDS: '3600', SWEEP_INTERVAL_MS: '500' });
    app = await env.start();
    admin = new Http(app.url).admin();
    rows = appRows(app);
    sol = await listRound(app, 'SOL', expirationIn(10));
    paused = await listRound(app, 'SOL', expirationIn(12));
    eth = await listRound(app, 'ETH', expirationIn(10));
    await marketData(app, 'SOL', '150', '0.8');
    feeId = feeAccountId(app);
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

      const row = (account: number, strike: string, kind: 'call' | 'put', quantity: bigint) => ({
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
      const takerRows = await positionsOf(app, taker.accountId);
      const makerRows = await positionsOf(app, maker.accountId);
      expect(takerRows).toEqual([row(taker.accountId, '140', 'put', -2n * M), row(taker.accountId, '150', 'call', M)]);
      expect(makerRows).toEqual([row(maker.accountId, '140', 'put', 2n * M), row(maker.accountId, '150', 'call', -M)]);
      // Both counterparties carry the same leg prices; the legs' shares add up to the premium.
      expect(makerRows.map((r) => r.average_price)).toEqual(takerRows.map((r) => r.average_price));
      const [put, call] = takerRows.map((r) => Number(r.average_price));
      expect(Math.abs(call * 1 - 2 * put - 2.25)).toBeLessThanOrEqual(0.000003);

      const legs = [
        { instrument: sol.symbol('150'), quantity: '1.00000000' },
        { instrument: sol.symbol('140', 'put'), quantity: '-2.00000000' },
      ];
      const fillRow = {
        fill_id: filled.fill.fill_id,
        rfq_id: q.rfqId,
        quote_id: q.quoteId,
        side: 'buy',
        legs,
        price: '2.25000000',
        filled_at: filled.fill.filled_at,
        reverted: false,
        receipt: expect.objectContaining({ kind: 0, hash: expect.stringMatching(/^[0-9a-f]{64}$/) }),
        revert_receipt: null,
      };
      expect(await fillsOf(app, taker.accountId)).toEqual([{ ...fillRow, role: 'taker', fee: http8(fee) }]);
      expect(await fillsOf(app, maker.accountId)).toEqual([{ ...fillRow, role: 'maker', fee: '0.00000000' }]);

      for (const event of ['accepted', 'submitting', 'filled']) {
        const n = await taker.client.next(on('rfq', event, q.rfqId));
        expect(n.data.rfq.state).toBe(event);
      }
      for (const event of ['accepted', 'filled']) {
        const n = await maker.client.next(on('rfq_maker', event, q.rfqId));
        expect(n.data).toMatchObject({ event, rfq: { rfq_id: q.rfqId, quote_id: q.quoteId, state: event, side: 'buy' } });
      }
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

  describe('funding', () => {
    it('a writer never anchored: RFQ_TAKER_UNFUNDED with the funding view of both sides (estimate)', async () => {
      const { taker, maker } = await track(pair(app, null, '10000'));
      const q = await quoted(taker, maker, sol.expiry, [leg(sol.symbol('150'), '-1'), leg(sol.symbol('160'), '0.5')], { bid: '-4', ask: '-3.5' });
      const reply = await taker.client.call('rfq.accept', acceptParams(taker.wallet, q, 'buy'));
      expectRfqError(reply, 'RFQ_TAKER_UNFUNDED');
      const expected = fundingView({
        anchored: false,
        freeBalance: null,
        currentLocked: 0n,
        positions: [],
        legs: fundingLegs(sol.expiry, q.legs, INDEX, IV),
        bid: -4n * M,
        ask: -3_500_000n,
        ...PARAMS,
        indexByAsset: { SOL: INDEX },
      });
      expect(reply.error.data.details).toEqual(expected);
      expect(expected.buy).toMatchObject({ writer: true, estimate: true, funded: false, cash_debit: '0' });
      expect(reply.error.data).toMatchObject({ rfq_id: q.rfqId, quote_id: q.quoteId });
      expect((await taker.client.result('rfq.get', { rfq_id: q.rfqId })).state).toBe('quoted');
    });

    it('a writer with too little: RFQ_TAKER_UNFUNDED whose details are the formula; with enough it fills', async () => {
      const { taker, maker } = await track(pair(app, '100', '10000'));
      const q = await quoted(taker, maker, sol.expiry, [leg(sol.symbol('140', 'put'), '-1')], { bid: '3', ask: '3.2' });
      const reply = await taker.client.call('rfq.accept', acceptParams(taker.wallet, q, 'buy'));
      expectRfqError(reply, 'RFQ_TAKER_UNFUNDED');
      const view = (free: bigint) =>
        fundingView({
          anchored: true,
          freeBalance: free,
          currentLocked: 0n,
          positions: [],
          legs: fundingLegs(sol.expiry, q.legs, INDEX, IV),
          bid: 3n * M,
          ask: 3_200_000n,
          ...PARAMS,
          indexByAsset: { SOL: INDEX },
        });
      expect(reply.error.data.details).toEqual(view(100n * M));
      // required = cash_debit 0 (the taker receives 3.2? no: a buy pays ask) → ask 3.2 + max_fee + lock 140
      expect(reply.error.data.details.buy).toMatchObject({
        writer: true,
        estimate: false,
        funded: false,
        lock_increase: '140',
        post_fill_locked: '140',
        cash_debit: '3.2',
      });
      expect(reply.error.data.details.sell).toMatchObject({ writer: false, funded: true, cash_debit: '0' });
      await deposit(app, taker.accountId, '50');
      const filled = await acceptAndFill(taker, q, 'buy');
      expect(filled.state).toBe('filled');
      expect((await balanceOf(app, taker.accountId)).locked).toBe(140n * M);
    });

    it('a maker that cannot fund its side: RFQ_BALANCE_INSUFFICIENT (retryable)', async () => {
      const { taker, maker } = await track(pair(app, '1000', null));
      const q = await quoted(taker, maker, sol.expiry, [leg(sol.symbol('150'), '1')]);
      const reply = await taker.client.call('rfq.accept', acceptParams(taker.wallet, q, 'buy'));
      expectRfqError(reply, 'RFQ_BALANCE_INSUFFICIENT', true);
      await deposit(app, maker.accountId, '149');
      expectRfqError(await taker.client.call('rfq.accept', acceptParams(taker.wallet, q, 'buy')), 'RFQ_BALANCE_INSUFFICIENT', true);
      await deposit(app, maker.accountId, '1');
      expect((await acceptAndFill(taker, q, 'buy')).state).toBe('filled');
    });

    it('missing market data: RFQ_NOT_READY (retryable); a paused leg: RFQ_INVALID_INSTRUMENT (retryable)', async () => {
      const { taker, maker } = await track(pair(app));
      const q = await quoted(taker, maker, eth.expiry, [leg(eth.symbol('150'), '1')]);
      expectRfqError(await taker.client.call('rfq.accept', acceptParams(taker.wallet, q, 'buy')), 'RFQ_NOT_READY', true);
      const p = await quoted(taker, maker, paused.expiry, [leg(paused.symbol('150'), '1')]);
      await pauseRound(app, paused, true);
      try {
        const reply = await taker.client.call('rfq.accept', acceptParams(taker.wallet, p, 'buy'));
        expectRfqError(reply, 'RFQ_INVALID_INSTRUMENT', true);
        expect(reply.error.data.message).toMatch(/legs\[0\]/);
      } finally {
        await pauseRound(app, paused, false);
      }
    });

    it('the fill re-checks funding: a withdrawal after the accept fails the fill with RFQ_TAKER_UNFUNDED', async () => {
      const { taker, maker } = await track(pair(app, '10', '10000'));
      const q = await quoted(taker, maker, sol.expiry, [leg(sol.symbol('150'), '1')], { bid: '8', ask: '9' });
      // Hold the fill back until the withdrawal is in.
      const accepted = app.app.get(FillService);
      const original = accepted.fill.bind(accepted);
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      accepted.fill = async (id, opts) => {
        if (id === q.rfqId) await gate;
        return original(id, opts);
      };
      try {
        await taker.client.result('rfq.accept', acceptParams(taker.wallet, q, 'buy'));
        expect((await withdraw(app, taker.accountId, '5')).status).toBe(200);
        release();
        const failed = await waitForState(taker, q.rfqId, ['filled', 'failed']);
        expect(failed).toMatchObject({ state: 'failed', failure: { error: 'RFQ_TAKER_UNFUNDED' }, fill: null });
      } finally {
        accepted.fill = original;
        release();
      }
      expect(await positionsOf(app, taker.accountId)).toEqual([]);
      expect(await balanceOf(app, taker.accountId)).toEqual({ total: 5n * M, locked: 0n, available: 5n * M });
    });
    it('the fee at fill above the max_fee frozen at accept fails the fill with RFQ_PRICE_TOLERANCE', async () => {
      const tol = await listRound(app, 'TOL', expirationIn(10));
      await marketData(app, 'TOL', '150', '0.8');
      const { taker, maker } = await track(pair(app));
      const q = await quoted(taker, maker, tol.expiry, [leg(tol.symbol('150'), '10')], { bid: '70', ask: '80' });
      const fills = app.app.get(FillService);
      const original = fills.fill.bind(fills);
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      fills.fill = async (id, opts) => {
        if (id === q.rfqId) await gate;
        return original(id, opts);
      };
      const before = await snapshot(taker.accountId, maker.accountId);
      try {
        await taker.client.result('rfq.accept', acceptParams(taker.wallet, q, 'buy'));
        // fee at accept: 10 × 150 × 3 bp = 0.45, max_fee 0.4545; at index 152 the fee is 0.456
        await marketData(app, 'TOL', '152', '0.8');
        release();
        const failed = await waitForState(taker, q.rfqId, ['filled', 'failed']);
        expect(failed).toMatchObject({ state: 'failed', failure: { error: 'RFQ_PRICE_TOLERANCE', message: expect.stringMatching(/0\.456.*0\.4545/) } });
      } finally {
        fills.fill = original;
        release();
      }
      expect(await snapshot(taker.accountId, maker.accountId)).toEqual(before);
      expect(await rows(`SELECT max_fee::text FROM accepts WHERE rfq_id = $1`, [q.rfqId])).toEqual([{ max_fee: '454500' }]);
    });
  });

  describe('revert', () => {
    it('returns every figure to its prior value and moves filled → failed (RFQ_TX_FAILED, reverted)', async () => {
      const { taker, maker } = await track(pair(app, '1000', '10000'));
      await taker.client.result('rfq.subscribe', {});
      const before = await snapshot(taker.accountId, maker.accountId, feeId);
      const q = await quoted(taker, maker, sol.expiry, spread());
      const filled = await acceptAndFill(taker, q, 'buy');
      expect(filled.state).toBe('filled');
      expect(await snapshot(taker.accountId, maker.accountId, feeId)).not.toEqual(before);

      const res = await admin.post(`/v1/admin/rfq/${q.rfqId}/revert`);
      expect(res).toEqual({ status: 200, body: { rfq_id: q.rfqId, state: 'failed', reverted: true } });
      const after = await snapshot(taker.accountId, maker.accountId, feeId);
      const figures = (s: typeof before) =>
        s.map((x) => ({ total: x.balance.total, locked: x.balance.locked, positions: x.positions.map((p: any) => [p.instrument, p.quantity]) }));
      expect(figures(after)).toEqual(figures(before));

      const rfq = await taker.client.result('rfq.get', { rfq_id: q.rfqId });
      expect(rfq).toMatchObject({ state: 'failed', failure: { error: 'RFQ_TX_FAILED' }, fill: { ...filled.fill, reverted: true } });
      await taker.client.next(on('rfq', 'failed', q.rfqId));
      expect((await fillsOf(app, taker.accountId))[0]).toMatchObject({ rfq_id: q.rfqId, reverted: true });
      expect((await fillsOf(app, maker.accountId))[0]).toMatchObject({ rfq_id: q.rfqId, reverted: true });

      const again = await admin.post(`/v1/admin/rfq/${q.rfqId}/revert`);
      expect(again.status).toBe(409);
      expect(again.body.error).toMatch(/reverted already/);
    });

    it('404 unknown, 400 malformed, 409 not filled, 403 without the admin scope', async () => {
      expect((await admin.post(`/v1/admin/rfq/${randomBytes(16).toString('hex')}/revert`)).status).toBe(404);
      expect((await admin.post(`/v1/admin/rfq/NOT-AN-ID/revert`)).status).toBe(400);
      const { taker, maker } = await track(pair(app));
      const q = await quoted(taker, maker, sol.expiry, [leg(sol.symbol('150'), '1')]);
      const res = await admin.post(`/v1/admin/rfq/${q.rfqId}/revert`);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: expect.stringMatching(/quoted, not filled/) });
      const session = await signInHttp(app, taker.wallet);
      expect((await session.http.post(`/v1/admin/rfq/${q.rfqId}/revert`)).status).toBe(403);
    });

    it('409 when undoing would take an account below zero (the reverted long covered a call written since)', async () => {
      const { taker, maker } = await track(pair(app, '20', '10000'));
      const long = await quoted(taker, maker, sol.expiry, [leg(sol.symbol('150'), '1')], { bid: '11', ask: '12' });
      await acceptAndFill(taker, long, 'buy');
      // Writing the 160 call against the long 150 call locks nothing: the taker can afford it.
      const written = await acceptAndFill(taker, await quoted(taker, maker, sol.expiry, [leg(sol.symbol('160'), '1')], { bid: '3', ask: '3.5' }), 'sell');
      expect(written.state).toBe('filled');
      expect((await balanceOf(app, taker.accountId)).locked).toBe(0n);
      const before = await snapshot(taker.accountId, maker.accountId, feeId);
      const res = await admin.post(`/v1/admin/rfq/${long.rfqId}/revert`);
      expect(res.status).toBe(409);
      expect(res.body.error).toMatch(/taker's free balance/);
      expect(await snapshot(taker.accountId, maker.accountId, feeId)).toEqual(before);
      expect((await taker.client.result('rfq.get', { rfq_id: long.rfqId })).state).toBe('filled');
      // Reverting the covered call first, then the long, works.
      expect((await admin.post(`/v1/admin/rfq/${written.rfq_id}/revert`)).status).toBe(200);
      expect((await admin.post(`/v1/admin/rfq/${long.rfqId}/revert`)).status).toBe(200);
      expect(await balanceOf(app, taker.accountId)).toEqual({ total: 20n * M, locked: 0n, available: 20n * M });
    });
  });

  describe('settlement', () => {
    it('settle-expiration pays floor(|q| × intrinsic) short → long, marks everything settled, expires open RFQs; idempotent', async () => {
      const avax = await listRound(app, 'AVAX', expirationIn(10));
      await marketData(app, 'AVAX', '150', '0.8');
      const { taker, maker } = await track(pair(app, '1000', '10000'));
      const q = await quoted(taker, maker, avax.expiry, [leg(avax.symbol('150'), '1.5'), leg(avax.symbol('140', 'put'), '-2')], { bid: '1', ask: '2' });
      await acceptAndFill(taker, q, 'buy');
      const open = await quoted(taker, maker, avax.expiry, [leg(avax.symbol('160'), '1')]);
      const pending = await taker.client.result('rfq.create', { client_ref: randomUUID(), legs: [leg(avax.symbol('160'), '1')] });
      const before = await snapshot(taker.accountId, maker.accountId);

      const res = await admin.post('/v1/admin/instruments/settle-expiration', { asset: 'AVAX', expiration: avax.expiry, settlement_price: '170.333333' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        asset: 'AVAX',
        expiration: avax.expiry,
        settled: true,
        settlement_price: '170.33333300',
        settled_at: expect.any(Number),
        positions: 4,
      });
      // call 150: intrinsic 20.333333 × 1.5 = 30.4999995 → 30.499999; put 140: out of the money
      const paid = 30_499_999n;
      expect(await balanceOf(app, taker.accountId)).toEqual({ total: before[0].balance.total + paid, locked: 0n, available: before[0].balance.total + paid });
      expect(await balanceOf(app, maker.accountId)).toEqual({ total: before[1].balance.total - paid, locked: 0n, available: before[1].balance.total - paid });

      expect(await positionsOf(app, taker.accountId, 'open')).toEqual([]);
      const settled = await positionsOf(app, taker.accountId, 'settled');
      expect(settled.map((r) => [r.instrument, r.quantity, r.settled])).toEqual([
        [avax.symbol('140', 'put'), '-2.00000000', true],
        [avax.symbol('150'), '1.50000000', true],
      ]);
      expect(await positionsOf(app, taker.accountId, 'all')).toEqual(settled);
      expect((await positionsOf(app, maker.accountId, 'settled')).map((r) => r.quantity)).toEqual(['2.00000000', '-1.50000000']);

      expect((await waitForState(taker, open.rfqId, ['expired'])).state).toBe('expired');
      expect((await waitForState(taker, pending.rfq_id, ['expired'])).state).toBe('expired');
      const instruments = (await new Http(app.url).get(`/v1/instruments?asset=AVAX&include_settled=true`)).body.instruments;
      expect(instruments.every((i: any) => i.settled && i.settlement_price === '170.333333')).toBe(true);

      const repeat = await admin.post('/v1/admin/instruments/settle-expiration', { asset: 'AVAX', expiration: avax.expiry });
      expect(repeat).toEqual({ status: 200, body: res.body });
      expect((await admin.post('/v1/admin/instruments/settle-expiration', { asset: 'AVAX', expiration: avax.expiry, settlement_price: '171' })).status).toBe(
        409,
      );
      expect((await admin.post(`/v1/admin/rfq/${q.rfqId}/revert`)).status).toBe(409);
      expect((await balanceOf(app, taker.accountId)).total).toBe(before[0].balance.total + paid);
    });

    it('an accepted RFQ whose round settles before its fill: the fill fails with RFQ_INVALID_INSTRUMENT naming the leg, nothing moves', async () => {
      const dot = await listRound(app, 'DOT', expirationIn(10));
      await marketData(app, 'DOT', '150', '0.8');
      const { taker, maker } = await track(pair(app, '1000', '10000'));
      const q = await quoted(taker, maker, dot.expiry, [leg(dot.symbol('140', 'put'), '1'), leg(dot.symbol('150'), '-1')], { bid: '1', ask: '2' });
      const fills = app.app.get(FillService);
      // The accept's fill job is held back, so that the round settles in between.
      const enqueue = jest.spyOn(fills, 'enqueue').mockResolvedValue(undefined);
      try {
        await taker.client.result('rfq.accept', acceptParams(taker.wallet, q, 'buy'));
      } finally {
        enqueue.mockRestore();
      }
      const before = await snapshot(taker.accountId, maker.accountId);
      expect((await admin.post('/v1/admin/instruments/settle-expiration', { asset: 'DOT', expiration: dot.expiry, settlement_price: '150' })).status).toBe(200);
      await fills.fill(q.rfqId, { final: false });
      const failed = await waitForState(taker, q.rfqId, ['failed']);
      expect(failed.failure).toEqual({ error: 'RFQ_INVALID_INSTRUMENT', message: `legs[0]: ${dot.symbol('140', 'put')} has settled` });
      expect(await snapshot(taker.accountId, maker.accountId)).toEqual(before);
    });

    it('settle-expiration: 404 unknown round, 400 bad input, 409 without a fresh index and no price', async () => {
      expect((await admin.post('/v1/admin/instruments/settle-expiration', { asset: 'NOPE', expiration: expirationIn(3) })).status).toBe(404);
      expect((await admin.post('/v1/admin/instruments/settle-expiration', { asset: 'SOL', expiration: 'soon' })).status).toBe(400);
      expect((await admin.post('/v1/admin/instruments/settle-expiration', { asset: 'SOL', expiration: sol.expiry, settlement_price: '-1' })).status).toBe(400);
      expect((await admin.post('/v1/admin/instruments/settle-expiration', { asset: 'SOL', expiration: sol.expiry, extra: 1 })).status).toBe(400);
      const res = await admin.post('/v1/admin/instruments/settle-expiration', { asset: 'ETH', expiration: eth.expiry });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatch(/settlement_price/);
    });

    it('an expiration a few seconds out settles by itself at the fresh index; status=settled lists the rows', async () => {
      const expiry = nowSeconds() + 8;
      const round = await listRound(app, 'NEAR', expiry);
      await marketData(app, 'NEAR', '150', '0.8');
      const { taker, maker } = await track(pair(app, '1000', '10000'));
      const q = await quoted(taker, maker, expiry, [leg(round.symbol('150'), '1'), leg(round.symbol('160'), '-1')], {
        bid: '0.5',
        ask: '1',
        expires_at: expiry - 1,
      });
      await acceptAndFill(taker, q, 'buy');
      await marketData(app, 'NEAR', '155.5');
      const before = await snapshot(taker.accountId, maker.accountId);
      const until = Date.now() + 25_000;
      let settled: any[] = [];
      while (Date.now() < until) {
        settled = await positionsOf(app, taker.accountId, 'settled');
        if (settled.length) break;
        await sleep(250);
      }
      expect(settled.map((r) => [r.instrument, r.quantity])).toEqual([
        [round.symbol('150'), '1.00000000'],
        [round.symbol('160'), '-1.00000000'],
      ]);
      expect(Date.now() / 1000).toBeGreaterThanOrEqual(expiry);
      // long the 150 call receives 5.5; the 160 call is out of the money
      expect((await balanceOf(app, taker.accountId)).total).toBe(before[0].balance.total + 5_500_000n);
      expect((await balanceOf(app, maker.accountId)).total).toBe(before[1].balance.total - 5_500_000n);
      expect(await positionsOf(app, taker.accountId, 'open')).toEqual([]);
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
