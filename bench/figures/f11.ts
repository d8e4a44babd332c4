import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import { Exchange, type Leg, type Round, type Trader } from '../lib/exchange';
import { ServerProcess } from '../lib/proc';
import type { FigureResult } from '../lib/report';
import { median, percentile } from '../lib/stats';
import { type Context, alternate, profiled } from './context';

/**
 * F11: the desk's maker limits (docs/spec/design.md section 15) on one Legwork server.
 * F11a: rfq.maker.respond round trip of a maker with limits on what it has out (count, notional,
 * delta and vega: the serialized path that locks its limits row and sums its live quotes) against
 * a maker without limits, same server, same RFQs shape, alternating rounds; each maker keeps its
 * quotes live (60 s), so the one with limits sums a growing book. p50 and p99 per round, median
 * of the per-round p50 ratios. F11b: rfq.maker.get_limits of a maker with 5,000 live two-leg
 * quotes (written straight into `rfqs`: quoting them is not what F11b measures), p99, against the
 * same call of a maker with none; target p99 <= 5 ms.
 */
const LIMITS = {
  max_open_quotes: 1_000_000,
  max_open_notional: '1000000000',
  max_open_delta: { BLIM: '1000000' },
  max_open_vega: { BLIM: '100000000' },
  price_band_bps: 10_000,
};

async function respondSamples(ex: Exchange, taker: Trader, maker: Trader, round: Round, legs: Leg[], n: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const rfq = await taker.rpc.result('rfq.create', { client_ref: randomUUID(), legs });
    const quote = ex.quote(maker, round, rfq.rfq_id, legs, 60, '1', '20');
    const t0 = performance.now();
    await maker.rpc.result('rfq.maker.respond', quote);
    samples.push(performance.now() - t0);
  }
  return samples;
}

async function callSamples(maker: Trader, n: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await maker.rpc.result('rfq.maker.get_limits', {});
    samples.push(performance.now() - t0);
  }
  return samples;
}

/** `count` live quotes of `maker` on RFQs of `taker`, written in one statement with the maker's nonce high-water mark. */
async function liveQuotes(ctx: Context, taker: Trader, maker: Trader, round: Round, legs: Leg[], count: number): Promise<void> {
  const db = new Client({ connectionString: ctx.env.databaseUrl });
  await db.connect();
  try {
    const now = Math.floor(Date.now() / 1000);
    await db.query(
      // As a respond's move does, the maker's nonce high-water mark rises to its last quote's nonce
      // in the same statement: the version of the maker's quotes that get_limits reads.
      `WITH quoted AS (
       INSERT INTO rfqs (id, account_id, client_ref, legs, asset, expiry, state, created_at, updated_at, expires_at, max_quote_expires_at,
                         quote_id, maker_account_id, maker_wallet, quote_nonce, bid, ask, issued_at, quote_expires_at, maker_signature, quote_received_at_ms)
       SELECT md5('f11-' || $9::text || g)::char(32), $1::bigint, gen_random_uuid()::text, $3::jsonb, $4::text, $5::bigint, 'quoted', $6::bigint, $6::bigint,
              $6::bigint + 120, $6::bigint + 3600, encode(sha256(('f11-' || $9::text || g)::bytea), 'hex'), $2::bigint, $7::text, 1000000 + g, 1000000, 2000000,
              $6::bigint, $6::bigint + 3000, $8::text, $6::bigint * 1000
         FROM generate_series(1, $10::int) AS g
       RETURNING quote_nonce)
       INSERT INTO maker_nonces (account_id, high_water) SELECT $2::bigint, max(quote_nonce) FROM quoted
       ON CONFLICT (account_id) DO UPDATE SET high_water = GREATEST(maker_nonces.high_water, EXCLUDED.high_water)`,
      [
        taker.accountId,
        maker.accountId,
        JSON.stringify(legs),
        round.asset,
        round.expiry,
        now,
        maker.wallet,
        'A'.repeat(86) + '==',
        randomBytes(6).toString('hex'),
        count,
      ],
    );
  } finally {
    await db.end();
  }
}

/** The server, its round and the traders of F11: one taker, two makers for F11a, two for F11b. */
interface F11Desk {
  ctx: Context;
  server: ServerProcess;
  ex: Exchange;
  round: Round;
  legs: Leg[];
  taker: Trader;
  plain: Trader;
  limited: Trader;
  loaded: Trader;
  idle: Trader;
  /** Samples per round and side. */
  n: number;
}

export async function runF11(ctx: Context): Promise<FigureResult[]> {
  const env = ctx.env.appEnv({ RFQ_RATE_PER_SECOND: '1000000', RFQ_RATE_BURST: '1000000', MAX_OPEN_RFQS: '100000', MARKET_DATA_MAX_AGE_SECONDS: '86400' });
  const server = await ServerProcess.start('legwork-f11', 'legwork', env, { logFile: join(ctx.logDir, 'f11-legwork.log'), nodeArgs: ctx.legworkNodeArgs });
  try {
    const ex = new Exchange(`http://127.0.0.1:${server.port}`, `ws://127.0.0.1:${server.port}/client`, env);
    const round = await ex.listRound('BLIM', 5, ['140', '150', '160']);
    const legs: Leg[] = [
      { instrument: round.symbol('150'), quantity: '1' },
      { instrument: round.symbol('160'), quantity: '-1' },
    ];
    const taker = await ex.connect(await ex.account(['taker']), false);
    const plain = await ex.connect(await ex.account(['quoter']), false);
    const limited = await ex.connect(await ex.account(['quoter']), false);
    const loaded = await ex.connect(await ex.account(['quoter']), false);
    const idle = await ex.connect(await ex.account(['quoter']), false);
    for (const m of [limited, loaded, idle]) await m.rpc.result('rfq.maker.set_limits', { limits: LIMITS });
    const n = ctx.quick ? 60 : 200;
    const desk: F11Desk = { ctx, server, ex, round, legs, taker, plain, limited, loaded, idle, n };
    return [await f11a(desk), await f11b(desk)];
  } finally {
    await server.stop();
  }
}

/** F11a: respond round trips of the maker with limits against the one without, alternating rounds. */
async function f11a(d: F11Desk): Promise<FigureResult> {
  const { ctx, server, ex, taker, plain, limited, round, legs, n } = d;
  await respondSamples(ex, taker, plain, round, legs, 20); // warm-up
  await respondSamples(ex, taker, limited, round, legs, 20);

  const a: Array<{ legwork: number; baseline: number; legworkP99: number; baselineP99: number }> = [];
  for (let r = 0; r < ctx.rounds; r++) {
    const x = await alternate(
      r,
      () => respondSamples(ex, taker, plain, round, legs, n),
      () => respondSamples(ex, taker, limited, round, legs, n),
    );
    a.push({
      legwork: percentile(x.legwork, 50),
      baseline: percentile(x.baseline, 50),
      legworkP99: percentile(x.legwork, 99),
      baselineP99: percentile(x.baseline, 99),
    });
    ctx.log(
      `F11a round ${r + 1}: respond p50 ${a[r].legwork.toFixed(2)} ms with limits vs ${a[r].baseline.toFixed(2)} ms without (p99 ${a[r].legworkP99.toFixed(2)} vs ${a[r].baselineP99.toFixed(2)})`,
    );
  }
  await profiled(ctx, server, 'F11a', () => respondSamples(ex, taker, limited, round, legs, n));
  return {
    id: 'F11a',
    title: 'rfq.maker.respond round trip, maker with limits on what it has out, p50',
    unit: 'ms',
    baselineTitle: 'the same respond of a maker without limits, same server',
    status: 'measured',
    legwork: median(a.map((x) => x.legwork)),
    baseline: median(a.map((x) => x.baseline)),
    ratioOf: 'with limits p50 / without p50 (median of per-round ratios)',
    ratio: median(a.map((x) => x.legwork / x.baseline)),
    target: '<= 1.15',
    met: median(a.map((x) => x.legwork / x.baseline)) <= 1.15,
    rounds: a,
    extra: { responds_per_round: n, p99_ms: { legwork: median(a.map((x) => x.legworkP99)), baseline: median(a.map((x) => x.baselineP99)) } },
    notes: ['two-leg RFQs, quotes live 60 s: the maker with limits sums its growing book of live quotes on every respond'],
  };
}

/** F11b: get_limits of the maker with 5,000 live quotes against the one with none. */
async function f11b(d: F11Desk): Promise<FigureResult> {
  const { ctx, server, taker, loaded, idle, round, legs, n } = d;
  const live = 5000;
  await liveQuotes(ctx, taker, loaded, round, legs, live);
  const view = await loaded.rpc.result('rfq.maker.get_limits', {});
  if (view.usage.open_quotes !== live) throw new Error(`F11b: ${view.usage.open_quotes} live quotes, expected ${live}`);
  await callSamples(loaded, 50); // warm-up
  const b: Array<{ legwork: number; baseline: number; legworkP50: number; baselineP50: number }> = [];
  for (let r = 0; r < ctx.rounds; r++) {
    const x = await alternate(
      r,
      () => callSamples(idle, n),
      () => callSamples(loaded, n),
    );
    b.push({
      legwork: percentile(x.legwork, 99),
      baseline: percentile(x.baseline, 99),
      legworkP50: percentile(x.legwork, 50),
      baselineP50: percentile(x.baseline, 50),
    });
    ctx.log(
      `F11b round ${r + 1}: get_limits p99 ${b[r].legwork.toFixed(2)} ms with ${live} live quotes vs ${b[r].baseline.toFixed(2)} ms with none (p50 ${b[r].legworkP50.toFixed(2)} vs ${b[r].baselineP50.toFixed(2)})`,
    );
  }
  await profiled(ctx, server, 'F11b', () => callSamples(loaded, n));

  const p99 = median(b.map((x) => x.legwork));
  return {
    id: 'F11b',
    title: `rfq.maker.get_limits with ${live} live two-leg quotes, p99`,
    unit: 'ms',
    baselineTitle: 'the same call of a maker with no live quote',
    status: 'measured',
    legwork: p99,
    baseline: median(b.map((x) => x.baseline)),
    ratioOf: 'p99 with 5,000 live quotes / p99 with none',
    ratio: median(b.map((x) => x.legwork / x.baseline)),
    target: 'p99 <= 5 ms',
    met: p99 <= 5,
    rounds: b,
    extra: { calls_per_round: n, p50_ms: { legwork: median(b.map((x) => x.legworkP50)), baseline: median(b.map((x) => x.baselineP50)) } },
  };
}
