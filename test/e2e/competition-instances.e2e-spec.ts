import { randomUUID } from 'node:crypto';
import { verifyTranscript } from '@legwork/protocol';
import { Http } from './clients';
import { expirationIn, symbolOf } from './factories';
import { adminOf } from '../fleet/checks';
import { type Instance, hasBinaries, waitFor } from '../fleet/fleet';
import { FleetTrader, acceptFor, quoteFor } from '../fleet/traders';
import { type TestFleet, startTestFleet } from './support/test-fleet';

/**
 * A competitive RFQ (docs/spec/design.md 18) across two instances (docs/spec/design.md 11) as
 * separate processes on one PostgreSQL database and one Redis: the quotes reach instance A, the
 * accept instance B, and the taker's and the makers' events and the transcript are the same seen
 * from either. In `npm run test:long` (it builds dist).
 */
const enabled = !!process.env.DATABASE_URL && hasBinaries();

/** The notifications of one RFQ a connection received, in their account order (seq). */
const eventsOf = (trader: FleetTrader, rfqId: string) =>
  trader
    .client!.notifications.filter((n: any) => (n.data.rfq?.rfq_id ?? n.data.rfq_id) === rfqId)
    .map((n: any) => ({ channel: n.channel, ...n.data }))
    .sort((x: any, y: any) => x.seq - y.seq);

(enabled ? describe : describe.skip)('a competitive RFQ across instances (separate processes)', () => {
  let testFleet: TestFleet;
  let a: Instance, b: Instance;
  const expiry = expirationIn(7);
  const call = symbolOf('ETH', expiry, '150', 'call');
  /** Each account connected to both instances: [on A, on B]. */
  let taker: FleetTrader[], alpha: FleetTrader[], beta: FleetTrader[];

  const onBoth = async (trader: FleetTrader, subscribe: string) => {
    const other = new FleetTrader(trader.wallet, trader.accountId, trader.roles);
    await trader.connect(a);
    await other.connect(b);
    for (const t of [trader, other]) await t.result(subscribe, {});
    return [trader, other];
  };

  beforeAll(async () => {
    testFleet = await startTestFleet(2, 'legwork_competition');
    [a, b] = testFleet.instances;
    const admin = adminOf(a);
    expect((await admin.post('/v1/admin/create-instruments', { asset: 'ETH', expiration: expiry, spot_price: '150', strikes: ['150'] })).status).toBe(200);
    expect((await admin.post('/v1/admin/market-data', { asset: 'ETH', index_price: '150', iv: '0.8' })).status).toBe(200);
    const [t, m1, m2] = await Promise.all([
      FleetTrader.create(admin, ['taker'], '100000'),
      FleetTrader.create(admin, ['quoter'], '1000000'),
      FleetTrader.create(admin, ['quoter'], '1000000'),
    ]);
    taker = await onBoth(t, 'rfq.subscribe');
    alpha = await onBoth(m1, 'rfq.maker.subscribe');
    beta = await onBoth(m2, 'rfq.maker.subscribe');
  }, 240_000);

  afterAll(async () => {
    for (const t of [...(taker ?? []), ...(alpha ?? []), ...(beta ?? [])]) await t.disconnect();
    await testFleet?.stop();
  }, 60_000);

  it('quotes through A, the accept through B: the same quotes events, traded_away and transcript from either instance', async () => {
    const [takerA, takerB] = taker;
    const rfq = await takerA.result('rfq.create', {
      client_ref: randomUUID(),
      legs: [{ instrument: call, quantity: '1' }],
      competition: { makers: [alpha[0].wallet.address, beta[0].wallet.address] },
    });
    await alpha[0].result('rfq.maker.respond', quoteFor(alpha[0], rfq, expiry, { bid: '1.5', ask: '2.4' }).params);
    const lost = quoteFor(beta[0], rfq, expiry, { bid: '1.6', ask: '2.3' });
    await beta[0].result('rfq.maker.respond', lost.params);
    const best = quoteFor(alpha[0], rfq, expiry, { bid: '1.55', ask: '2.2' });
    await alpha[0].result('rfq.maker.respond', best.params);
    const accepted = await takerB.result('rfq.accept', acceptFor(takerB, rfq.rfq_id, best, 'buy'));
    expect(accepted).toEqual({ rfq_id: rfq.rfq_id, quote_id: best.quoteId, side: 'buy', state: 'accepted', best: true });

    const seen = (t: FleetTrader, event: string) => eventsOf(t, rfq.rfq_id).some((e: any) => e.event === event);
    await waitFor(() => seen(takerA, 'filled') && seen(takerB, 'filled'), 15_000, 'filled seen on both instances');
    await waitFor(() => seen(beta[0], 'traded_away') && seen(beta[1], 'traded_away'), 10_000, 'traded_away seen on both instances');
    await waitFor(() => seen(alpha[0], 'filled') && seen(alpha[1], 'filled'), 10_000, "the winner's fill seen on both instances");

    const takerEvents = eventsOf(takerA, rfq.rfq_id);
    expect(takerEvents.filter((e: any) => e.event === 'quotes').map((e: any) => e.rfq.quotes.map((q: any) => q.quote_id))).toEqual([
      [expect.any(String)],
      [expect.any(String), lost.quoteId],
      [lost.quoteId, best.quoteId],
    ]);
    expect(eventsOf(takerB, rfq.rfq_id)).toEqual(takerEvents);
    const lostEvents = eventsOf(beta[0], rfq.rfq_id);
    expect(lostEvents.filter((e: any) => e.event === 'traded_away')).toEqual([
      expect.objectContaining({ rfq: { rfq_id: rfq.rfq_id, quote_id: lost.quoteId } }),
    ]);
    expect(eventsOf(beta[1], rfq.rfq_id)).toEqual(lostEvents);
    expect(eventsOf(alpha[1], rfq.rfq_id)).toEqual(eventsOf(alpha[0], rfq.rfq_id));

    const keys = (await new Http(b.url).get('/v1/exchange/keys')).body.keys;
    const [fromA, fromB] = [await takerA.result('rfq.transcript', { rfq_id: rfq.rfq_id }), await takerB.result('rfq.transcript', { rfq_id: rfq.rfq_id })];
    expect(fromB).toEqual(fromA);
    expect(verifyTranscript(fromA, keys)).toMatchObject({ ok: true });
    expect(fromA.transcript.quotes.map((q: any) => q.end)).toEqual(['replaced', 'traded_away', 'accepted']);
    expect(fromA.transcript.accepted).toMatchObject({ quote_id: best.quoteId, side: 'buy', price: '2.2', best: true });
  }, 60_000);
});
