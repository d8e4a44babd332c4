import { randomBytes, randomUUID } from 'node:crypto';
import { FillService } from '../../src/modules/ledger/fill.service';
import { Http } from './clients';
import { signInHttp } from './factories';
import type { Environment, TestApp } from './harness';
import { type Rows, expectInvariants } from './invariants';
import { type RfqTrader, type Round, expirationIn, leg, listRound, on } from './rfq-support';
import { M, acceptAndFill, acceptParams, balanceOf, fillsOf, marketData, nowSeconds, pair, positionsOf, quoted, sleep, waitForState } from './support/ledger';
import { snapshotOf, startLedgerApp } from './support/ledger-app';

/**
 * After a fill: the admin revert (every figure back, and the refusals), and settlement (the payments
 * short to long, everything marked settled, open RFQs expired; a fill overtaken by its round's
 * settlement; an expiration settled by itself at the fresh index). The invariants hold after every test.
 */

describe('Ledger: accept, fill, positions, revert, settlement', () => {
  let env: Environment;
  let app: TestApp;
  let admin: Http;
  let rows: Rows;
  let sol: Round;
  let eth: Round;
  let feeId: number;
  const traders: RfqTrader[] = [];

  const spread = () => [leg(sol.symbol('150'), '1'), leg(sol.symbol('140', 'put'), '-2')];
  const snapshot = (...accounts: number[]) => snapshotOf(app, ...accounts);
  const track = async <T extends { taker: RfqTrader; maker: RfqTrader }>(p: Promise<T>) => {
    const value = await p;
    traders.push(value.taker, value.maker);
    return value;
  };

  beforeAll(async () => {
    ({ env, app, admin, rows, sol, eth, feeId } = await startLedgerApp());
  });
  afterEach(async () => {
    await expectInvariants(rows);
  });
  afterAll(async () => {
    for (const t of traders) await t.client.close();
    await app?.close();
    await env?.destroy();
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
});
