import { QuoteChecksService } from '../../src/modules/rfq/quote-checks.service';
import type { RpcClient } from './clients';
import { Environment, type TestApp } from './harness';
import { type RfqTrader, type Round, clientRef, expectRfqError, expirationIn, leg, listRound, resumeWs, rfqTrader, signedQuote, terms } from './rfq-support';
import { acceptParams, deposit, marketData, nextNonce, sleep, waitForState } from './support/ledger';

/**
 * Section 19's rules on competitive RFQs (docs/spec/design.md 18, 19): an exact repeat of a
 * competitive respond, and rfq.maker.quotes listing a maker's seed and competitive quotes in one
 * keyset order. The seed side is rfq-reconcile.e2e-spec.ts.
 */
describe('competitive quotes a desk can reconcile', () => {
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
    await deposit(app, taker.accountId, '100000');
  }, 120_000);
  afterAll(async () => {
    for (const c of closers) await c.close();
    await app?.close();
    await env?.destroy();
  });

  const maker = async () => {
    const m = await rfqTrader(app, ['quoter']);
    closers.push(m.client);
    await deposit(app, m.accountId, '100000');
    return m;
  };
  const again = async (m: RfqTrader): Promise<RpcClient> => {
    const client = await resumeWs(app, m.wallet, m.accountId, ['quoter']);
    closers.push(client);
    return client;
  };
  const openSeed = () => taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1')] });
  const openCompetitive = () => taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1')], competition: {} });
  const quote = (m: RfqTrader, rfq: any, changes = {}) => signedQuote(m.wallet, rfq, terms(nextNonce(), changes), sol.expiry);
  /** A respond taken; a few ms apart, so that received_at_ms orders the quotes as taken. */
  const respond = async (m: RfqTrader, q: { params: any }) => {
    await m.client.result('rfq.maker.respond', q.params);
    await sleep(5);
  };
  const listed = async (m: RfqTrader, params = {}) =>
    (await m.client.result('rfq.maker.quotes', { limit: 500, ...params })).items.map((i: any) => [i.quote_id, i.state]);

  describe('idempotent respond', () => {
    it('a competitive respond retried 10 times at once over 2 connections: one quote, 10 identical results, usage and nonce counted once', async () => {
      const m = await maker();
      await m.client.result('rfq.maker.set_limits', { limits: { max_open_quotes: 1 } });
      const clients = [m.client, await again(m)];
      const rfq = await openCompetitive();
      const q = quote(m, rfq);
      const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => clients[i % 2].call('rfq.maker.respond', q.params)));
      const expected = { rfq_id: rfq.rfq_id, quote_id: q.quoteId, state: 'quoted' };
      expect(replies.filter((r) => r.error).map((r) => r.error.data)).toEqual([]);
      for (const reply of replies) expect(reply.result).toEqual(expected);
      expect((await taker.client.result('rfq.get', { rfq_id: rfq.rfq_id })).quotes.map((x: any) => x.quote_id)).toEqual([q.quoteId]);
      expect((await m.client.result('rfq.maker.get_limits', {})).usage.open_quotes).toBe(1);
      expect(await listed(m, { state: 'all' })).toEqual([[q.quoteId, 'live']]);
      // max_open_quotes 1 is reached by the one quote: a quote on another RFQ is refused, the repeat is not.
      expectRfqError(await m.client.call('rfq.maker.respond', quote(m, await openCompetitive()).params), 'RFQ_OPEN_LIMIT', true);
      expect(await m.client.result('rfq.maker.respond', q.params)).toEqual(expected);
      expect((await m.client.result('rfq.maker.get_limits', {})).usage.open_quotes).toBe(1);
    });

    it('builds the quote payload once per respond: competitive (the repeat lookup and the checks share it), its repeat, and seed', async () => {
      const m = await maker();
      const built = jest.spyOn(QuoteChecksService.prototype, 'payloadOf');
      try {
        const builds = async (params: unknown) => {
          built.mockClear();
          const reply = await m.client.call('rfq.maker.respond', params);
          return { builds: built.mock.calls.length, error: reply.error?.data?.error ?? null };
        };
        const q = quote(m, await openCompetitive());
        expect(await builds(q.params)).toEqual({ builds: 1, error: null });
        expect(await builds(q.params)).toEqual({ builds: 1, error: null });
        const forged = quote(m, await openCompetitive());
        expect(await builds({ ...forged.params, bid: '1.25' })).toEqual({ builds: 1, error: 'RFQ_INVALID_SIGNATURE' });
        expect(await builds(quote(m, await openSeed()).params)).toEqual({ builds: 1, error: null });
      } finally {
        built.mockRestore();
      }
    });

    it('a maker without limits (no per-account queue): 10 repeats over 5 connections race their original, all get its result', async () => {
      const m = await maker();
      const clients = [m.client, ...(await Promise.all([again(m), again(m), again(m), again(m)]))];
      const rfq = await openCompetitive();
      const q = quote(m, rfq);
      const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => clients[i % 5].call('rfq.maker.respond', q.params)));
      expect(replies.filter((r) => r.error).map((r) => r.error.data)).toEqual([]);
      for (const reply of replies) expect(reply.result).toEqual({ rfq_id: rfq.rfq_id, quote_id: q.quoteId, state: 'quoted' });
      expect((await taker.client.result('rfq.get', { rfq_id: rfq.rfq_id })).quotes.map((x: any) => x.quote_id)).toEqual([q.quoteId]);
      expect(await listed(m, { state: 'all' })).toEqual([[q.quoteId, 'live']]);
    });

    it('answers the original result after a replace and after the accept; other params and another maker are not a repeat', async () => {
      const [m, other] = [await maker(), await maker()];
      const rfq = await openCompetitive();
      const first = quote(m, rfq);
      const original = await m.client.result('rfq.maker.respond', first.params);
      const second = quote(m, rfq, { bid: '1.6' });
      await m.client.result('rfq.maker.respond', second.params);
      // The replaced quote's repeat: its own result, and it does not come back live.
      expect(await (await again(m)).result('rfq.maker.respond', first.params)).toEqual(original);
      expect((await taker.client.result('rfq.get', { rfq_id: rfq.rfq_id })).quotes.map((x: any) => x.quote_id)).toEqual([second.quoteId]);
      await taker.client.result('rfq.accept', acceptParams(taker.wallet, { rfqId: rfq.rfq_id, quoteId: second.quoteId, terms: second.params }, 'buy'));
      expect((await waitForState(taker, rfq.rfq_id, ['filled', 'failed'])).state).toBe('filled');
      expect(await m.client.result('rfq.maker.respond', second.params)).toEqual({ rfq_id: rfq.rfq_id, quote_id: second.quoteId, state: 'quoted' });
      expect(await m.client.result('rfq.maker.respond', first.params)).toEqual(original);
      // Another nonce with the same terms is a new respond: the RFQ is closed to it.
      const late = quote(m, rfq, { issued_at: first.params.issued_at, expires_at: first.params.expires_at });
      expectRfqError(await m.client.call('rfq.maker.respond', late.params), 'RFQ_STATE_CONFLICT');
      // Another maker sending these params signs nothing of its own: refused, not a repeat.
      expect((await other.client.call('rfq.maker.respond', first.params)).result).toBeUndefined();
    });
  });

  describe('rfq.maker.quotes', () => {
    /** `m`'s quotes, oldest first: seed, replaced, accepted (then filled), cancelled, seed, live; `b` loses the accepted one's RFQ. */
    const sixQuotes = async (m: RfqTrader, b: RfqTrader) => {
      const s1 = quote(m, await openSeed());
      await respond(m, s1);
      const won = await openCompetitive();
      const replaced = quote(m, won);
      await respond(m, replaced);
      const lost = quote(b, won, { ask: '2.5' });
      await respond(b, lost);
      const accepted = quote(m, won, { ask: '2.2' });
      await respond(m, accepted);
      const cancelledRfq = await openCompetitive();
      const cancelled = quote(m, cancelledRfq);
      await respond(m, cancelled);
      expect(await m.client.result('rfq.maker.cancel_quote', { quote_id: cancelled.quoteId })).toEqual({ quote_id: cancelled.quoteId, state: 'cancelled' });
      const s2 = quote(m, await openSeed());
      await respond(m, s2);
      const live = quote(m, await openCompetitive());
      await respond(m, live);
      await taker.client.result('rfq.accept', acceptParams(taker.wallet, { rfqId: won.rfq_id, quoteId: accepted.quoteId, terms: accepted.params }, 'buy'));
      expect((await waitForState(taker, won.rfq_id, ['filled', 'failed'])).state).toBe('filled');
      return { s1, won, replaced, lost, accepted, cancelled, s2, live };
    };

    it("lists a maker's seed and competitive quotes newest first with their states, filters live ones, pages across both kinds", async () => {
      const [m, b] = [await maker(), await maker()];
      const { s1, won, replaced, lost, accepted, cancelled, s2, live } = await sixQuotes(m, b);

      const expected = [
        [live.quoteId, 'live'],
        [s2.quoteId, 'live'],
        [cancelled.quoteId, 'cancelled'],
        [accepted.quoteId, 'filled'],
        [replaced.quoteId, 'replaced'],
        [s1.quoteId, 'live'],
      ];
      expect(await listed(m, { state: 'all' })).toEqual(expected);
      expect(await listed(b, { state: 'all' })).toEqual([[lost.quoteId, 'traded_away']]);
      expect(await listed(m)).toEqual(expected.filter(([, state]) => state === 'live'));

      const all = await m.client.result('rfq.maker.quotes', { state: 'all' });
      expect(all.items[3]).toEqual({
        quote_id: accepted.quoteId,
        rfq_id: won.rfq_id,
        quote_nonce: accepted.params.quote_nonce,
        bid: '1.5',
        ask: '2.2',
        issued_at: accepted.params.issued_at,
        expires_at: accepted.params.expires_at,
        received_at_ms: expect.any(Number),
        state: 'filled',
      });
      const times = all.items.map((i: any) => i.received_at_ms);
      expect([...times].sort((x, y) => y - x)).toEqual(times);
      // Pages of 2, then of 1: the cursors are seed and competitive quotes alike.
      for (const limit of [2, 1]) {
        const pages: any[] = [];
        let after: string | undefined;
        do {
          const page = await m.client.result('rfq.maker.quotes', { state: 'all', limit, ...(after ? { after } : {}) });
          pages.push(...page.items);
          after = page.next_cursor;
          expect(page.items.length).toBeLessThanOrEqual(limit);
        } while (after);
        expect(pages).toEqual(all.items);
      }
      const livePage = await m.client.result('rfq.maker.quotes', { limit: 1, after: live.quoteId });
      expect(livePage).toEqual({ items: [all.items[1]], next_cursor: s2.quoteId });
      // Another maker's competitive quote is no cursor.
      expectRfqError(await m.client.call('rfq.maker.quotes', { after: lost.quoteId }), 'RFQ_NOT_FOUND');
    });
  });
});
