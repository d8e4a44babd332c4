import type { RpcClient } from './clients';
import { Environment, type TestApp } from './harness';
import { type RfqTrader, type Round, clientRef, expectRfqError, expirationIn, leg, listRound, resumeWs, rfqTrader, signedQuote, terms } from './rfq-support';
import { acceptParams, deposit, marketData, nextNonce, waitForState } from './support/ledger';

/**
 * Quotes a desk can reconcile (docs/spec/design.md section 19) as a maker sees them: a respond
 * repeated after a lost reply, responds pipelined on one connection, and the maker's own quotes.
 * The refusals' reasons are rfq-reasons.e2e-spec.ts.
 */
describe('quotes a desk can reconcile', () => {
  let env: Environment;
  let app: TestApp;
  let sol: Round;
  let taker: RfqTrader;
  const closers: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    env = await Environment.create({ MARKET_DATA_MAX_AGE_SECONDS: '3600', MAX_OPEN_RFQS: '1000', RFQ_RATE_PER_SECOND: '5000', RFQ_RATE_BURST: '5000' });
    app = await env.start();
    sol = await listRound(app, 'SOL', expirationIn(10));
    await marketData(app, 'SOL', '150', '0.8');
    taker = await rfqTrader(app, ['taker']);
    closers.push(taker.client);
  }, 120_000);
  afterAll(async () => {
    for (const c of closers) await c.close();
    await app?.close();
    await env?.destroy();
  });

  const maker = async () => {
    const m = await rfqTrader(app, ['quoter']);
    closers.push(m.client);
    return m;
  };
  /** Another connection of the same maker (a client that reconnected). */
  const again = async (m: RfqTrader): Promise<RpcClient> => {
    const client = await resumeWs(app, m.wallet, m.accountId, ['quoter']);
    closers.push(client);
    return client;
  };
  const openRfq = () => taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1')] });

  describe('idempotent respond', () => {
    it('a respond retried 20 times at once over 4 connections: one quote, 20 identical results, usage and nonce counted once', async () => {
      const m = await maker();
      await m.client.result('rfq.maker.set_limits', { limits: { max_open_quotes: 1 } });
      const clients = [m.client, ...(await Promise.all([again(m), again(m), again(m)]))];
      const rfq = await openRfq();
      const q = signedQuote(m.wallet, rfq, terms(nextNonce()), sol.expiry);
      const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => clients[i % 4].call('rfq.maker.respond', q.params)));
      const expected = { rfq_id: rfq.rfq_id, quote_id: q.quoteId, state: 'quoted' };
      for (const reply of replies) expect(reply).toMatchObject({ result: expected });
      expect(new Set(replies.map((r) => JSON.stringify(r.result))).size).toBe(1);
      const view = await m.client.result('rfq.maker.get_limits', {});
      expect(view.usage.open_quotes).toBe(1);
      expect((await taker.client.result('rfq.get', { rfq_id: rfq.rfq_id })).quote.quote_id).toBe(q.quoteId);
      expect((await m.client.result('rfq.maker.quotes', { state: 'all' })).items.map((i: any) => i.quote_id)).toEqual([q.quoteId]);
      // max_open_quotes 1 is reached by the one quote: a new quote is refused, the repeat is not.
      const other = signedQuote(m.wallet, await openRfq(), terms(nextNonce()), sol.expiry);
      expectRfqError(await m.client.call('rfq.maker.respond', other.params), 'RFQ_OPEN_LIMIT', true);
      expect(await m.client.result('rfq.maker.respond', q.params)).toEqual(expected);
    });

    it('answers the original result after the RFQ moved on (cancelled by the taker); other params are refused with their reason', async () => {
      const m = await maker();
      const rfq = await openRfq();
      const q = signedQuote(m.wallet, rfq, terms(nextNonce()), sol.expiry);
      const original = await m.client.result('rfq.maker.respond', q.params);
      await taker.client.result('rfq.cancel', { rfq_id: rfq.rfq_id });
      expect(await (await again(m)).result('rfq.maker.respond', q.params)).toEqual(original);
      // The same quote with another nonce, or another price: not a repeat.
      const other = signedQuote(m.wallet, rfq, terms(nextNonce(), { issued_at: q.params.issued_at, expires_at: q.params.expires_at }), sol.expiry);
      const refused = await m.client.call('rfq.maker.respond', other.params);
      expectRfqError(refused, 'RFQ_STATE_CONFLICT');
      expect(refused.error.data.reason).toBe('already_quoted');
      const otherMaker = await maker();
      const theirs = await otherMaker.client.call('rfq.maker.respond', signedQuote(otherMaker.wallet, rfq, terms(nextNonce()), sol.expiry).params);
      expect(theirs.error.data).toMatchObject({ error: 'RFQ_STATE_CONFLICT', reason: 'quoted_by_another' });
    });

    it("another maker's copy of the params is not a repeat (the quote is the caller's)", async () => {
      const [a, b] = [await maker(), await maker()];
      const rfq = await openRfq();
      const q = signedQuote(a.wallet, rfq, terms(nextNonce()), sol.expiry);
      await a.client.result('rfq.maker.respond', q.params);
      expect((await b.client.call('rfq.maker.respond', q.params)).error.data).toMatchObject({ error: 'RFQ_STATE_CONFLICT', reason: 'quoted_by_another' });
    });
  });

  describe('pipelined quotes', () => {
    it('50 responds with rising nonces sent back to back on one connection are all taken, in order', async () => {
      const m = await maker();
      const rfqs = await Promise.all(Array.from({ length: 50 }, () => openRfq()));
      const quotes = rfqs.map((rfq) => signedQuote(m.wallet, rfq, terms(nextNonce()), sol.expiry));
      const replies = await Promise.all(quotes.map((q) => m.client.call('rfq.maker.respond', q.params)));
      expect(replies.filter((r) => r.error).map((r) => r.error.data)).toEqual([]);
      expect(replies.map((r) => r.result.quote_id)).toEqual(quotes.map((q) => q.quoteId));
      const listed = await m.client.result('rfq.maker.quotes', { limit: 500 });
      // Newest first: taken in the order sent.
      expect(listed.items.map((i: any) => i.quote_id)).toEqual(quotes.map((q) => q.quoteId).reverse());
    });
  });

  describe('rfq.maker.quotes', () => {
    /** Five quotes of `m` (and one of another maker): the first filled, the second cancelled by the taker (expired), three live. */
    const fiveQuotes = async (m: RfqTrader) => {
      const other = await maker();
      await deposit(app, taker.accountId, '100000');
      await deposit(app, m.accountId, '100000');
      const taken: Array<{ rfq: any; q: any }> = [];
      for (let i = 0; i < 5; i++) {
        const rfq = await openRfq();
        const q = signedQuote(m.wallet, rfq, terms(nextNonce()), sol.expiry);
        await m.client.result('rfq.maker.respond', q.params);
        taken.push({ rfq, q });
      }
      await other.client.result('rfq.maker.respond', signedQuote(other.wallet, await openRfq(), terms(nextNonce()), sol.expiry).params);
      const [filled, cancelled] = taken;
      const accept = acceptParams(taker.wallet, { rfqId: filled.rfq.rfq_id, quoteId: filled.q.quoteId, terms: filled.q.params }, 'buy');
      await taker.client.result('rfq.accept', accept);
      expect((await waitForState(taker, filled.rfq.rfq_id, ['filled', 'failed'])).state).toBe('filled');
      await taker.client.result('rfq.cancel', { rfq_id: cancelled.rfq.rfq_id });
      return taken;
    };

    it('lists only the caller’s quotes, newest first, with the seed states; pages by next_cursor', async () => {
      const m = await maker();
      const taken = await fiveQuotes(m);
      const filled = taken[0];
      const all = await m.client.result('rfq.maker.quotes', { state: 'all' });
      expect(all.next_cursor).toBeUndefined();
      expect(all.items.map((i: any) => [i.quote_id, i.state])).toEqual(
        [...taken].reverse().map((t, i) => [t.q.quoteId, i === 4 ? 'filled' : i === 3 ? 'expired' : 'live']),
      );
      const first = all.items[4];
      expect(first).toEqual({
        quote_id: filled.q.quoteId,
        rfq_id: filled.rfq.rfq_id,
        quote_nonce: filled.q.params.quote_nonce,
        bid: '1.5',
        ask: '2.25',
        issued_at: filled.q.params.issued_at,
        expires_at: filled.q.params.expires_at,
        received_at_ms: expect.any(Number),
        state: 'filled',
      });
      expect(Math.abs(first.received_at_ms - Date.now())).toBeLessThan(60_000);
      // received_at_ms falls as the list goes back in time.
      const times = all.items.map((i: any) => i.received_at_ms);
      expect([...times].sort((a, b) => b - a)).toEqual(times);

      const live = await m.client.result('rfq.maker.quotes', {});
      expect(live.items.map((i: any) => i.quote_id)).toEqual(
        taken
          .slice(2)
          .reverse()
          .map((t) => t.q.quoteId),
      );
      expect(live.items.every((i: any) => i.state === 'live')).toBe(true);

      const page1 = await m.client.result('rfq.maker.quotes', { state: 'all', limit: 2 });
      expect(page1.items.map((i: any) => i.quote_id)).toEqual(all.items.slice(0, 2).map((i: any) => i.quote_id));
      expect(page1.next_cursor).toBe(all.items[1].quote_id);
      const page2 = await m.client.result('rfq.maker.quotes', { state: 'all', limit: 2, after: page1.next_cursor });
      expect(page2.items).toEqual(all.items.slice(2, 4));
      const page3 = await m.client.result('rfq.maker.quotes', { state: 'all', limit: 2, after: page2.next_cursor });
      expect(page3).toEqual({ items: all.items.slice(4) });
    });

    it('refuses a bad state, limit or cursor, and another maker’s quote as a cursor', async () => {
      const m = await maker();
      const other = await maker();
      const theirs = signedQuote(other.wallet, await openRfq(), terms(nextNonce()), sol.expiry);
      await other.client.result('rfq.maker.respond', theirs.params);
      for (const params of [{ state: 'open' }, { limit: 0 }, { limit: 501 }, { after: 'xyz' }, { extra: 1 }]) {
        const reply = await m.client.call('rfq.maker.quotes', params);
        expectRfqError(reply, 'RFQ_VALUE_OUT_OF_RANGE');
        expect(reply.error.data.reason).toBe('invalid_params');
      }
      const notMine = await m.client.call('rfq.maker.quotes', { after: theirs.quoteId });
      expectRfqError(notMine, 'RFQ_NOT_FOUND');
      expect(notMine.error.data.reason).toBe('cursor_not_found');
      expect((await m.client.result('rfq.maker.quotes', { limit: 500 })).items).toEqual([]);
      expectRfqError(await taker.client.call('rfq.maker.quotes', {}), 'RFQ_WRONG_ROLE');
    });
  });
});
