import { Http } from './clients';
import { Environment, type TestApp } from './harness';
import { type RfqTrader, clientRef, expirationIn, leg, listRound, rfqTrader } from './rfq-support';

/**
 * The operator console's admin reads over HTTP with data in every table they read (the browser
 * tests of console.e2e-spec.ts need Chromium): each read goes through the module that owns its
 * tables (RfqReadsRepository, FillReadsRepository, AccountsService, MarketDataService).
 */
let env: Environment;
let app: TestApp;
let taker: RfqTrader;
let rfq: { rfq_id: string; created_at: number };

beforeAll(async () => {
  env = await Environment.create();
  app = await env.start();
  const sol = await listRound(app, 'SOL', expirationIn(10));
  const set = await new Http(app.url).admin().post('/v1/admin/market-data', { asset: 'SOL', index_price: '150.5', iv: '0.8' });
  if (set.status !== 200) throw new Error(`market-data: ${set.status} ${JSON.stringify(set.body)}`);
  taker = await rfqTrader(app, ['taker']);
  rfq = await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1')] });
});
afterAll(async () => {
  await taker?.client.close();
  await app?.close();
  await env?.destroy();
});

const admin = () => new Http(app.url).admin();

describe('console admin reads: overview and RFQs', () => {
  it('overview: every state counted, the new RFQ pending, thirty minutes of fills', async () => {
    const res = await admin().get('/v1/admin/overview');
    expect(res.status).toBe(200);
    expect(res.body.rfqs_by_state).toEqual({ pending: 1, quoted: 0, accepted: 0, submitting: 0, filled: 0, declined: 0, expired: 0, failed: 0 });
    expect(res.body.fills_per_minute).toHaveLength(30);
    expect(res.body.fills_per_minute.every((p: { fills: number }) => p.fills === 0)).toBe(true);
  });

  it('rfqs and their events: the RFQ with its taker, filtered by state and account', async () => {
    const all = await admin().get('/v1/admin/rfqs');
    expect(all.status).toBe(200);
    expect(all.body.rfqs).toEqual([
      expect.objectContaining({
        rfq_id: rfq.rfq_id,
        account_id: taker.accountId,
        asset: 'SOL',
        state: 'pending',
        created_at: rfq.created_at,
        maker_account_id: null,
        bid: null,
        fill_reverted: false,
      }),
    ]);
    expect((await admin().get(`/v1/admin/rfqs?state=filled`)).body.rfqs).toEqual([]);
    expect((await admin().get(`/v1/admin/rfqs?account_id=${taker.accountId}&state=pending`)).body.rfqs).toHaveLength(1);
    const events = await admin().get(`/v1/admin/rfqs/${rfq.rfq_id}/events`);
    expect(events.status).toBe(200);
    expect(events.body).toEqual({ rfq_id: rfq.rfq_id, events: [expect.objectContaining({ state: 'pending', at: rfq.created_at })] });
    expect((await admin().get(`/v1/admin/rfqs/${'0'.repeat(32)}/events`)).status).toBe(404);
  });
});

describe('console admin reads: accounts, market data and the documents', () => {
  it('accounts by wallet and market data', async () => {
    const found = await admin().get(`/v1/admin/accounts?wallet=${taker.wallet.address}`);
    expect(found.body.accounts).toEqual([
      {
        account_id: taker.accountId,
        wallet: taker.wallet.address,
        roles: ['taker'],
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      },
    ]);
    const market = await admin().get('/v1/admin/market-data');
    expect(market.status).toBe(200);
    expect(market.body.assets).toEqual(expect.arrayContaining([expect.objectContaining({ asset: 'SOL', index_price: '150.50000000', stale: false })]));
  });

  it('the admin account and transfer answers declare the balance row of /query/balances', async () => {
    const spec = (await new Http(app.url).get('/openapi.json')).body;
    const answer = (path: string, method: string) => spec.paths[path][method].responses['200'].content['application/json'].schema;
    for (const schema of [
      answer('/v1/admin/accounts/{account_id}', 'get'),
      answer('/v1/admin/accounts/{account_id}/deposit', 'post'),
      answer('/v1/admin/accounts/{account_id}/withdraw', 'post'),
    ]) {
      expect(Object.keys(schema.properties.balance.properties).sort()).toEqual(['account_id', 'available', 'currency', 'locked', 'total', 'updated_at']);
    }
  });
});
