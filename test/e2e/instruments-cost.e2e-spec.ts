import { Database } from '../../src/common/database/database';
import { InstrumentsService } from '../../src/modules/instruments/instruments.service';
import { Http, RpcClient } from './clients';
import { DAY, expirationIn } from './factories';
import { Environment, type TestApp } from './harness';
import { listRound } from './rfq-support';

const STRIKES = ['100', '110', '120', '130', '140', '150', '160', '170', '180', '190'];
const HISTORY = 500;

/**
 * docs/spec/design.md section 16, "Public reads are limited": the instruments list is served from a
 * cache rebuilt when the instrument view changes, so a call costs the bytes it sends, not a sort
 * of every instrument ever listed.
 */
let env: Environment;
let app: TestApp;
let ws: RpcClient;
const view = () => app.app.get(InstrumentsService);

beforeAll(async () => {
  env = await Environment.create();
  app = await env.start();
  ws = await RpcClient.connect(app.wsUrl);
  for (let d = 1; d <= 3; d++) await listRound(app, 'FEW', expirationIn(d), STRIKES);
}, 120_000);
afterAll(async () => {
  await ws?.close();
  await app?.close();
  await env?.destroy();
}, 60_000);

/** Array sorts and wall time of `calls` listings straight from the service (no transport in the way). */
function measure(calls: number, filter: Parameters<InstrumentsService['list']>[0] = {}): { sorts: number; ms: number; same: boolean } {
  view().list(filter); // a listing after the last change may build the cache once
  const sort = jest.spyOn(Array.prototype, 'sort');
  const first = view().list(filter);
  let same = true;
  const started = performance.now();
  try {
    for (let i = 0; i < calls; i++) same = view().list(filter) === first && same;
    return { sorts: sort.mock.calls.length, ms: performance.now() - started, same };
  } finally {
    sort.mockRestore();
  }
}

/** The wire answers: public/get_instruments (with marks) and GET /v1/instruments, as text. */
async function answers(): Promise<{ rpc: string; http: string }> {
  const rpc = JSON.stringify((await ws.call('public/get_instruments', {})).result);
  const http = await (await fetch(`${app.url}/v1/instruments`)).text();
  return { rpc, http };
}

describe("the instruments call's cost is flat as settled rounds grow (design.md section 16)", () => {
  it('few rounds, then 500 settled rounds more: no sort per call, the same cached list, the same answer, and no slower', async () => {
    const few = measure(2000);
    const fewAnswers = await answers();
    expect(JSON.parse(fewAnswers.http).instruments).toHaveLength(3 * STRIKES.length * 2);

    // 500 expirations of another asset, one a day, listed through the admin API, then settled.
    const first = expirationIn(5);
    for (let i = 0; i < HISTORY; i += 20) {
      await Promise.all(Array.from({ length: 20 }, (_, k) => listRound(app, 'HIST', first + (i + k) * DAY, STRIKES)));
    }
    const db = app.app.get(Database);
    await db.exec(`UPDATE instruments SET settled = true, settlement_price = 150000000 WHERE asset = 'HIST'`);
    await db.exec(`UPDATE expirations SET settled = true, settlement_price = 150000000, settled_at = now() WHERE asset = 'HIST'`);
    for (let i = 0; i < HISTORY; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, k) => view().changed({ asset: 'HIST', expiry: first + (i + k) * DAY })));
    }
    expect(view().list({ asset: 'HIST', includeSettled: true })).toHaveLength(HISTORY * STRIKES.length * 2);

    const many = measure(2000);
    expect(many.sorts).toBe(0);
    expect(few.sorts).toBe(0);
    expect(many.same).toBe(true);
    // The answers did not change: settled rounds are not listed by default.
    expect(await answers()).toEqual(fewAnswers);
    // Coarse: a scan of every instrument ever listed per call (10,000 here) would be far above this.
    expect(many.ms).toBeLessThan(few.ms * 5 + 30);
    // The lists by asset and all-with-settled are made once per change too.
    expect(measure(500, { asset: 'HIST', includeSettled: true })).toMatchObject({ sorts: 0, same: true });
    expect(measure(500, { includeSettled: true })).toMatchObject({ sorts: 0, same: true });
  }, 300_000);

  it('the cache is rebuilt when the view changes, once', async () => {
    const before = view().list({ asset: 'FEW' });
    const res = await new Http(app.url).admin().post('/v1/admin/instruments/pause-by-expiration', { expiration: expirationIn(1), asset: 'FEW' });
    expect(res.status).toBe(200);
    const after = view().list({ asset: 'FEW' });
    expect(after).not.toBe(before);
    expect(after.filter((i) => i.paused)).toHaveLength(STRIKES.length * 2);
    expect(view().list({ asset: 'FEW' })).toBe(after);
    const listed = JSON.parse(await (await fetch(`${app.url}/v1/instruments?asset=FEW`)).text()).instruments;
    expect(listed.filter((i: { paused: boolean }) => i.paused)).toHaveLength(STRIKES.length * 2);
  });
});
