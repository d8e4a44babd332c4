import { verifyTranscript } from '@legwork/protocol';
import { Database } from '../../src/common/database/database';
import { Http } from './clients';
import { Environment, type TestApp } from './harness';
import { type RfqTrader, type Round, clientRef, expectRfqError, expirationIn, leg, listRound, on, rfqTrader, signedQuote, silent, terms } from './rfq-support';
import { acceptParams, deposit, marketData, sleep, waitForState } from './support/ledger';

/** Competitive RFQs as a client sees them (docs/spec/design.md 18). */
describe('competitive RFQs', () => {
  let env: Environment;
  let app: TestApp;
  let sol: Round;
  let taker: RfqTrader;
  let makers: RfqTrader[];
  let outsider: RfqTrader;
  const nonces = new Map<number, number>();
  let exchangeKey: any[];

  beforeAll(async () => {
    env = await Environment.create({ MARKET_DATA_MAX_AGE_SECONDS: '3600' });
    app = await env.start();
    sol = await listRound(app, 'SOL', expirationIn(10));
    await marketData(app, 'SOL', '150');
    exchangeKey = (await new Http(app.url).get('/v1/exchange/keys')).body.keys;
    taker = await rfqTrader(app, ['taker']);
    await deposit(app, taker.accountId, '100000');
    await taker.client.result('rfq.subscribe', {});
    makers = await Promise.all([0, 1, 2].map(() => rfqTrader(app, ['quoter'])));
    outsider = await rfqTrader(app, ['quoter']);
    for (const m of [...makers, outsider]) {
      await deposit(app, m.accountId, '1000000');
      await m.client.result('rfq.maker.subscribe', {});
    }
  });
  afterAll(async () => {
    for (const t of [taker, ...(makers ?? []), outsider]) await t?.client.close();
    await app?.close();
    await env?.destroy();
  });

  const sql = (text: string, params: unknown[] = []) => app.app.get(Database).dataSource.query(text, params);
  const quote = (m: RfqTrader, rfq: any, bid: string, ask: string, changes = {}) => {
    const n = (nonces.get(m.accountId) ?? 0) + 1;
    nonces.set(m.accountId, n);
    return signedQuote(m.wallet, rfq, terms(n, { bid, ask, ...changes }), sol.expiry);
  };
  const create = (panel?: RfqTrader[]) =>
    taker.client.result('rfq.create', {
      client_ref: clientRef(),
      legs: [leg(sol.symbol('150'), '1')],
      competition: panel ? { makers: panel.map((m) => m.wallet.address) } : {},
    });

  it('a panel RFQ: only the panel hears it, polls it and may answer it; for anyone else it does not exist', async () => {
    const rfq = await create([makers[0], makers[1]]);
    expect(rfq).toMatchObject({
      state: 'pending',
      competition: { makers: [makers[0].wallet.address, makers[1].wallet.address] },
      quotes: [],
      best: { bid: null, ask: null },
    });
    const created = await makers[0].client.next(on('rfq_maker', 'created', rfq.rfq_id));
    expect(created.data.rfq.competitive).toBe(true);
    expect(await silent(outsider.client, on('rfq_maker', 'created', rfq.rfq_id))).toBe(true);
    const polled = await outsider.client.result('rfq.maker.poll', {});
    expect(polled.items.map((i: any) => i.rfq_id)).not.toContain(rfq.rfq_id);
    expect((await makers[1].client.result('rfq.maker.poll', {})).items.map((i: any) => i.rfq_id)).toContain(rfq.rfq_id);
    const q = quote(outsider, rfq, '1', '2');
    expectRfqError(await outsider.client.call('rfq.maker.respond', q.params), 'RFQ_NOT_FOUND');
    expectRfqError(await outsider.client.call('rfq.maker.check', q.params), 'RFQ_NOT_FOUND');
    expectRfqError(await outsider.client.call('rfq.maker.decline', { rfq_id: rfq.rfq_id, reason: 'size_limit' }), 'RFQ_NOT_FOUND');
    expectRfqError(await outsider.client.call('rfq.maker.respond', { ...q.params, rfq_id: 'f'.repeat(32) }), 'RFQ_NOT_FOUND');
    // The panel answers; the outsider never hears of it.
    const a = quote(makers[0], rfq, '1', '2');
    expect(await makers[0].client.result('rfq.maker.respond', a.params)).toEqual({ rfq_id: rfq.rfq_id, quote_id: a.quoteId, state: 'quoted' });
    const heard = await taker.client.next(on('rfq', 'quotes', rfq.rfq_id));
    expect(heard.data.rfq).toMatchObject({ state: 'quoted', quote: null, best: { bid: a.quoteId, ask: a.quoteId } });
    expect(heard.data.rfq.quotes).toEqual([
      expect.objectContaining({ quote_id: a.quoteId, maker: makers[0].wallet.address, received_at_ms: expect.any(Number) }),
    ]);
    // Still open to the other panel maker while quoted.
    expect((await makers[1].client.result('rfq.maker.poll', {})).items.map((i: any) => i.rfq_id)).toContain(rfq.rfq_id);
    await taker.client.result('rfq.cancel', { rfq_id: rfq.rfq_id });
    expect(await makers[0].client.next(on('rfq_maker', 'expired', rfq.rfq_id))).toMatchObject({ data: { rfq: { rfq_id: rfq.rfq_id, quote_id: a.quoteId } } });
    expect(await silent(outsider.client, (n) => JSON.stringify(n).includes(rfq.rfq_id), 500)).toBe(true);
    const t = await taker.client.result('rfq.transcript', { rfq_id: rfq.rfq_id });
    expect(verifyTranscript(t, exchangeKey)).toMatchObject({ ok: true });
    expect(t.transcript.quotes.map((x: any) => [x.quote_id, x.end])).toEqual([[a.quoteId, 'expired']]);
  });

  it('several quotes, a replace, a cancel; the accept takes one, the others are traded away; best and the transcript', async () => {
    const rfq = await create();
    expect(await taker.client.call('rfq.transcript', { rfq_id: rfq.rfq_id })).toMatchObject({ error: { data: { error: 'RFQ_NOT_FOUND' } } });
    const a1 = quote(makers[0], rfq, '1', '3');
    const b = quote(makers[1], rfq, '1.2', '2.5');
    const c = quote(makers[2], rfq, '0.5', '2.6');
    for (const [m, q] of [
      [makers[0], a1],
      [makers[1], b],
      [makers[2], c],
    ] as const)
      await m.client.result('rfq.maker.respond', q.params);
    const a2 = quote(makers[0], rfq, '1.1', '2.4');
    await makers[0].client.result('rfq.maker.respond', a2.params);
    expect(await makers[2].client.result('rfq.maker.cancel_quote', { quote_id: c.quoteId })).toEqual({ quote_id: c.quoteId, state: 'cancelled' });
    expect(await makers[2].client.result('rfq.maker.cancel_quote', { quote_id: c.quoteId })).toEqual({ quote_id: c.quoteId, state: 'cancelled' });
    expectRfqError(await makers[1].client.call('rfq.maker.cancel_quote', { quote_id: c.quoteId }), 'RFQ_NOT_FOUND');
    const view = await taker.client.result('rfq.get', { rfq_id: rfq.rfq_id });
    expect(view.quotes.map((q: any) => q.quote_id)).toEqual([b.quoteId, a2.quoteId]);
    expect(view.best).toEqual({ bid: b.quoteId, ask: a2.quoteId });
    // The replaced quote has ended.
    expectRfqError(
      await taker.client.call('rfq.accept', acceptParams(taker.wallet, { rfqId: rfq.rfq_id, quoteId: a1.quoteId, terms: a1.params }, 'buy')),
      'RFQ_QUOTE_EXPIRED',
    );
    const accepted = await taker.client.result('rfq.accept', acceptParams(taker.wallet, { rfqId: rfq.rfq_id, quoteId: b.quoteId, terms: b.params }, 'buy'));
    expect(accepted).toEqual({ rfq_id: rfq.rfq_id, quote_id: b.quoteId, side: 'buy', state: 'accepted', best: false });
    expect(await makers[0].client.next(on('rfq_maker', 'traded_away', rfq.rfq_id))).toMatchObject({
      data: { rfq: { rfq_id: rfq.rfq_id, quote_id: a2.quoteId } },
    });
    expectRfqError(
      await taker.client.call('rfq.accept', acceptParams(taker.wallet, { rfqId: rfq.rfq_id, quoteId: a2.quoteId, terms: a2.params }, 'buy')),
      'RFQ_QUOTE_EXPIRED',
    );
    const filled = await waitForState(taker, rfq.rfq_id, ['filled', 'failed']);
    expect(filled).toMatchObject({ state: 'filled', quote: { quote_id: b.quoteId }, quotes: [], fill: { price: '2.5' } });
    // The winner hears section 5's events of its quote.
    for (const event of ['accepted', 'filled']) {
      expect(await makers[1].client.next(on('rfq_maker', event, rfq.rfq_id))).toMatchObject({ data: { rfq: { quote_id: b.quoteId, state: event } } });
    }
    const t = await taker.client.result('rfq.transcript', { rfq_id: rfq.rfq_id });
    expect(verifyTranscript(t, exchangeKey)).toMatchObject({ ok: true });
    expect(t.transcript.quotes.map((x: any) => [x.quote_id, x.end])).toEqual([
      [a1.quoteId, 'replaced'],
      [b.quoteId, 'accepted'],
      [c.quoteId, 'cancelled'],
      [a2.quoteId, 'traded_away'],
    ]);
    expect(t.transcript.accepted).toMatchObject({ quote_id: b.quoteId, side: 'buy', price: '2.5', best: false });
    expectRfqError(await makers[0].client.call('rfq.transcript', { rfq_id: rfq.rfq_id }), 'RFQ_WRONG_ROLE');
    const again = await taker.client.result('rfq.accept', acceptParams(taker.wallet, { rfqId: rfq.rfq_id, quoteId: b.quoteId, terms: b.params }, 'buy'));
    expect(again).toEqual(accepted);
  });

  it('the last live quote ending sends the RFQ back to pending; a panel all declining declines it', async () => {
    const rfq = await create([makers[0], makers[1]]);
    const a = quote(makers[0], rfq, '1', '2');
    await makers[0].client.result('rfq.maker.respond', a.params);
    expect((await taker.client.result('rfq.get', { rfq_id: rfq.rfq_id })).state).toBe('quoted');
    await makers[0].client.result('rfq.maker.cancel_quotes', {});
    expect(await taker.client.result('rfq.get', { rfq_id: rfq.rfq_id })).toMatchObject({ state: 'pending', quotes: [] });
    await makers[0].client.result('rfq.maker.decline', { rfq_id: rfq.rfq_id, reason: 'size_limit' });
    expect((await taker.client.result('rfq.get', { rfq_id: rfq.rfq_id })).state).toBe('pending');
    await makers[1].client.result('rfq.maker.decline', { rfq_id: rfq.rfq_id, reason: 'stale_data' });
    expect(await taker.client.result('rfq.get', { rfq_id: rfq.rfq_id })).toMatchObject({ state: 'declined', decline_reason: 'stale_data' });
    expect(verifyTranscript(await taker.client.result('rfq.transcript', { rfq_id: rfq.rfq_id }), exchangeKey)).toMatchObject({ ok: true });
  });

  it('a quote ends expired at its own time, and the RFQ goes back to pending', async () => {
    const rfq = await create([makers[0]]);
    const now = Math.floor(Date.now() / 1000);
    const a = quote(makers[0], rfq, '1', '2', { issued_at: now, expires_at: now + 2 });
    await makers[0].client.result('rfq.maker.respond', a.params);
    expect(await makers[0].client.next(on('rfq_maker', 'expired', rfq.rfq_id), 8000)).toMatchObject({ data: { rfq: { quote_id: a.quoteId } } });
    await sleep(100);
    expect(await taker.client.result('rfq.get', { rfq_id: rfq.rfq_id })).toMatchObject({ state: 'pending', quotes: [] });
    expect(await sql(`SELECT ending FROM competition_quotes WHERE quote_id = $1`, [a.quoteId])).toEqual([{ ending: 'expired' }]);
  });

  it('client_ref idempotency compares the competition; the panel is checked', async () => {
    const ref = clientRef();
    const legs = [leg(sol.symbol('150'), '1')];
    const first = await taker.client.result('rfq.create', { client_ref: ref, legs, competition: { makers: [makers[0].wallet.address] } });
    expect(await taker.client.result('rfq.create', { client_ref: ref, legs, competition: { makers: [makers[0].wallet.address] } })).toEqual(first);
    expectRfqError(await taker.client.call('rfq.create', { client_ref: ref, legs, competition: {} }), 'RFQ_CANONICAL_MISMATCH');
    expectRfqError(await taker.client.call('rfq.create', { client_ref: ref, legs }), 'RFQ_CANONICAL_MISMATCH');
    const bad = async (competition: unknown) =>
      expectRfqError(await taker.client.call('rfq.create', { client_ref: clientRef(), legs, competition }), 'RFQ_VALUE_OUT_OF_RANGE');
    await bad({ makers: [] });
    await bad({ makers: [makers[0].wallet.address, makers[0].wallet.address] });
    await bad({ makers: [taker.wallet.address] });
    await bad({ makers: ['11111111111111111111111111111111'] });
  });

  it('limits count competitive quotes: a replace counts net, a cancel frees its usage in its transaction', async () => {
    const m = await rfqTrader(app, ['quoter']);
    try {
      await m.client.result('rfq.maker.set_limits', { limits: { max_open_quotes: 1 } });
      const [one, two] = [await create(), await create()];
      await m.client.result('rfq.maker.respond', quote(m, one, '1', '2').params);
      // The replace on the same RFQ passes the count it already passed.
      const replaced = quote(m, one, '1.1', '1.9');
      expect(await m.client.result('rfq.maker.respond', replaced.params)).toMatchObject({ state: 'quoted' });
      expect((await m.client.result('rfq.maker.get_limits', {})).usage.open_quotes).toBe(1);
      expectRfqError(await m.client.call('rfq.maker.respond', quote(m, two, '1', '2').params), 'RFQ_OPEN_LIMIT', true);
      await m.client.result('rfq.maker.cancel_quote', { quote_id: replaced.quoteId });
      expect((await m.client.result('rfq.maker.get_limits', {})).usage.open_quotes).toBe(0);
      expect(await m.client.result('rfq.maker.respond', quote(m, two, '1', '2').params)).toMatchObject({ state: 'quoted' });
      expect((await m.client.result('rfq.maker.get_limits', {})).usage.open_quotes).toBe(1);
      expect(await m.client.result('rfq.maker.cancel_quotes', {})).toEqual({ cancelled: [expect.any(String)] });
      expect((await m.client.result('rfq.maker.get_limits', {})).usage.open_quotes).toBe(0);
    } finally {
      await m.client.close();
    }
  });

  it('the round settles while competitive RFQs are open: each ends expired in a transaction that writes its transcript', async () => {
    const avax = await listRound(app, 'AVAX', expirationIn(10));
    await marketData(app, 'AVAX', '150');
    const createOn = (panel: RfqTrader[]) =>
      taker.client.result('rfq.create', {
        client_ref: clientRef(),
        legs: [leg(avax.symbol('150'), '1')],
        competition: { makers: panel.map((m) => m.wallet.address) },
      });
    const withQuote = await createOn([makers[0], makers[1]]);
    const pending = await createOn([makers[1]]);
    const n = (nonces.get(makers[0].accountId) ?? 0) + 1;
    nonces.set(makers[0].accountId, n);
    const a = signedQuote(makers[0].wallet, withQuote, terms(n, { bid: '1', ask: '2' }), avax.expiry);
    await makers[0].client.result('rfq.maker.respond', a.params);
    const settled = await new Http(app.url)
      .admin()
      .post('/v1/admin/instruments/settle-expiration', { asset: 'AVAX', expiration: avax.expiry, settlement_price: '150' });
    expect(settled.status).toBe(200);
    expect(await makers[0].client.next(on('rfq_maker', 'expired', withQuote.rfq_id))).toMatchObject({ data: { rfq: { quote_id: a.quoteId } } });
    expect(await makers[1].client.next(on('rfq_maker', 'closed', withQuote.rfq_id))).toBeDefined();
    expect(await sql(`SELECT ending FROM competition_quotes WHERE quote_id = $1`, [a.quoteId])).toEqual([{ ending: 'expired' }]);
    for (const rfq of [withQuote, pending]) {
      expect(await taker.client.result('rfq.get', { rfq_id: rfq.rfq_id })).toMatchObject({ state: 'expired', quotes: [] });
      const t = await taker.client.result('rfq.transcript', { rfq_id: rfq.rfq_id });
      expect(verifyTranscript(t, exchangeKey)).toMatchObject({ ok: true });
      expect(t.transcript).toMatchObject({ rfq_id: rfq.rfq_id, accepted: null });
    }
    expect((await taker.client.result('rfq.transcript', { rfq_id: withQuote.rfq_id })).transcript.quotes.map((x: any) => [x.quote_id, x.end])).toEqual([
      [a.quoteId, 'expired'],
    ]);
  });

  it('a seed RFQ is unchanged: its quote is firm, it has no transcript, its accept result has no best', async () => {
    const rfq = await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1')] });
    expect(rfq).toMatchObject({ competition: null, quotes: null, best: null });
    const q = quote(makers[0], rfq, '1', '2');
    await makers[0].client.result('rfq.maker.respond', q.params);
    expectRfqError(await makers[0].client.call('rfq.maker.cancel_quote', { quote_id: q.quoteId }), 'RFQ_STATE_CONFLICT');
    expectRfqError(await makers[1].client.call('rfq.maker.cancel_quote', { quote_id: q.quoteId }), 'RFQ_NOT_FOUND');
    const accepted = await taker.client.result('rfq.accept', acceptParams(taker.wallet, { rfqId: rfq.rfq_id, quoteId: q.quoteId, terms: q.params }, 'buy'));
    expect(accepted).toEqual({ rfq_id: rfq.rfq_id, quote_id: q.quoteId, side: 'buy', state: 'accepted' });
    await waitForState(taker, rfq.rfq_id, ['filled']);
    expectRfqError(await taker.client.call('rfq.transcript', { rfq_id: rfq.rfq_id }), 'RFQ_NOT_FOUND');
  });
});
