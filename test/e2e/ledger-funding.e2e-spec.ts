import { fundingView } from '../../src/modules/ledger/domain/funding';
import type { Environment, TestApp } from './harness';
import { type Rows, expectInvariants } from './invariants';
import { type RfqTrader, type Round, expectRfqError, expirationIn, leg, listRound, pauseRound } from './rfq-support';
import {
  M,
  acceptAndFill,
  acceptParams,
  acceptWithFillHeld,
  balanceOf,
  deposit,
  fundingLegs,
  marketData,
  pair,
  positionsOf,
  quoted,
  withdraw,
} from './support/ledger';
import { INDEX, IV, PARAMS, snapshotOf, startLedgerApp } from './support/ledger-app';

/**
 * Funding at accept and at fill (docs/ledger.md): a writer never anchored or with too little, a maker
 * that cannot fund its side, missing market data and paused legs, and the fill's own re-check of
 * funding and of the fee tolerance. The invariants hold after every test.
 */

describe('Ledger: accept, fill, positions, revert, settlement', () => {
  let env: Environment;
  let app: TestApp;
  let rows: Rows;
  let sol: Round;
  let paused: Round;
  let eth: Round;
  const traders: RfqTrader[] = [];

  const snapshot = (...accounts: number[]) => snapshotOf(app, ...accounts);
  const track = async <T extends { taker: RfqTrader; maker: RfqTrader }>(p: Promise<T>) => {
    const value = await p;
    traders.push(value.taker, value.maker);
    return value;
  };

  beforeAll(async () => {
    ({ env, app, rows, sol, paused, eth } = await startLedgerApp());
  });
  afterEach(async () => {
    await expectInvariants(rows);
  });
  afterAll(async () => {
    for (const t of traders) await t.client.close();
    await app?.close();
    await env?.destroy();
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
      // The fill is held back until the withdrawal is in.
      const failed = await acceptWithFillHeld(app, taker, q, 'buy', async () => {
        expect((await withdraw(app, taker.accountId, '5')).status).toBe(200);
      });
      expect(failed).toMatchObject({ state: 'failed', failure: { error: 'RFQ_TAKER_UNFUNDED' }, fill: null });
      expect(await positionsOf(app, taker.accountId)).toEqual([]);
      expect(await balanceOf(app, taker.accountId)).toEqual({ total: 5n * M, locked: 0n, available: 5n * M });
    });
    it('the fee at fill above the max_fee frozen at accept fails the fill with RFQ_PRICE_TOLERANCE', async () => {
      const tol = await listRound(app, 'TOL', expirationIn(10));
      await marketData(app, 'TOL', '150', '0.8');
      const { taker, maker } = await track(pair(app));
      const q = await quoted(taker, maker, tol.expiry, [leg(tol.symbol('150'), '10')], { bid: '70', ask: '80' });
      const before = await snapshot(taker.accountId, maker.accountId);
      // fee at accept: 10 × 150 × 3 bp = 0.45, max_fee 0.4545; at index 152 the fee is 0.456
      const failed = await acceptWithFillHeld(app, taker, q, 'buy', () => marketData(app, 'TOL', '152', '0.8'));
      expect(failed).toMatchObject({ state: 'failed', failure: { error: 'RFQ_PRICE_TOLERANCE', message: expect.stringMatching(/0\.456.*0\.4545/) } });
      expect(await snapshot(taker.accountId, maker.accountId)).toEqual(before);
      expect(await rows(`SELECT max_fee::text FROM accepts WHERE rfq_id = $1`, [q.rfqId])).toEqual([{ max_fee: '454500' }]);
    });
  });
});
