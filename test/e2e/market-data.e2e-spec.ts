import { formatRfq, signingDomain } from '@legwork/protocol';
import { Database } from '../../src/common/database/database';
import { RfqError } from '../../src/common/errors/app-error';
import { markPrice } from '../../src/modules/market-data/domain/black76';
import { MarketDataService } from '../../src/modules/market-data/market-data.service';
import { LegworkClient } from '../../sdk/src';
import { Http, RpcClient, freshIp } from './clients';
import { expirationIn, sessionToken, symbolOf, until } from './factories';
import { Environment, type TestApp } from './harness';

const nowSeconds = () => Math.floor(Date.now() / 1000);

function rfqErrorOf(fn: () => unknown): RfqError {
  try {
    fn();
  } catch (error) {
    if (error instanceof RfqError) return error;
    throw error;
  }
  throw new Error('expected an RfqError');
}

describe('market data: index prices, IVs, marks, market config', () => {
  const E = expirationIn(30);
  const SOL_CALL = symbolOf('SOL', E, '150', 'call');
  const SOL_PUT = symbolOf('SOL', E, '140', 'put');
  const BTC_CALL = symbolOf('BTC', E, '100000', 'call');
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
    expect((await admin.post('/v1/admin/create-instruments', { asset: 'SOL', expiration: E, spot_price: '150' })).body.created).toBe(122);
    expect((await admin.post('/v1/admin/create-instruments', { asset: 'BTC', expiration: E, spot_price: '100000' })).body.created).toBe(82);
  });
  afterAll(async () => {
    await ws?.close();
    await app?.close();
    await env?.destroy();
  });

  const post = (body: unknown, as = admin) => as.post('/v1/admin/market-data', body);
  const market = () => app.app.get(MarketDataService);
  const instruments = async (params: Record<string, unknown>) => (await ws.result('public/get_instruments', params)).instruments as any[];

  it('before any market data: no marks, no IVs, no assets in the config', async () => {
    const list = await instruments({ asset: 'SOL' });
    expect(list).toHaveLength(122);
    expect(list.every((i) => i.mark_price === null && i.iv === null)).toBe(true);
    expect((await ws.result('public/get_market_config')).assets).toEqual([]);
    expect(market().mark(SOL_CALL, nowSeconds())).toBeNull();
  });

  describe('POST /v1/admin/market-data', () => {
    it('no token: 401; a token without admin:market-data: 403', async () => {
      expect(await post({ asset: 'SOL', index_price: '150' }, anon)).toEqual({ status: 401, body: { error: expect.any(String) } });
      expect((await post({ asset: 'SOL', index_price: '150' }, anon.as(sessionToken({ account_id: 1, roles: ['quoter'] })))).status).toBe(403);
      expect((await post({ asset: 'SOL', index_price: '150' }, anon.as(sessionToken({ scope: 'admin:create-instruments' })))).status).toBe(403);
      expect((await post({ asset: 'SOL', index_price: '150' }, anon.as(sessionToken({ scope: 'admin:market-data' })))).status).toBe(200);
    });

    it('sets the index and a flat IV for every instrument of the asset', async () => {
      const before = nowSeconds();
      const res = await post({ asset: 'SOL', index_price: 150, iv: '0.8' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ asset: 'SOL', index_price: '150.00000000', updated_at: expect.any(Number), instruments: 122 });
      expect(res.body.updated_at).toBeGreaterThanOrEqual(before);
      expect(res.body.updated_at).toBeLessThanOrEqual(nowSeconds());

      const rows = await app.app
        .get(Database)
        .rows<{ n: number; lo: string; hi: string }>(
          `SELECT count(*)::int AS n, min(iv)::text AS lo, max(iv)::text AS hi FROM instrument_ivs v JOIN instruments i USING (symbol) WHERE i.asset = 'SOL'`,
        );
      expect(rows).toEqual([{ n: 122, lo: '800000', hi: '800000' }]);
      const [index] = await app.app.get(Database).rows<{ p: string }>(`SELECT index_price::text AS p FROM index_prices WHERE asset = 'SOL'`);
      expect(index.p).toBe('150000000');
    });

    it('get_instruments then shows the Black-76 mark and the IV of every instrument', async () => {
      const t0 = nowSeconds();
      const list = await instruments({ asset: 'SOL', expiry: E });
      const t1 = nowSeconds();
      expect(list.every((i) => typeof i.mark_price === 'string' && i.iv === '0.8')).toBe(true);
      const call = list.find((i) => i.symbol === SOL_CALL);
      const expected = new Set<string>();
      for (let t = t0; t <= t1; t++) {
        expected.add(formatRfq(markPrice({ index: 150_000_000n, strike: 150_000_000n, kind: 'call', iv: 800_000n, secondsToExpiry: E - t })));
      }
      expect(expected).toContain(call.mark_price);
      expect(Number(call.mark_price)).toBeGreaterThan(5); // an at-the-money month at 80 %: about 11
      // BTC has no market data yet.
      expect((await instruments({ asset: 'BTC' })).every((i) => i.mark_price === null && i.iv === null)).toBe(true);
    });

    it('the service marks exactly as markPrice does', () => {
      const now = nowSeconds();
      expect(market().mark(SOL_PUT, now)).toBe(markPrice({ index: 150_000_000n, strike: 140_000_000n, kind: 'put', iv: 800_000n, secondsToExpiry: E - now }));
      expect(market().index('SOL')).toEqual({ asset: 'SOL', price: 150_000_000n, updatedAt: expect.any(Number) });
      expect(market().index('BTC')).toBeNull();
    });

    it('ivs set one instrument over the flat IV', async () => {
      const res = await post({ asset: 'SOL', index_price: '151.5', ivs: { [SOL_CALL]: '1.2', [SOL_PUT]: 0.55 } });
      expect(res.body).toEqual({ asset: 'SOL', index_price: '151.50000000', updated_at: expect.any(Number), instruments: 2 });
      const list = await instruments({ asset: 'SOL' });
      expect(list.find((i) => i.symbol === SOL_CALL).iv).toBe('1.2');
      expect(list.find((i) => i.symbol === SOL_PUT).iv).toBe('0.55');
      expect(list.filter((i) => i.iv === '0.8')).toHaveLength(120);
    });

    it('iv and ivs together: the flat one first, then the overrides', async () => {
      const res = await post({ asset: 'BTC', index_price: '100000.5', iv: 0.6, ivs: { [BTC_CALL]: '0.7' } });
      expect(res.body).toMatchObject({ asset: 'BTC', index_price: '100000.50000000', instruments: 82 });
      const list = await instruments({ asset: 'BTC' });
      expect(list.find((i) => i.symbol === BTC_CALL).iv).toBe('0.7');
      expect(list.filter((i) => i.iv === '0.6')).toHaveLength(81);
    });

    it('an asset with no instruments: 404', async () => {
      expect(await post({ asset: 'DOGE', index_price: '0.1', iv: '1' })).toEqual({ status: 404, body: { error: expect.stringContaining('DOGE') } });
    });

    it.each([
      ['a missing asset', { index_price: '150' }, /asset/],
      ['a bad asset', { asset: 'sol', index_price: '150' }, /asset must match/],
      ['a missing index price', { asset: 'SOL' }, /index_price/],
      ['index 0', { asset: 'SOL', index_price: 0 }, /index_price must be greater than 0/],
      ['index "1e3"', { asset: 'SOL', index_price: '1e3' }, /index_price/],
      ['index -1', { asset: 'SOL', index_price: '-1' }, /index_price/],
      ['iv 0', { asset: 'SOL', index_price: '150', iv: '0' }, /iv must be greater than 0/],
      ['iv 11', { asset: 'SOL', index_price: '150', iv: 11 }, /iv must be at most 10/],
      ['iv "80%"', { asset: 'SOL', index_price: '150', iv: '80%' }, /iv/],
      ['ivs an array', { asset: 'SOL', index_price: '150', ivs: ['0.8'] }, /ivs/],
      ['an iv in ivs not a decimal', { asset: 'SOL', index_price: '150', ivs: { [SOL_CALL]: 'high' } }, new RegExp(`ivs\\.${SOL_CALL}`)],
      ['an unknown symbol in ivs', { asset: 'SOL', index_price: '150', ivs: { 'SOL-01JAN30-1-C': '0.8' } }, /SOL-01JAN30-1-C/],
      [
        'a symbol of another asset in ivs',
        { asset: 'SOL', index_price: '150', ivs: { [BTC_CALL]: '0.8' } },
        new RegExp(`${BTC_CALL}: not an instrument of SOL`),
      ],
      ['an unknown field', { asset: 'SOL', index_price: '150', spot: '1' }, /spot/],
    ])('refuses %s: 400 naming it, and changes nothing', async (_label, body, message) => {
      const before = market().index('SOL');
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.stringMatching(message) });
      expect(market().index('SOL')).toEqual(before);
    });
  });

  describe('freshness', () => {
    it('requireFresh gives the index and marks of fresh legs', () => {
      const now = nowSeconds();
      const fresh = market().requireFresh([SOL_CALL, SOL_PUT], now);
      expect(fresh.index).toEqual(new Map([['SOL', 151_500_000n]]));
      expect(fresh.marks).toEqual(
        new Map([
          [SOL_CALL, markPrice({ index: 151_500_000n, strike: 150_000_000n, kind: 'call', iv: 1_200_000n, secondsToExpiry: E - now })],
          [SOL_PUT, markPrice({ index: 151_500_000n, strike: 140_000_000n, kind: 'put', iv: 550_000n, secondsToExpiry: E - now })],
        ]),
      );
    });

    it('stale (older than MARKET_DATA_MAX_AGE_SECONDS) or missing data is RFQ_NOT_READY, retryable', () => {
      const updatedAt = market().index('SOL')!.updatedAt;
      expect(() => market().requireFresh([SOL_CALL], updatedAt + 30)).not.toThrow();
      const stale = rfqErrorOf(() => market().requireFresh([SOL_CALL], updatedAt + 31));
      expect(stale.code).toBe('RFQ_NOT_READY');
      expect(stale.retryable).toBe(true);
      expect(rfqErrorOf(() => market().requireFresh(['SOL-01JAN30-1-C'], nowSeconds())).code).toBe('RFQ_NOT_READY');
    });

    it('an instrument listed after the last IV update has no IV: RFQ_NOT_READY, mark null', async () => {
      expect((await admin.post('/v1/admin/create-instruments', { asset: 'SOL', expiration: E, spot_price: '150', strikes: ['500'] })).body.created).toBe(2);
      const late = symbolOf('SOL', E, '500', 'call');
      expect(rfqErrorOf(() => market().requireFresh([SOL_CALL, late], nowSeconds())).code).toBe('RFQ_NOT_READY');
      expect((await instruments({ asset: 'SOL' })).find((i) => i.symbol === late)).toMatchObject({ mark_price: null, iv: null });
    });
  });

  describe('public/get_market_config', () => {
    it('has exactly the shape of design.md section 4', async () => {
      const config = await ws.result('public/get_market_config', {});
      expect(config).toEqual({
        service_name: 'Legwork',
        quote_domain: Buffer.from(signingDomain('Legwork')).toString('hex'),
        settlement_currency: 'USDC',
        decimals: 6,
        payload_versions: { quote: 1, accept: 1 },
        assets: [
          { asset: 'BTC', index_price: '100000.5', index_updated_at: expect.any(Number) },
          { asset: 'SOL', index_price: '151.5', index_updated_at: expect.any(Number) },
        ],
        rfq: {
          enabled: true,
          max_legs: 13,
          max_open_rfqs: 50,
          rfq_ttl_seconds: 120,
          max_quote_lifetime_seconds: 3600,
          taker_fee_bps: 3,
          trade_fee_cap_bps: 1250,
          taker_fee_tolerance_bps: 100,
          market_data_max_age_seconds: 30,
        },
      });
      expect(config.quote_domain).toMatch(/^[0-9a-f]{64}$/);
      expect(Math.abs(config.assets[1].index_updated_at - nowSeconds())).toBeLessThan(60);
    });

    it('takes absent params, and refuses unknown ones with -32602', async () => {
      expect((await ws.call('public/get_market_config')).result.service_name).toBe('Legwork');
      expect((await ws.call('public/get_market_config', { asset: 'SOL' })).error).toMatchObject({ code: -32602, data: { error: 'INVALID_PARAMS' } });
    });
  });

  describe('public/get_time', () => {
    it("answers the server's clock in unix milliseconds, without sign-in, typed for the SDK by the declaration", async () => {
      const before = Date.now();
      const client = await LegworkClient.connect(app.wsUrl, { wsOptions: { headers: { 'x-forwarded-for': freshIp() } } });
      try {
        const { time_ms } = await client.call('public/get_time', {});
        expect(Number.isSafeInteger(time_ms)).toBe(true);
        expect(time_ms).toBeGreaterThanOrEqual(before);
        expect(time_ms).toBeLessThanOrEqual(Date.now());
      } finally {
        await client.close();
      }
    });

    it('takes absent params, and refuses unknown ones with -32602', async () => {
      expect((await ws.call('public/get_time')).result.time_ms).toEqual(expect.any(Number));
      expect((await ws.call('public/get_time', { tz: 'UTC' })).error).toMatchObject({
        code: -32602,
        data: { error: 'INVALID_PARAMS', message: 'unknown param tz' },
      });
    });
  });

  describe('other and new instances', () => {
    it('hear market data changes, or load them at start', async () => {
      if (process.env.DATABASE_URL && process.env.REDIS_URL) {
        const other = await env.start();
        try {
          const otherMarket = other.app.get(MarketDataService);
          expect(otherMarket.index('SOL')?.price).toBe(151_500_000n); // loaded at start
          await post({ asset: 'SOL', index_price: '152', iv: '0.9' });
          await until(() => otherMarket.index('SOL')?.price === 152_000_000n && otherMarket.iv(SOL_CALL)?.value === 900_000n);
          const otherWs = await RpcClient.connect(other.wsUrl);
          try {
            const list = (await otherWs.result('public/get_instruments', { asset: 'SOL' })).instruments as any[];
            expect(list.find((i) => i.symbol === SOL_CALL).iv).toBe('0.9');
          } finally {
            await otherWs.close();
          }
        } finally {
          await other.close();
        }
      } else {
        await post({ asset: 'SOL', index_price: '152', iv: '0.9' });
        await ws.close();
        await app.close();
        app = await env.start();
        ws = await RpcClient.connect(app.wsUrl);
        expect(market().index('SOL')?.price).toBe(152_000_000n);
        expect(market().iv(SOL_CALL)?.value).toBe(900_000n);
        expect((await instruments({ asset: 'SOL' })).find((i) => i.symbol === SOL_CALL).iv).toBe('0.9');
      }
    });
  });
});
