import { Environment, type TestApp } from './harness';
import {
  type RfqTrader,
  type Round,
  clientRef,
  expectRfqError,
  expirationIn,
  leg,
  listRound,
  on,
  resumeWs,
  rfqTrader,
  signedQuote,
  sleep,
  terms,
} from './rfq-support';
import { deposit, marketData } from './support/ledger';

/** rfq.maker.set_profile and cancel on disconnect (docs/spec/design.md 18 "Choosing a panel", 19). */
describe('maker profile and cancel on disconnect', () => {
  let env: Environment;
  let app: TestApp;
  let sol: Round;
  let taker: RfqTrader;
  const nonces = new Map<number, number>();
  const clients: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    env = await Environment.create({ MARKET_DATA_MAX_AGE_SECONDS: '3600' });
    app = await env.start();
    sol = await listRound(app, 'SOL', expirationIn(10));
    await marketData(app, 'SOL', '150');
    taker = await rfqTrader(app, ['taker']);
    clients.push(taker.client);
    await deposit(app, taker.accountId, '100000');
    await taker.client.result('rfq.subscribe', {});
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await app?.close();
    await env?.destroy();
  });

  const maker = async (profile?: object) => {
    const m = await rfqTrader(app, ['quoter']);
    clients.push(m.client);
    await deposit(app, m.accountId, '1000000');
    if (profile) await m.client.result('rfq.maker.set_profile', profile);
    return m;
  };
  const create = (competitive: boolean) =>
    taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1')], ...(competitive ? { competition: {} } : {}) });
  const respond = async (m: RfqTrader, rfq: any) => {
    const n = (nonces.get(m.accountId) ?? 0) + 1;
    nonces.set(m.accountId, n);
    const q = signedQuote(m.wallet, rfq, terms(n, { bid: '1', ask: '2' }), sol.expiry);
    await m.client.result('rfq.maker.respond', q.params);
    return q.quoteId;
  };
  const view = (rfqId: string) => taker.client.result('rfq.get', { rfq_id: rfqId });

  it('set_profile: defaults, an absent field keeps its value, the whole profile back; a bad field changes nothing', async () => {
    const m = await maker();
    expect(await m.client.result('rfq.maker.set_profile', {})).toEqual({ listed: false, name: null, cancel_on_disconnect: false });
    expect(await m.client.result('rfq.maker.set_profile', { name: 'Acme Options' })).toEqual({
      listed: false,
      name: 'Acme Options',
      cancel_on_disconnect: false,
    });
    expect(await m.client.result('rfq.maker.set_profile', { listed: true })).toEqual({ listed: true, name: 'Acme Options', cancel_on_disconnect: false });
    expect(await m.client.result('rfq.maker.set_profile', { cancel_on_disconnect: true })).toEqual({
      listed: true,
      name: 'Acme Options',
      cancel_on_disconnect: true,
    });
    for (const bad of [{ name: '' }, { name: 'x'.repeat(41) }, { name: 'tab\there' }, { listed: 'yes' }, { cancel_on_disconnect: 1 }]) {
      expectRfqError(await m.client.call('rfq.maker.set_profile', bad), 'RFQ_VALUE_OUT_OF_RANGE');
    }
    expect(await m.client.result('rfq.maker.set_profile', { listed: false })).toEqual({ listed: false, name: 'Acme Options', cancel_on_disconnect: true });
    expectRfqError(await taker.client.call('rfq.maker.set_profile', { listed: true }), 'RFQ_WRONG_ROLE');
  });

  it("closing a flagged maker's last connection ends its competitive quotes within 5 s; its seed quote stays firm", async () => {
    const m = await maker({ cancel_on_disconnect: true });
    const competitive = [await create(true), await create(true)];
    const seed = await create(false);
    const quoteIds = [await respond(m, competitive[0]), await respond(m, competitive[1])];
    await respond(m, seed);
    const emptied = (n: any) => on('rfq', 'quotes', competitive[1].rfq_id)(n) && n.data.rfq.quotes.length === 0;
    const heard = taker.client.next(emptied, 10_000);
    const closedAt = Date.now();
    await m.client.close();
    const event = await heard;
    const took = Date.now() - closedAt;
    console.log(`cancel on disconnect: quotes event ${took} ms after the close`);
    expect(took).toBeLessThan(5000);
    expect(event.data.rfq).toMatchObject({ state: 'pending', quotes: [] });
    for (const rfq of competitive) expect(await view(rfq.rfq_id)).toMatchObject({ state: 'pending', quotes: [] });
    expect(await view(seed.rfq_id)).toMatchObject({ state: 'quoted', quote: expect.objectContaining({ maker: m.wallet.address }) });
    // The same end as rfq.maker.cancel_quote: cancelled, and the maker sees so on reconnecting.
    const again = await resumeWs(app, m.wallet, m.accountId, ['quoter']);
    clients.push(again);
    for (const quoteId of quoteIds)
      expect(await again.result('rfq.maker.cancel_quote', { quote_id: quoteId })).toEqual({ quote_id: quoteId, state: 'cancelled' });
    // Limits usage freed: only the seed quote is still out.
    expect((await again.result('rfq.maker.get_limits', {})).usage.open_quotes).toBe(1);
  });

  it('a flagged maker that reconnects within the grace, a maker with two connections closing one, and a maker without the flag keep their quotes', async () => {
    const back = await maker({ cancel_on_disconnect: true });
    const twice = await maker({ cancel_on_disconnect: true });
    const unflagged = await maker({ listed: true });
    const rfq = await create(true);
    for (const m of [back, twice, unflagged]) await respond(m, rfq);
    const second = await resumeWs(app, twice.wallet, twice.accountId, ['quoter']);
    clients.push(second);
    await back.client.close();
    clients.push(await resumeWs(app, back.wallet, back.accountId, ['quoter']));
    await twice.client.close();
    await unflagged.client.close();
    await sleep(6000);
    const now = await view(rfq.rfq_id);
    expect(now.state).toBe('quoted');
    expect(now.quotes.map((q: any) => q.maker).sort()).toEqual([back, twice, unflagged].map((m) => m.wallet.address).sort());
  });
});
