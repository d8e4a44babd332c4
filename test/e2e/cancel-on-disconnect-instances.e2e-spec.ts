import { randomUUID } from 'node:crypto';
import { expirationIn, symbolOf } from './factories';
import { adminOf } from '../fleet/checks';
import { type Instance, hasBinaries, waitFor } from '../fleet/fleet';
import { FleetTrader, quoteFor } from '../fleet/traders';
import { type TestFleet, startTestFleet } from './support/test-fleet';

/**
 * Cancel on disconnect (docs/spec/design.md 19) when the instance holding the maker's connection
 * dies without closing it: two instances as separate processes on a private PostgreSQL and Redis,
 * the maker's one SIGKILLed, the other ends the quotes. In `npm run test:long` (it builds dist).
 */
const enabled = !!process.env.DATABASE_URL && hasBinaries();

(enabled ? describe : describe.skip)('cancel on disconnect across instances (separate processes)', () => {
  let testFleet: TestFleet;
  let a: Instance, b: Instance;
  const expiry = expirationIn(7);
  const call = symbolOf('ETH', expiry, '150', 'call');
  let taker: FleetTrader, maker: FleetTrader;

  beforeAll(async () => {
    testFleet = await startTestFleet(2, 'legwork_cod');
    [a, b] = testFleet.instances;
    const admin = adminOf(a);
    expect((await admin.post('/v1/admin/create-instruments', { asset: 'ETH', expiration: expiry, spot_price: '150', strikes: ['150'] })).status).toBe(200);
    expect((await admin.post('/v1/admin/market-data', { asset: 'ETH', index_price: '150', iv: '0.8' })).status).toBe(200);
    [taker, maker] = await Promise.all([FleetTrader.create(admin, ['taker'], '100000'), FleetTrader.create(admin, ['quoter'], '1000000')]);
    await taker.connect(b);
    await maker.connect(a);
  }, 240_000);

  afterAll(async () => {
    await taker?.disconnect();
    await maker?.disconnect();
    await testFleet?.stop();
  }, 60_000);

  it("the instance holding a flagged maker's connection is SIGKILLed: another instance ends its competitive quotes within 5 s; the seed quote stays", async () => {
    await maker.result('rfq.maker.set_profile', { cancel_on_disconnect: true });
    const create = (competitive: boolean) =>
      taker.result('rfq.create', { client_ref: randomUUID(), legs: [{ instrument: call, quantity: '1' }], ...(competitive ? { competition: {} } : {}) });
    const competitive = await create(true);
    const seed = await create(false);
    for (const rfq of [competitive, seed]) await maker.result('rfq.maker.respond', quoteFor(maker, rfq, expiry).params);
    expect(await taker.result('rfq.get', { rfq_id: competitive.rfq_id })).toMatchObject({ state: 'quoted', quotes: [expect.anything()] });
    // Past a heartbeat or two, so the presence record is a steady one rather than the sign-in's.
    await new Promise((r) => setTimeout(r, 1500));
    const killedAt = Date.now();
    expect(await a.stop('SIGKILL')).toBeNull();
    await waitFor(async () => (await taker.result('rfq.get', { rfq_id: competitive.rfq_id })).quotes.length === 0, 10_000, 'quotes ended');
    const took = Date.now() - killedAt;
    process.stdout.write(`cancel on disconnect after SIGKILL: quotes ended ${took} ms after the kill\n`);
    expect(took).toBeLessThan(5000);
    expect(await taker.result('rfq.get', { rfq_id: competitive.rfq_id })).toMatchObject({ state: 'pending', quotes: [] });
    expect(await taker.result('rfq.get', { rfq_id: seed.rfq_id })).toMatchObject({
      state: 'quoted',
      quote: expect.objectContaining({ maker: maker.wallet.address }),
    });
  }, 30_000);
});
