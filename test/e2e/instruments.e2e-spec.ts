import { parseRfqUnsigned } from '@legwork/protocol';
import { Database } from '../../src/common/database/database';
import { JobRunner } from '../../src/common/jobs/job-runner';
import { QUEUES, jobIds } from '../../src/common/jobs/queues';
import { InstrumentsService } from '../../src/modules/instruments/instruments.service';
import { loadVector } from '../vectors';
import { Http, RpcClient } from './clients';
import { DAY, createAccount, expirationIn, sessionToken, symbolOf, until } from './factories';
import { Environment, type TestApp } from './harness';

describe('instruments: create, pause, resume, list', () => {
  let env: Environment;
  let app: TestApp;
  let anon: Http;
  let admin: Http;
  let ws: RpcClient;

  beforeAll(async () => {
    env = await Environment.create();
    app = await env.start();
    anon = new Http(app.url);
    admin = anon.admin();
    ws = await RpcClient.connect(app.wsUrl);
  });
  afterAll(async () => {
    await ws?.close();
    await app?.close();
    await env?.destroy();
  });

  const create = (body: unknown, as = admin) => as.post('/v1/admin/create-instruments', body);
  const view = () => app.app.get(InstrumentsService);
  const dbRows = async (sql: string, params: unknown[] = []) => app.app.get(Database).rows<Record<string, unknown>>(sql, params);

  describe('create-instruments', () => {
    const E = expirationIn(20);
    const grids: Array<{ spot_price: string; instruments: number; first: string; last: string }> = loadVector('instruments.json').strike_grids;

    grids.forEach((v, i) => {
      const asset = `GRID${'ABCDEFGH'[i]}`;
      it(`lists the default grid for spot ${v.spot_price}: created ${v.instruments}, strikes ${v.first} .. ${v.last}`, async () => {
        const res = await create({ asset, expiration: E, spot_price: v.spot_price });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ asset, expiration: E, created: v.instruments });

        const listed = await anon.get(`/v1/instruments?asset=${asset}`);
        expect(listed.status).toBe(200);
        const list = listed.body.instruments;
        expect(list).toHaveLength(v.instruments);
        expect(list[0]).toEqual({
          symbol: symbolOf(asset, E, v.first, 'call'),
          asset,
          strike: v.first,
          kind: 'call',
          expiry: E,
          paused: false,
          settled: false,
          settlement_price: null,
          created_at: expect.any(Number),
        });
        expect(list[1]).toMatchObject({ strike: v.first, kind: 'put' });
        expect(list[list.length - 1]).toMatchObject({ symbol: symbolOf(asset, E, v.last, 'put'), strike: v.last, kind: 'put' });
        expect(Math.abs(list[0].created_at - Date.now() / 1000)).toBeLessThan(60);
      });
    });

    it('takes the spot price as a JSON number too (spot 150 gives 122)', async () => {
      const res = await create({ asset: 'NUM', expiration: E, spot_price: 150 });
      expect(res.body).toEqual({ asset: 'NUM', expiration: E, created: 122 });
    });

    it('is idempotent: the same command again creates 0', async () => {
      const body = { asset: 'IDEM', expiration: E, spot_price: '150' };
      expect((await create(body)).body.created).toBe(122);
      expect((await create(body)).body).toEqual({ asset: 'IDEM', expiration: E, created: 0 });
      expect((await create({ ...body, strikes: ['150', '400'] })).body.created).toBe(2); // 150 exists, 400 is new
      const [{ n }] = await dbRows(`SELECT count(*)::int AS n FROM instruments WHERE asset = 'IDEM'`);
      expect(n).toBe(124);
    });

    it('schedules the settlement of the expiration', async () => {
      const jobs = app.app.get(JobRunner);
      const spy = jest.spyOn(jobs, 'enqueue');
      try {
        const before = Math.floor(Date.now() / 1000);
        await create({ asset: 'SETL', expiration: E, spot_price: '10' });
        const after = Math.floor(Date.now() / 1000);
        expect(spy).toHaveBeenCalledWith(
          QUEUES.settlement,
          { asset: 'SETL', expiration: E },
          { delayMs: expect.any(Number), jobId: jobIds.settlement('SETL', E) },
        );
        const delayMs = spy.mock.calls[0][2]!.delayMs!;
        expect(delayMs).toBeLessThanOrEqual((E - before) * 1000);
        expect(delayMs).toBeGreaterThanOrEqual((E - after) * 1000);
      } finally {
        spy.mockRestore();
      }
    });

    it('writes the expiration row with its UTC date', async () => {
      const rows = await dbRows(`SELECT asset, expiry::text AS expiry, utc_date::text AS utc_date FROM expirations WHERE asset = 'GRIDA'`);
      expect(rows).toEqual([{ asset: 'GRIDA', expiry: String(E), utc_date: new Date(E * 1000).toISOString().slice(0, 10) }]);
    });

    it('refuses a second expiration on the same UTC date of an asset: 409', async () => {
      const midnight = E - 8 * 3600;
      for (const other of [E + 3600, midnight, midnight + DAY - 1]) {
        const res = await create({ asset: 'GRIDA', expiration: other, spot_price: '150' });
        expect(res.status).toBe(409);
        expect(res.body).toEqual({ error: expect.stringContaining('GRIDA') });
      }
      // Another date of that asset, or another asset on that date, is fine.
      expect((await create({ asset: 'GRIDA', expiration: E + DAY, spot_price: '150' })).status).toBe(200);
      expect((await create({ asset: 'OTHER', expiration: E + 3600, spot_price: '150' })).status).toBe(200);
    });

    it.each([
      ['a missing asset', { expiration: E, spot_price: '150' }, /asset/],
      ['a bad asset', { asset: 'sol', expiration: E, spot_price: '150' }, /asset must match/],
      ['an asset too long', { asset: 'ABCDEFGHI', expiration: E, spot_price: '150' }, /asset/],
      ['a missing expiration', { asset: 'BAD', spot_price: '150' }, /expiration/],
      ['a past expiration', { asset: 'BAD', expiration: Math.floor(Date.now() / 1000) - 10, spot_price: '150' }, /expiration must be in the future/],
      ['an expiration as text', { asset: 'BAD', expiration: String(E), spot_price: '150' }, /expiration/],
      ['a fractional expiration', { asset: 'BAD', expiration: E + 0.5, spot_price: '150' }, /expiration/],
      ['a missing spot price', { asset: 'BAD', expiration: E }, /spot_price/],
      ['spot 0', { asset: 'BAD', expiration: E, spot_price: 0 }, /spot_price must be greater than 0/],
      ['spot "0"', { asset: 'BAD', expiration: E, spot_price: '0' }, /spot_price must be greater than 0/],
      ['spot "1e3"', { asset: 'BAD', expiration: E, spot_price: '1e3' }, /spot_price/],
      ['spot -150', { asset: 'BAD', expiration: E, spot_price: -150 }, /spot_price/],
      ['spot with 9 decimals', { asset: 'BAD', expiration: E, spot_price: '1.000000001' }, /spot_price/],
      ['spot as a boolean', { asset: 'BAD', expiration: E, spot_price: true }, /spot_price/],
      ['an unknown field', { asset: 'BAD', expiration: E, spot_price: '150', color: 'red' }, /color/],
      ['strikes not an array', { asset: 'BAD', expiration: E, spot_price: '150', strikes: '150' }, /strikes/],
      ['a strike as a number', { asset: 'BAD', expiration: E, spot_price: '150', strikes: [150] }, /strikes/],
      ['a strike not a decimal', { asset: 'BAD', expiration: E, spot_price: '150', strikes: ['abc'] }, /strikes\[0\]/],
      ['a zero strike', { asset: 'BAD', expiration: E, spot_price: '150', strikes: ['0'] }, /strikes\[0\] must be greater than 0/],
    ])('refuses %s: 400 naming the field', async (_label, body, message) => {
      const res = await create(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.stringMatching(message) });
    });

    it('refuses a body that is not JSON: 400', async () => {
      const res = await admin.request('POST', '/v1/admin/create-instruments', '{"asset":', { 'content-type': 'application/json' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.any(String) });
    });

    it('created nothing for the refused commands', async () => {
      const rows = await dbRows(`SELECT 1 FROM expirations WHERE asset = 'BAD'`);
      expect(rows).toHaveLength(0);
    });
  });

  describe('admin access', () => {
    const E = expirationIn(21);
    const body = (asset: string) => ({ asset, expiration: E, spot_price: '150' });

    it('no token: 401', async () => {
      expect(await create(body('AUTHA'), anon)).toEqual({ status: 401, body: { error: expect.any(String) } });
      expect((await anon.post('/v1/admin/instruments/pause-by-expiration', { expiration: E })).status).toBe(401);
      expect((await anon.post('/v1/admin/instruments/resume-by-expiration', { expiration: E })).status).toBe(401);
    });

    it('a bad token: 401', async () => {
      expect((await create(body('AUTHA'), anon.as('not-a-token'))).status).toBe(401);
      expect((await create(body('AUTHA'), anon.as(`${'x'.repeat(40)}`))).status).toBe(401);
    });

    it('a session token without admin rights: 403', async () => {
      const trader = anon.as(sessionToken({ account_id: 7, roles: ['taker', 'quoter'] }));
      expect(await create(body('AUTHA'), trader)).toEqual({ status: 403, body: { error: expect.any(String) } });
      expect((await trader.post('/v1/admin/instruments/pause-by-expiration', { expiration: E })).status).toBe(403);
      // The scope of another command, or the read scope, is not enough.
      expect((await create(body('AUTHA'), anon.as(sessionToken({ scope: 'admin:pause-by-expiration' })))).status).toBe(403);
      expect((await create(body('AUTHA'), anon.as(sessionToken({ scope: 'admin:read' })))).status).toBe(403);
      expect(await dbRows(`SELECT 1 FROM instruments WHERE asset = 'AUTHA'`)).toHaveLength(0);
    });

    it('the admin token, role admin, scope admin:* or admin:create-instruments: 200', async () => {
      expect((await create(body('AUTHA'))).status).toBe(200);
      // Role admin counts as the account holds it now (docs/spec/design.md section 10), not as the token says.
      const { accountId } = await createAccount(app, ['admin']);
      expect((await create(body('AUTHB'), anon.as(sessionToken({ account_id: accountId, roles: ['admin'], scope: 'admin:*' })))).status).toBe(200);
      expect((await create(body('AUTHC'), anon.as(sessionToken({ scope: 'admin:*' })))).status).toBe(200);
      expect((await create(body('AUTHD'), anon.as(sessionToken({ scope: 'admin:create-instruments' })))).status).toBe(200);
      const pauser = anon.as(sessionToken({ scope: 'admin:pause-by-expiration' }));
      expect((await pauser.post('/v1/admin/instruments/pause-by-expiration', { expiration: E, asset: 'AUTHD' })).status).toBe(200);
      expect((await pauser.post('/v1/admin/instruments/resume-by-expiration', { expiration: E, asset: 'AUTHD' })).status).toBe(403);
      const resumer = anon.as(sessionToken({ scope: 'admin:resume-by-expiration' }));
      expect((await resumer.post('/v1/admin/instruments/resume-by-expiration', { expiration: E, asset: 'AUTHD' })).status).toBe(200);
    });
  });

  describe('pause and resume by expiration', () => {
    const E = expirationIn(22);
    const pause = (body: unknown) => admin.post('/v1/admin/instruments/pause-by-expiration', body);
    const resume = (body: unknown) => admin.post('/v1/admin/instruments/resume-by-expiration', body);
    const dbPaused = async (asset: string, expiry: number) =>
      (await dbRows(`SELECT symbol, paused FROM instruments WHERE asset = $1 AND expiry = $2 ORDER BY symbol`, [asset, expiry])) as Array<{
        symbol: string;
        paused: boolean;
      }>;
    const rpcList = async (params: Record<string, unknown>) => (await ws.result('public/get_instruments', params)).instruments as any[];

    it('pauses a round of one asset in the database and in the engine', async () => {
      expect((await create({ asset: 'SOL', expiration: E, spot_price: '150' })).body.created).toBe(122);
      expect((await create({ asset: 'KEEP', expiration: E, spot_price: '10' })).body.created).toBe(82);

      const res = await pause({ expiration: E, asset: 'SOL' });
      expect(res).toEqual({ status: 200, body: { expiration: E, asset: 'SOL', paused: true, instruments: 122 } });

      expect((await dbPaused('SOL', E)).every((r) => r.paused)).toBe(true);
      expect((await dbPaused('KEEP', E)).some((r) => r.paused)).toBe(false);
      const sol = symbolOf('SOL', E, '150', 'call');
      expect(view().get(sol)?.paused).toBe(true);
      expect(view().get(symbolOf('KEEP', E, '10', 'put'))?.paused).toBe(false);
      const listed = await rpcList({ asset: 'SOL', expiry: E });
      expect(listed).toHaveLength(122);
      expect(listed.every((i) => i.paused === true)).toBe(true);
    });

    it('new instruments of a paused round are paused, durably and in the engine', async () => {
      const res = await create({ asset: 'SOL', expiration: E, spot_price: '150', strikes: ['300', '310.5'] });
      expect(res.body).toEqual({ asset: 'SOL', expiration: E, created: 4 });
      const fresh = [
        symbolOf('SOL', E, '300', 'call'),
        symbolOf('SOL', E, '300', 'put'),
        symbolOf('SOL', E, '310.5', 'call'),
        symbolOf('SOL', E, '310.5', 'put'),
      ];

      const rows = await dbRows(`SELECT symbol, paused FROM instruments WHERE symbol = ANY($1::text[]) ORDER BY symbol`, [fresh]);
      expect(rows).toHaveLength(4);
      expect(rows.every((r) => r.paused === true)).toBe(true);
      for (const symbol of fresh) expect(view().get(symbol)).toMatchObject({ symbol, paused: true, settled: false, expiry: E });

      const listed = await rpcList({ asset: 'SOL', expiry: E });
      expect(listed).toHaveLength(126);
      expect(listed.filter((i) => fresh.includes(i.symbol)).map((i) => i.paused)).toEqual([true, true, true, true]);
      // The listing order: by strike, the call before the put; the new strikes last.
      expect(listed.slice(-4).map((i) => i.symbol)).toEqual(fresh);
    });

    it('resume undoes the pause, and later instruments are open', async () => {
      const res = await resume({ expiration: E, asset: 'SOL' });
      expect(res).toEqual({ status: 200, body: { expiration: E, asset: 'SOL', paused: false, instruments: 126 } });
      expect((await dbPaused('SOL', E)).some((r) => r.paused)).toBe(false);
      expect(view().get(symbolOf('SOL', E, '300', 'call'))?.paused).toBe(false);
      expect((await rpcList({ asset: 'SOL', expiry: E })).some((i) => i.paused)).toBe(false);

      expect((await create({ asset: 'SOL', expiration: E, spot_price: '150', strikes: ['320'] })).body.created).toBe(2);
      expect(view().get(symbolOf('SOL', E, '320', 'put'))?.paused).toBe(false);
    });

    it('without an asset, pauses every asset at the expiration; a new asset there is paused too', async () => {
      const E2 = expirationIn(23);
      expect((await create({ asset: 'BTC', expiration: E2, spot_price: '100000' })).body.created).toBe(82);
      expect(await pause({ expiration: E2 })).toEqual({ status: 200, body: { expiration: E2, asset: null, paused: true, instruments: 82 } });

      expect((await create({ asset: 'ETH', expiration: E2, spot_price: '3000' })).body.created).toBe(122);
      expect((await dbPaused('ETH', E2)).every((r) => r.paused)).toBe(true);
      expect(view().get(symbolOf('ETH', E2, '3000', 'call'))?.paused).toBe(true);

      expect(await resume({ expiration: E2 })).toEqual({ status: 200, body: { expiration: E2, asset: null, paused: false, instruments: 204 } });
      expect((await rpcList({ expiry: E2 })).some((i) => i.paused)).toBe(false);
    });

    it('a pause racing creations never leaves an open instrument in the paused round', async () => {
      const E3 = expirationIn(26);
      expect((await create({ asset: 'RACE', expiration: E3, spot_price: '10' })).body.created).toBe(82);
      const creations = Array.from({ length: 12 }, (_, i) =>
        create({ asset: i % 2 ? 'RACE' : 'RACEB', expiration: E3, spot_price: '10', strikes: [String(100 + i)] }),
      );
      const [paused, ...created] = await Promise.all([pause({ expiration: E3 }), ...creations]);
      expect(paused.status).toBe(200);
      expect(created.map((r) => r.status)).toEqual(Array(12).fill(200));
      const open = await dbRows(`SELECT symbol FROM instruments WHERE expiry = $1 AND NOT paused`, [E3]);
      expect(open).toEqual([]);
      expect(
        view()
          .list({ expiry: E3 })
          .filter((i) => !i.paused),
      ).toEqual([]);
      expect(view().list({ expiry: E3 })).toHaveLength(82 + 24);
    });

    it('a round with no instruments matches 0', async () => {
      expect(await pause({ expiration: expirationIn(40), asset: 'NONE' })).toEqual({
        status: 200,
        body: { expiration: expirationIn(40), asset: 'NONE', paused: true, instruments: 0 },
      });
    });

    it.each([
      ['a missing expiration', {}, /expiration/],
      ['an expiration as text', { expiration: '1' }, /expiration/],
      ['a bad asset', { expiration: E, asset: 'sol' }, /asset must match/],
      ['an unknown field', { expiration: E, paused: true }, /paused/],
    ])('refuses %s: 400', async (_label, body, message) => {
      const res = await pause(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.stringMatching(message) });
    });
  });

  describe('listing', () => {
    const E = expirationIn(24);

    beforeAll(async () => {
      await create({ asset: 'LSTB', expiration: E, spot_price: '1' });
      await create({ asset: 'LSTA', expiration: E + DAY, spot_price: '1' });
      await create({ asset: 'LSTA', expiration: E, spot_price: '1' });
    });

    it('GET /v1/instruments is public, ordered by asset, expiry, strike, call before put', async () => {
      const res = await anon.get('/v1/instruments');
      expect(res.status).toBe(200);
      const list: any[] = res.body.instruments.filter((i: any) => i.asset.startsWith('LST'));
      expect(list).toHaveLength(3 * 82);
      const key = (i: any) => [i.asset, String(i.expiry).padStart(12, '0'), parseRfqUnsigned(i.strike).toString().padStart(20, '0'), i.kind].join('|');
      expect(list.map(key)).toEqual([...list].map(key).sort());
      expect(list[0]).toMatchObject({ asset: 'LSTA', expiry: E, strike: '0.5', kind: 'call' });
      expect(list[1]).toMatchObject({ asset: 'LSTA', expiry: E, strike: '0.5', kind: 'put' });
      expect(list[82]).toMatchObject({ asset: 'LSTA', expiry: E + DAY });
      expect(list[164]).toMatchObject({ asset: 'LSTB', expiry: E });
    });

    it('filters by asset and expiry, over HTTP and JSON-RPC alike', async () => {
      const http = await anon.get(`/v1/instruments?asset=LSTA&expiry=${E}&include_settled=false`);
      expect(http.body.instruments).toHaveLength(82);
      const rpc = await ws.result('public/get_instruments', { asset: 'LSTA', expiry: E, include_settled: true });
      expect(rpc.instruments.map((i: any) => i.symbol)).toEqual(http.body.instruments.map((i: any) => i.symbol));
      expect(rpc.instruments[0]).toEqual({ ...http.body.instruments[0], mark_price: null, iv: null });
      expect((await ws.result('public/get_instruments', { asset: 'NOPE' })).instruments).toEqual([]);
    });

    it('get_instruments without params lists every open instrument', async () => {
      const reply = await ws.call('public/get_instruments');
      expect(reply.result.instruments.length).toBeGreaterThanOrEqual(3 * 82);
    });

    it('refuses unknown or ill-typed params: 400 over HTTP, -32602 over JSON-RPC', async () => {
      for (const q of ['?assets=LSTA', '?asset=lsta', '?expiry=soon', '?include_settled=yes']) {
        const res = await anon.get(`/v1/instruments${q}`);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ error: expect.any(String) });
      }
      for (const params of [{ assets: 'LSTA' }, { asset: 5 }, { expiry: '1' }, { include_settled: 'true' }]) {
        const reply = await ws.call('public/get_instruments', params);
        expect(reply.error).toEqual({ code: -32602, message: expect.any(String), data: { error: 'INVALID_PARAMS', message: expect.any(String) } });
      }
      expect((await ws.call('public/get_instruments', [])).error.code).toBe(-32602);
    });
  });

  describe('the engine view on other and new instances', () => {
    const E = expirationIn(25);

    it('another instance hears a change, and a new instance loads the view from the database', async () => {
      expect((await create({ asset: 'MULTI', expiration: E, spot_price: '150' })).body.created).toBe(122);
      const symbol = symbolOf('MULTI', E, '150', 'call');
      if (process.env.DATABASE_URL && process.env.REDIS_URL) {
        // Production shape: two instances on one PostgreSQL and Redis.
        const other = await env.start();
        try {
          const otherView = other.app.get(InstrumentsService);
          expect(otherView.get(symbol)?.paused).toBe(false); // loaded at start
          await admin.post('/v1/admin/instruments/pause-by-expiration', { expiration: E, asset: 'MULTI' });
          await until(() => otherView.get(symbol)?.paused === true);
          await new Http(other.url).admin().post('/v1/admin/create-instruments', { asset: 'MULTI', expiration: E, spot_price: '150', strikes: ['500'] });
          await until(() => view().get(symbolOf('MULTI', E, '500', 'put'))?.paused === true);
        } finally {
          await other.close();
        }
      } else {
        // Embedded: one instance at a time; a restart reloads the view from the database.
        await admin.post('/v1/admin/instruments/pause-by-expiration', { expiration: E, asset: 'MULTI' });
        await ws.close();
        await app.close();
        app = await env.start();
        admin = new Http(app.url).admin();
        anon = new Http(app.url);
        ws = await RpcClient.connect(app.wsUrl);
        expect(view().get(symbol)).toMatchObject({ symbol, paused: true, strike: 150_000_000n, kind: 'call', expiry: E });
      }
    });
  });
});
