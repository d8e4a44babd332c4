/**
 * Property test of the makers' limits (docs/spec/design.md section 15) over the real API: a seeded
 * random walk of responds (some short-lived, some far from the mark), accepts and fills, quote
 * expiries, index and IV moves and limit changes (the maker's and the operator's). After every
 * step rfq.maker.get_limits' usage equals a recomputation from the database (the live quotes'
 * legs, priced here with the domain's Black-76 at the walk's index and IV), and right after every
 * respond that was taken the usage at that moment's marks is within every effective limit.
 * Seed: MAKER_LIMITS_PROPERTY_SEED (default fixed), steps: MAKER_LIMITS_PROPERTY_STEPS (default 50 in
 * `npm run test:long`, 20 in `npm test`).
 */
import { formatRfq, parseRfqSigned } from '@legwork/protocol';
import { Database } from '../../src/common/database/database';
import { markPrice } from '../../src/modules/market-data/domain/black76';
import { greeks } from '../../src/modules/market-data/domain/greeks';
import { parseSymbol } from '../../src/modules/instruments/domain/symbol';
import { Http } from './clients';
import { Environment, type TestApp } from './harness';
import { type RfqTrader, type Round, clientRef, expirationIn, leg, listRound, rfqTrader, signedQuote, sleep, terms } from './rfq-support';
import { M, acceptParams, deposit, marketData, nextNonce, nowSeconds, waitForState } from './support/ledger';
import { repetitions } from './support/long';
import { prng } from './support/prng';

const SEED = Number(process.env.MAKER_LIMITS_PROPERTY_SEED ?? 20261126);
const STEPS = Number(process.env.MAKER_LIMITS_PROPERTY_STEPS ?? repetitions(20, 50));
const STRIKES = ['140', '150', '160'];

interface Usage {
  open_quotes: number;
  open_notional: string;
  open_delta: Record<string, string>;
  open_vega: Record<string, string>;
}
type Limits = Record<string, any>;

const abs = (x: bigint) => (x < 0n ? -x : x);
const min = (a: bigint | undefined, b: bigint | undefined) => (a === undefined ? b : b === undefined ? a : a < b ? a : b);

describe(`Maker limits property (seed ${SEED}, ${STEPS} steps): usage is the database's, and no taken quote passed a limit`, () => {
  let env: Environment;
  let app: TestApp;
  let admin: Http;
  let round: Round;
  let taker: RfqTrader;
  let maker: RfqTrader;
  const rng = prng(SEED);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rng() * items.length)];
  let index = 150n * M;
  let iv = 800_000n;
  let limits: Limits = {};
  let ceiling: Limits = {};
  const outcomes = { taken: 0, refused: 0, filled: 0 };

  beforeAll(async () => {
    env = await Environment.create({
      MARKET_DATA_MAX_AGE_SECONDS: '3600',
      MAX_OPEN_RFQS: '1000',
      RFQ_RATE_PER_SECOND: '5000',
      RFQ_RATE_BURST: '5000',
      SWEEP_INTERVAL_MS: '500',
    });
    app = await env.start();
    admin = new Http(app.url).admin();
    round = await listRound(app, 'SOL', expirationIn(10), STRIKES);
    await marketData(app, 'SOL', formatRfq(index), formatRfq(iv));
    [taker, maker] = await Promise.all([rfqTrader(app, ['taker']), rfqTrader(app, ['quoter'])]);
    await deposit(app, taker.accountId, '10000000');
    await deposit(app, maker.accountId, '10000000');
  }, 120_000);
  afterAll(async () => {
    for (const t of [taker, maker]) await t?.client.close();
    await app?.close();
    await env?.destroy();
  });

  const sql = (text: string, params: unknown[] = []) => app.app.get(Database).dataSource.query(text, params);

  /** The maker's live quotes at `now`, priced here: the rule of design.md section 15, independently of the server's code. */
  const recompute = async (now: number, nowMs = now * 1000): Promise<Usage> => {
    const live: Array<{ legs: Array<{ instrument: string; quantity: string }> }> = await sql(
      `SELECT legs FROM rfqs WHERE maker_account_id = $1 AND state = 'quoted' AND quote_expires_at * 1000 > $2`,
      [maker.accountId, nowMs],
    );
    let notional = 0n;
    let delta = 0n;
    let vega = 0n;
    for (const q of live) {
      let n12 = 0n;
      let d12 = 0n;
      let v12 = 0n;
      for (const l of q.legs) {
        const s = parseSymbol(l.instrument)!;
        const g = greeks({ index, strike: s.strike, kind: s.kind, iv, secondsToExpiry: round.expiry - now });
        const quantity = parseRfqSigned(l.quantity);
        n12 += abs(quantity) * index;
        d12 += quantity * g.delta;
        v12 += quantity * g.vega;
      }
      notional += n12 / M;
      delta += abs(d12 / M);
      vega += abs(v12 / M);
    }
    const some = live.length > 0;
    return {
      open_quotes: live.length,
      open_notional: formatRfq(notional),
      open_delta: some ? { SOL: formatRfq(delta) } : {},
      open_vega: some ? { SOL: formatRfq(vega) } : {},
    };
  };

  /** get_limits' usage equals the recomputation at the second before or after the call. */
  const usageMatches = async () => {
    const before = nowSeconds();
    const view = await maker.client.result('rfq.maker.get_limits', {});
    const after = nowSeconds();
    const candidates = [await recompute(before), await recompute(after)];
    expect(candidates).toContainEqual(view.usage);
    return view.usage as Usage;
  };

  const effective = () => {
    const get = (l: Limits, key: string) => (l[key] === undefined ? undefined : BigInt(typeof l[key] === 'number' ? l[key] : parseRfqSigned(l[key])));
    const perAsset = (key: string) =>
      min(
        limits[key]?.SOL === undefined ? undefined : parseRfqSigned(limits[key].SOL),
        ceiling[key]?.SOL === undefined ? undefined : parseRfqSigned(ceiling[key].SOL),
      );
    return {
      quotes: min(get(limits, 'max_open_quotes'), get(ceiling, 'max_open_quotes')),
      notional: min(get(limits, 'max_open_notional'), get(ceiling, 'max_open_notional')),
      delta: perAsset('max_open_delta'),
      vega: perAsset('max_open_vega'),
    };
  };

  const randomLimits = (): Limits => {
    const l: Limits = {};
    if (rng() < 0.6) l.max_open_quotes = Math.floor(rng() * 8);
    if (rng() < 0.5) l.max_open_notional = formatRfq(BigInt(Math.floor(rng() * 3000)) * M);
    if (rng() < 0.5) l.max_open_delta = { SOL: formatRfq(BigInt(Math.floor(rng() * 5_000_000))) };
    if (rng() < 0.4) l.max_open_vega = { SOL: formatRfq(BigInt(Math.floor(rng() * 150_000_000))) };
    if (rng() < 0.2) l.price_band_bps = Math.floor(rng() * 2000);
    return l;
  };

  const respond = async () => {
    const legs = [leg(round.symbol(pick(STRIKES), pick(['call', 'put'] as const)), pick(['1', '-1', '2', '0.5', '-3']))];
    if (rng() < 0.4) {
      const other = round.symbol(pick(STRIKES), pick(['call', 'put'] as const));
      if (other !== legs[0].instrument) legs.push(leg(other, pick(['1', '-2', '1.5'])));
    }
    const rfq = await taker.client.result('rfq.create', { client_ref: clientRef(), legs });
    const now = nowSeconds();
    let mark12 = 0n;
    for (const l of legs) {
      const s = parseSymbol(l.instrument)!;
      mark12 += parseRfqSigned(l.quantity) * markPrice({ index, strike: s.strike, kind: s.kind, iv, secondsToExpiry: round.expiry - now });
    }
    const mark = mark12 / M;
    const spread = BigInt(Math.floor(rng() * 20)) * M;
    const life = rng() < 0.3 ? 2 : 120;
    const t = terms(nextNonce(), { bid: formatRfq(mark - spread), ask: formatRfq(mark + spread), issued_at: now, expires_at: now + life });
    const reply = await maker.client.call('rfq.maker.respond', signedQuote(maker.wallet, rfq, t, round.expiry).params);
    if (reply.error) {
      expect(['RFQ_OPEN_LIMIT', 'RFQ_PRICE_TOLERANCE']).toContain(reply.error.data.error);
      outcomes.refused += 1;
      return;
    }
    outcomes.taken += 1;
    // Taken: at this moment's marks every effective limit holds (delta and vega drift with time by a few micro-units).
    const usage = await recompute(nowSeconds());
    const e = effective();
    const tolerance = BigInt(usage.open_quotes) * 50n;
    if (e.quotes !== undefined) expect(BigInt(usage.open_quotes)).toBeLessThanOrEqual(e.quotes);
    if (e.notional !== undefined) expect(parseRfqSigned(usage.open_notional)).toBeLessThanOrEqual(e.notional);
    if (e.delta !== undefined) expect(parseRfqSigned(usage.open_delta.SOL ?? '0')).toBeLessThanOrEqual(e.delta + tolerance);
    if (e.vega !== undefined) expect(parseRfqSigned(usage.open_vega.SOL ?? '0')).toBeLessThanOrEqual(e.vega + tolerance);
  };

  const accept = async () => {
    const live: Array<{ id: string; quote_id: string; quote_expires_at: string }> = await sql(
      `SELECT id, quote_id, quote_expires_at::text FROM rfqs WHERE maker_account_id = $1 AND state = 'quoted' AND quote_expires_at > $2 ORDER BY id`,
      [maker.accountId, nowSeconds() + 1],
    );
    if (live.length === 0) return;
    const q = pick(live);
    const reply = await taker.client.call(
      'rfq.accept',
      acceptParams(
        taker.wallet,
        { rfqId: q.id, quoteId: q.quote_id, terms: { expires_at: Number(q.quote_expires_at) } as never },
        pick(['buy', 'sell'] as const),
      ),
    );
    if (reply.result && (await waitForState(taker, q.id, ['filled', 'failed'])).state === 'filled') outcomes.filled += 1;
  };

  it('holds after every step', async () => {
    for (let step = 0; step < STEPS; step++) {
      const r = rng();
      if (r < 0.5) await respond();
      else if (r < 0.65) await accept();
      else if (r < 0.72)
        await sleep(2100); // short quotes expire
      else if (r < 0.82) {
        index = BigInt(130 + Math.floor(rng() * 40)) * M;
        iv = BigInt(400_000 + Math.floor(rng() * 800_000));
        await marketData(app, 'SOL', formatRfq(index), formatRfq(iv));
      } else if (r < 0.95) {
        limits = randomLimits();
        expect((await maker.client.result('rfq.maker.set_limits', { limits })).limits).toEqual(limits);
      } else {
        ceiling = rng() < 0.5 ? {} : randomLimits();
        expect((await admin.put(`/v1/admin/accounts/${maker.accountId}/maker-limits`, { limits: ceiling })).status).toBe(200);
      }
      await usageMatches();
    }
    // The walk reached both sides of the limits, and fills.
    expect(outcomes.taken).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
    expect(outcomes.filled).toBeGreaterThan(0);
  }, 600_000);
});
