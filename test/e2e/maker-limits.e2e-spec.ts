import { formatRfq, parseRfqSigned } from '@legwork/protocol';
import { Database } from '../../src/common/database/database';
import { RfqTransitionsService } from '../../src/modules/rfq/rfq-transitions.service';
import { RfqRepository } from '../../src/modules/rfq/rfq.repository';
import { greeks } from '../../src/modules/market-data/domain/greeks';
import { markPrice } from '../../src/modules/market-data/domain/black76';
import { parseSymbol } from '../../src/modules/instruments/domain/symbol';
import { Http } from './clients';
import { signInWs } from './factories';
import { Environment, type TestApp } from './harness';
import { type RfqTrader, type Round, clientRef, expectRfqError, expirationIn, leg, listRound, rfqTrader, signedQuote, terms } from './rfq-support';
import { M, acceptParams, deposit, marketData, nextNonce, nowSeconds, sleep, waitForState } from './support/ledger';

/**
 * The desk's maker limits (docs/spec/design.md section 15), checked before a quote is taken, with
 * real concurrency: many responds of one maker at once over several connections.
 */
describe('maker limits', () => {
  let env: Environment;
  let app: TestApp;
  let admin: Http;
  let sol: Round;
  let taker: RfqTrader;
  const closers: RfqTrader[] = [];

  beforeAll(async () => {
    env = await Environment.create({ MARKET_DATA_MAX_AGE_SECONDS: '3600', MAX_OPEN_RFQS: '1000', RFQ_RATE_PER_SECOND: '5000', RFQ_RATE_BURST: '5000' });
    app = await env.start();
    admin = new Http(app.url).admin();
    sol = await listRound(app, 'SOL', expirationIn(10));
    await marketData(app, 'SOL', '150', '0.8');
    taker = await rfqTrader(app, ['taker']);
    closers.push(taker);
  }, 120_000);
  afterAll(async () => {
    for (const t of closers) await t.client.close();
    await app?.close();
    await env?.destroy();
  });

  const sql = (text: string, params: unknown[] = []) => app.app.get(Database).dataSource.query(text, params);
  const maker = async () => {
    const m = await rfqTrader(app, ['quoter']);
    closers.push(m);
    return m;
  };
  const openRfqs = (n: number, legs = [leg(sol.symbol('150'), '1')]) =>
    Promise.all(Array.from({ length: n }, () => taker.client.result('rfq.create', { client_ref: clientRef(), legs })));
  const highWater = async (accountId: number) => (await sql(`SELECT high_water::text AS h FROM maker_nonces WHERE account_id = $1`, [accountId]))[0]?.h ?? null;
  const setLimits = (m: RfqTrader, limits: object) => m.client.result('rfq.maker.set_limits', { limits });
  /**
   * Responds to every RFQ at once (all sent before any answer comes back; the server runs them
   * concurrently), nonces rising in the order sent, as a maker numbers its quotes.
   */
  const respondAll = async (m: RfqTrader, rfqs: any[], changes = {}) => {
    const nonces = rfqs.map(() => nextNonce());
    const quotes = rfqs.map((rfq, i) => signedQuote(m.wallet, rfq, terms(nonces[i], changes), sol.expiry));
    const replies = await Promise.all(quotes.map((q) => m.client.call('rfq.maker.respond', q.params)));
    return replies.map((reply, i) => ({ reply, nonce: nonces[i], rfq: rfqs[i] }));
  };
  /**
   * The replies of a burst: taken, and refused by a limit (RFQ_OPEN_LIMIT, retryable). One instance
   * runs a bounded maker's responds in arrival order, so none of the rising nonces refuses another.
   */
  const outcome = (out: Array<{ reply: any; nonce: bigint; rfq: any }>) => {
    const limited = out.filter((o) => o.reply.error);
    for (const r of limited) expectRfqError(r.reply, 'RFQ_OPEN_LIMIT', true);
    return { taken: out.filter((o) => o.reply.result), limited };
  };
  const quoteOne = async (m: RfqTrader, legs = [leg(sol.symbol('150'), '1')], changes = {}) => {
    const [rfq] = await openRfqs(1, legs);
    const q = signedQuote(m.wallet, rfq, terms(nextNonce(), changes), sol.expiry);
    return { rfq, q, reply: await m.client.call('rfq.maker.respond', q.params) };
  };

  it('set_limits replaces the limits and answers get_limits; get_limits shows usage at the current marks', async () => {
    const m = await maker();
    const empty = await m.client.result('rfq.maker.get_limits', {});
    expect(empty).toEqual({
      limits: {},
      admin_limits: {},
      usage: { open_quotes: 0, open_notional: '0', open_delta: {}, open_vega: {} },
      protection: { frozen: false, until: null, window: { fills: 0, notional: '0', delta: {} } },
    });
    const limits = { max_open_quotes: 5, max_open_notional: '1000.5', max_open_delta: { SOL: '3' }, price_band_bps: 10000 };
    expect((await setLimits(m, limits)).limits).toEqual(limits);
    expect((await setLimits(m, { max_open_quotes: 7 })).limits).toEqual({ max_open_quotes: 7 });

    const legs = [leg(sol.symbol('150'), '1'), leg(sol.symbol('160', 'put'), '-2')];
    const { reply } = await quoteOne(m, legs, { bid: '-30', ask: '30' });
    expect(reply.error).toBeUndefined();
    const view = await m.client.result('rfq.maker.get_limits', {});
    const now = nowSeconds();
    const g = (symbol: string) => {
      const t = parseSymbol(symbol)!;
      return greeks({ index: 150n * M, strike: t.strike, kind: t.kind, iv: 800_000n, secondsToExpiry: sol.expiry - now });
    };
    const delta = (g(legs[0].instrument).delta * M - 2n * M * g(legs[1].instrument).delta) / M;
    const vega = (g(legs[0].instrument).vega * M - 2n * M * g(legs[1].instrument).vega) / M;
    expect(view.usage.open_quotes).toBe(1);
    expect(view.usage.open_notional).toBe('450');
    // Within a micro-unit or two: the server's second may differ from ours.
    expect(Number(parseRfqSigned(view.usage.open_delta.SOL) - (delta < 0n ? -delta : delta))).toBeLessThanOrEqual(20);
    expect(Math.abs(Number(parseRfqSigned(view.usage.open_vega.SOL) - (vega < 0n ? -vega : vega)))).toBeLessThanOrEqual(20);
  });

  it.each([
    [{ max_open_quotes: -1 }, 'RFQ_VALUE_OUT_OF_RANGE', 'limits.max_open_quotes'],
    [{ max_open_quotes: 1.5 }, 'RFQ_VALUE_OUT_OF_RANGE', 'limits.max_open_quotes'],
    [{ max_open_notional: 5 }, 'RFQ_VALUE_OUT_OF_RANGE', 'limits.max_open_notional'],
    [{ max_open_notional: '1.0000001' }, 'RFQ_PRECISION_UNSUPPORTED', 'limits.max_open_notional'],
    [{ max_quote_notional: '-1' }, 'RFQ_PRECISION_UNSUPPORTED', 'limits.max_quote_notional'],
    [{ max_open_delta: { sol: '1' } }, 'RFQ_VALUE_OUT_OF_RANGE', 'limits.max_open_delta.sol'],
    [{ max_open_vega: ['1'] }, 'RFQ_VALUE_OUT_OF_RANGE', 'limits.max_open_vega'],
    [{ price_band_bps: '5' }, 'RFQ_VALUE_OUT_OF_RANGE', 'limits.price_band_bps'],
    [{ protection: { window_seconds: 0, frozen_seconds: 0 } }, 'RFQ_VALUE_OUT_OF_RANGE', 'limits.protection.window_seconds'],
    [{ protection: { window_seconds: 10 } }, 'RFQ_VALUE_OUT_OF_RANGE', 'limits.protection.frozen_seconds'],
    [{ max_open_quote: 1 }, 'RFQ_VALUE_OUT_OF_RANGE', 'limits.max_open_quote'],
  ])('set_limits %j: %s naming %s, nothing changed', async (limits, error, field) => {
    const m = await maker();
    await setLimits(m, { max_open_quotes: 3 });
    const reply = await m.client.call('rfq.maker.set_limits', { limits });
    expectRfqError(reply, error);
    expect(reply.error.data.message).toContain(field);
    expect((await m.client.result('rfq.maker.get_limits', {})).limits).toEqual({ max_open_quotes: 3 });
  });

  it('the limits methods need the quoter role', async () => {
    expectRfqError(await taker.client.call('rfq.maker.get_limits', {}), 'RFQ_WRONG_ROLE');
    expectRfqError(await taker.client.call('rfq.maker.set_limits', { limits: {} }), 'RFQ_WRONG_ROLE');
  });

  it('50 concurrent responds with max_open_quotes 10: exactly 10 quoted, the others RFQ_OPEN_LIMIT, no refused nonce consumed', async () => {
    const m = await maker();
    await setLimits(m, { max_open_quotes: 10 });
    const rfqs = await openRfqs(50);
    const out = await respondAll(m, rfqs);
    const { taken, limited } = outcome(out);
    expect(taken).toHaveLength(10);
    expect(limited).toHaveLength(40);
    for (const r of limited) expect(r.reply.error.data.message).toContain('max_open_quotes 10: open quotes would reach 11');
    const states = await sql(`SELECT count(*)::int AS n FROM rfqs WHERE maker_account_id = $1 AND state = 'quoted'`, [m.accountId]);
    expect(states).toEqual([{ n: 10 }]);
    // The mark is the highest nonce taken: no refused respond moved it, and a refused nonce above it is still good.
    const top = taken.map((t) => t.nonce).reduce((a, b) => (a > b ? a : b));
    expect(await highWater(m.accountId)).toBe(String(top));
    const unused = limited.map((r) => r.nonce).filter((n) => n > top);
    expect(unused.length).toBeGreaterThan(0);
    await setLimits(m, { max_open_quotes: 11 });
    const again = limited.find((r) => r.nonce === unused[0])!;
    const reply = await m.client.call('rfq.maker.respond', signedQuote(m.wallet, again.rfq, terms(again.nonce), sol.expiry).params);
    expect(reply.error).toBeUndefined();
    expect((await m.client.result('rfq.maker.get_limits', {})).usage.open_quotes).toBe(11);
  });

  it('a respond passed on the quotes the instance knows is one guarded statement; a quote it did not see sends it to the transaction', async () => {
    const m = await maker();
    // set_limits answers the usage: its read is what the next responds are decided on.
    await setLimits(m, { max_open_quotes: 4 });
    const transitions = app.app.get(RfqTransitionsService);
    const [guarded, inTx] = [jest.spyOn(transitions, 'moveToQuotedIfUnchanged'), jest.spyOn(transitions, 'moveToQuotedWithin')];
    try {
      for (const calls of [1, 2]) {
        expect((await quoteOne(m)).reply.result.state).toBe('quoted');
        expect([guarded.mock.calls.length, inTx.mock.calls.length]).toEqual([calls, 0]);
      }
      // Another instance's quote (its move raised the mark, unseen here): the guard moves nothing, the transaction counts it.
      const [other] = await openRfqs(1);
      const [at, elsewhere] = [nowSeconds(), nextNonce()];
      await app.app.get(RfqRepository).moveToQuoted(
        app.app.get(Database),
        { rfqId: other.rfq_id, from: 'pending', to: 'quoted', at },
        {
          ...{ quoteId: 'e'.repeat(64), makerAccountId: m.accountId, makerWallet: m.wallet.address, quoteNonce: elsewhere, bid: M, ask: 2n * M },
          ...{ issuedAt: at, expiresAt: at + 60, makerSignature: 'elsewhere' },
        },
      );
      expect((await quoteOne(m)).reply.result.state).toBe('quoted');
      expect(await guarded.mock.results[2].value).toBeNull();
      expect(inTx).toHaveBeenCalledTimes(1);
      // Four are out with the other instance's: the fifth is refused, decided in the transaction.
      expectRfqError((await quoteOne(m)).reply, 'RFQ_OPEN_LIMIT', true);
      expect([guarded.mock.calls.length, inTx.mock.calls.length]).toEqual([3, 1]);
      expect((await m.client.result('rfq.maker.get_limits', {})).usage.open_quotes).toBe(4);
    } finally {
      guarded.mockRestore();
      inTx.mockRestore();
    }
  });

  it('max_open_notional and max_open_delta: of 12 concurrent responds exactly k fit', async () => {
    // One contract of the 150 call: notional 150 each.
    const m1 = await maker();
    await setLimits(m1, { max_open_notional: '525' });
    const byNotional = await respondAll(m1, await openRfqs(12));
    expect(outcome(byNotional).taken).toHaveLength(3);
    for (const o of outcome(byNotional).limited) expect(o.reply.error.data.message).toContain('max_open_notional 525: open notional would reach 600');
    const m2 = await maker();
    const one = greeks({ index: 150n * M, strike: 150n * M, kind: 'call', iv: 800_000n, secondsToExpiry: sol.expiry - nowSeconds() }).delta;
    await setLimits(m2, { max_open_delta: { SOL: formatRfq(4n * one + one / 2n), ETH: '0' } });
    const byDelta = await respondAll(m2, await openRfqs(12));
    expect(outcome(byDelta).taken).toHaveLength(4);
    for (const o of outcome(byDelta).limited) expect(o.reply.error.data.message).toMatch(/^max_open_delta\.SOL [0-9.]+: open delta would reach [0-9.]+$/);
    const view = await m2.client.result('rfq.maker.get_limits', {});
    expect(view.usage.open_quotes).toBe(4);
  });

  it('max_open_vega bounds the sum of |vega| per asset', async () => {
    const m = await maker();
    const one = greeks({ index: 150n * M, strike: 150n * M, kind: 'call', iv: 800_000n, secondsToExpiry: sol.expiry - nowSeconds() }).vega;
    await setLimits(m, { max_open_vega: { SOL: formatRfq(2n * one + one / 2n) } });
    expect(outcome(await respondAll(m, await openRfqs(5))).taken).toHaveLength(2);
  });

  it('max_quote_notional: RFQ_SIZE_INVALID naming the notional; price_band_bps: RFQ_PRICE_TOLERANCE', async () => {
    const m = await maker();
    await setLimits(m, { max_quote_notional: '200' });
    const big = await quoteOne(m, [leg(sol.symbol('150'), '2')]);
    expectRfqError(big.reply, 'RFQ_SIZE_INVALID');
    expect(big.reply.error.data.message).toBe("max_quote_notional 200: this quote's notional is 300");
    expect((await quoteOne(m, [leg(sol.symbol('150'), '1')])).reply.error).toBeUndefined();

    // The 150 call at 150, 80 % IV: mark about 10.9 per contract; a band of 100 bps of 150 is 1.5.
    const mark = markPrice({ index: 150n * M, strike: 150n * M, kind: 'call', iv: 800_000n, secondsToExpiry: sol.expiry - nowSeconds() });
    const band = await maker();
    await setLimits(band, { price_band_bps: 100 });
    const near = { bid: formatRfq(mark - M), ask: formatRfq(mark + M) };
    expect((await quoteOne(band, undefined, near)).reply.error).toBeUndefined();
    const far = await quoteOne(band, undefined, { bid: formatRfq(mark - M), ask: formatRfq(mark + 2n * M) });
    expectRfqError(far.reply, 'RFQ_PRICE_TOLERANCE');
    expect(far.reply.error.data.message).toMatch(/^price_band_bps 100: the quote reaches 2(\.\d+)? from the mark [0-9.]+ \(band 1\.5\)$/);
    const low = await quoteOne(band, undefined, { bid: '0', ask: formatRfq(mark) });
    expectRfqError(low.reply, 'RFQ_PRICE_TOLERANCE');
  });

  it('the kill switch (max_open_quotes 0) refuses every new quote and cancels none; raising it lets quotes in again', async () => {
    const m = await maker();
    const live = await quoteOne(m);
    expect(live.reply.error).toBeUndefined();
    await setLimits(m, { max_open_quotes: 0 });
    const refused = await quoteOne(m);
    // design.md section 19: the kill switch is not retryable.
    expectRfqError(refused.reply, 'RFQ_OPEN_LIMIT', false);
    expect(refused.reply.error.data.reason).toBe('kill_switch');
    expect(refused.reply.error.data.message).toContain('kill switch');
    expect((await taker.client.result('rfq.get', { rfq_id: live.rfq.rfq_id })).state).toBe('quoted');
    expect((await taker.client.result('rfq.get', { rfq_id: refused.rfq.rfq_id })).state).toBe('pending');
    await setLimits(m, {});
    expect((await quoteOne(m)).reply.error).toBeUndefined();
  });

  it('the admin ceiling: GET and PUT of /v1/admin/accounts/{id}/maker-limits; the stricter of the two applies', async () => {
    const m = await maker();
    await setLimits(m, { max_open_quotes: 5, max_open_delta: { SOL: '100' } });
    const put = await admin.put(`/v1/admin/accounts/${m.accountId}/maker-limits`, { limits: { max_open_quotes: 2, max_open_delta: { SOL: '200', ETH: '1' } } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      account_id: m.accountId,
      limits: { max_open_quotes: 5, max_open_delta: { SOL: '100' } },
      admin_limits: { max_open_quotes: 2, max_open_delta: { ETH: '1', SOL: '200' } },
      usage: { open_quotes: 0, open_notional: '0', open_delta: {}, open_vega: {} },
      protection: { frozen: false, until: null, window: { fills: 0, notional: '0', delta: {} } },
    });
    expect(outcome(await respondAll(m, await openRfqs(6))).taken).toHaveLength(2);
    const get = await admin.get(`/v1/admin/accounts/${m.accountId}/maker-limits`);
    expect(get.status).toBe(200);
    expect(get.body).toMatchObject({ account_id: m.accountId, usage: { open_quotes: 2, open_notional: '300' } });
    expect((await m.client.result('rfq.maker.get_limits', {})).admin_limits).toEqual(put.body.admin_limits);

    expect((await admin.put(`/v1/admin/accounts/${m.accountId}/maker-limits`, { limits: { max_open_quotes: 'x' } })).status).toBe(400);
    expect((await admin.put(`/v1/admin/accounts/${m.accountId}/maker-limits`, { limits: {}, other: 1 })).status).toBe(400);
    expect((await admin.put(`/v1/admin/accounts/999999/maker-limits`, { limits: {} })).status).toBe(404);
    expect((await admin.get(`/v1/admin/accounts/999999/maker-limits`)).status).toBe(404);
    expect((await new Http(app.url).put(`/v1/admin/accounts/${m.accountId}/maker-limits`, { limits: {} })).status).toBe(401);
  });

  describe('protection after fills', () => {
    const fillOne = async (t: RfqTrader, rfqId: string, q: { quoteId: string; params: any }) => {
      const accepted = await t.client.result('rfq.accept', acceptParams(t.wallet, { rfqId, quoteId: q.quoteId, terms: q.params }, 'buy'));
      expect(accepted.state).toBe('accepted');
      return waitForState(t, rfqId, ['filled', 'failed']);
    };

    it('trips after the configured fills, refuses new quotes, keeps live quotes firm, thaws after frozen_seconds; the event replays', async () => {
      const m = await maker();
      const t = await rfqTrader(app, ['taker']);
      closers.push(t);
      await deposit(app, t.accountId, '100000');
      await deposit(app, m.accountId, '100000');
      await m.client.result('rfq.maker.subscribe', {});
      await setLimits(m, { protection: { window_seconds: 60, max_fills: 1, frozen_seconds: 3 } });
      const make = async () => {
        const rfq = await t.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1')] });
        const q = signedQuote(m.wallet, rfq, terms(nextNonce()), sol.expiry);
        await m.client.result('rfq.maker.respond', q.params);
        return { rfq, q };
      };
      const [a, b, c] = [await make(), await make(), await make()];
      expect((await fillOne(t, a.rfq.rfq_id, a.q)).state).toBe('filled');
      // The window takes the fill after the fill commits (the taker may hear `filled` first).
      let window: any;
      for (let i = 0; i < 50 && window?.fills !== 1; i++) window = (await m.client.result('rfq.maker.get_limits', {})).protection.window;
      expect(window).toEqual({ fills: 1, notional: '150', delta: { SOL: expect.any(String) } });
      const event = m.client.next((n: any) => n.channel === 'rfq_maker' && n.data.event === 'protection', 10_000);
      expect((await fillOne(t, b.rfq.rfq_id, b.q)).state).toBe('filled');
      const trip = (await event).data;
      expect(trip).toEqual({
        seq: expect.any(Number),
        account_seq: expect.any(Number),
        event: 'protection',
        protection: { tripped_at: expect.any(Number), until: expect.any(Number), reason: 'max_fills 1: 2 fills in 60 s' },
      });
      expect(trip.protection.until - trip.protection.tripped_at).toBe(3);

      const refused = await quoteOne(m);
      expectRfqError(refused.reply, 'RFQ_OPEN_LIMIT', true);
      expect(refused.reply.error.data.message).toMatch(/^maker protection: frozen until \d+ \(max_fills 1: 2 fills in 60 s\)$/);
      const view = await m.client.result('rfq.maker.get_limits', {});
      expect(view.protection).toEqual({ frozen: true, until: trip.protection.until, window: { fills: 0, notional: '0', delta: {} } });
      // A live quote stays firm: the taker can still take it.
      expect((await fillOne(t, c.rfq.rfq_id, c.q)).state).toBe('filled');

      // Replayed from the stored events.
      const again = await signInWs(app, m.wallet);
      const stream = again.client.next((n: any) => n.channel === 'rfq_maker' && n.data.event === 'protection', 10_000);
      await again.client.result('rfq.maker.subscribe', { since: trip.account_seq - 1 });
      expect((await stream).data).toMatchObject({ event: 'protection', account_seq: trip.account_seq, protection: trip.protection });
      await again.client.close();

      while (nowSeconds() * 1000 < trip.protection.until * 1000 + 50) await sleep(100);
      expect((await quoteOne(m)).reply.error).toBeUndefined();
    }, 30_000);

    it('frozen_seconds 0 freezes until rfq.maker.reset_protection', async () => {
      const m = await maker();
      const t = await rfqTrader(app, ['taker']);
      closers.push(t);
      await deposit(app, t.accountId, '100000');
      await deposit(app, m.accountId, '100000');
      await setLimits(m, { protection: { window_seconds: 60, max_fill_notional: '200', frozen_seconds: 0 } });
      for (let i = 0; i < 2; i++) {
        const rfq = await t.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1')] });
        const q = signedQuote(m.wallet, rfq, terms(nextNonce()), sol.expiry);
        await m.client.result('rfq.maker.respond', q.params);
        expect((await fillOne(t, rfq.rfq_id, q)).state).toBe('filled');
      }
      let view: any;
      for (let i = 0; i < 50 && !view?.protection.frozen; i++) view = await m.client.result('rfq.maker.get_limits', {});
      expect(view.protection).toEqual({ frozen: true, until: null, window: { fills: 0, notional: '0', delta: {} } });
      await sleep(1100);
      const refused = await quoteOne(m);
      // design.md section 19: a freeze only a reset ends is not retryable.
      expectRfqError(refused.reply, 'RFQ_OPEN_LIMIT', false);
      expect(refused.reply.error.data.reason).toBe('maker_protection');
      expect(refused.reply.error.data.message).toContain('until rfq.maker.reset_protection (max_fill_notional 200: 300 filled in 60 s)');
      expect((await m.client.result('rfq.maker.reset_protection', {})).protection.frozen).toBe(false);
      expect((await quoteOne(m)).reply.error).toBeUndefined();
    }, 30_000);
  });
});
