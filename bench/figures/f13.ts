import { join } from 'node:path';
import { PANEL, competitiveLifecycle } from '../lib/competitive';
import type { CpuReading } from '../lib/cpu';
import { Exchange, type Leg, type Lifecycle, type Round, type Trader } from '../lib/exchange';
import { ServerProcess, sleep } from '../lib/proc';
import type { FigureResult } from '../lib/report';
import { median } from '../lib/stats';
import { type Context, alternate, profiled } from './context';

/**
 * F13: competitive RFQ lifecycles per second (docs/spec/design.md 18) with 16 takers, each with its
 * own panel of 5 makers (every trader on its own connection): rfq.create with the panel → 5 quotes
 * → the first maker replaces its quote once → rfq.accept of the best → `filled` (bench/lib/competitive.ts).
 * Baseline: F5's seed lifecycles (16 taker/maker pairs, create → respond → accept → `filled`, the
 * same `Exchange.lifecycle` F5 runs) on the same server in the same run, alternating rounds.
 * F13-pg: PostgreSQL CPU per lifecycle of each (the bench database's backends plus the auxiliary
 * processes, as F5-pg measures it: bench/lib/cpu.ts).
 */
const PAIRS = 16;
const TARGET = 0.4;

interface Window {
  lifecycles: number;
  seconds: number;
  failures: number;
  cpu: CpuReading;
}

interface Setup {
  ctx: Context;
  legwork: ServerProcess;
  ex: Exchange;
  round: Round;
  legs: Leg[];
  seed: { takers: Trader[]; makers: Trader[] };
  competitive: { takers: Trader[]; panels: Trader[][] };
  quoteLifetime: number;
  warmMs: number;
  windowMs: number;
}

function f13Settings(ctx: Context) {
  // Longer than F5's 2-3 s, for both sides: a competitive lifecycle is 7 round trips before the
  // accept, and on a loaded machine its quotes expired on the way (refused responds and accepts).
  const quoteLifetime = 4;
  return {
    quoteLifetime,
    warmMs: ctx.quick ? 1500 : (quoteLifetime + 1) * 1000 + 500,
    windowMs: ctx.quick ? 2000 : 6000,
    // F5's server settings: capacity, not the rate limits, is measured.
    env: ctx.env.appEnv({
      MARKET_DATA_MAX_AGE_SECONDS: '86400',
      RFQ_RATE_PER_SECOND: '1000000',
      RFQ_RATE_BURST: '1000000',
      RFQ_TTL_SECONDS: String(quoteLifetime + 1),
      MAX_OPEN_RFQS: '100000',
    }),
  };
}

/** 16 loops of `lifecycle`, a warm-up, then a counted window with the CPU of the server, PostgreSQL and Redis. */
async function window(s: Setup, name: string, lifecycle: (i: number) => Promise<Lifecycle>): Promise<Window> {
  let running = true;
  let counting = false;
  let lifecycles = 0;
  let failures = 0;
  const loops = Array.from({ length: PAIRS }, async (_, i) => {
    while (running) {
      try {
        await lifecycle(i);
        if (counting) lifecycles++;
      } catch (error) {
        if (counting && ++failures <= 2) s.ctx.log(`F13 ${name} lifecycle failed: ${String((error as Error).message).slice(0, 200)}`);
        await sleep(50);
      }
    }
  });
  await sleep(s.warmMs);
  const stop = await s.ctx.meter.start(s.legwork.pid);
  const t0 = performance.now();
  counting = true;
  await sleep(s.windowMs);
  counting = false;
  const seconds = (performance.now() - t0) / 1000;
  const cpu = await stop();
  running = false;
  await Promise.all(loops);
  // The window's deferred expiry jobs fire before the other side's window starts (the full run's warm-up is long enough).
  await sleep(Math.max(0, (s.quoteLifetime + 1) * 1000 + 500 - s.warmMs));
  return { lifecycles, seconds, failures, cpu };
}

const seedWindow = (s: Setup) => window(s, 'seed', (i) => s.ex.lifecycle(s.seed.takers[i], s.seed.makers[i], s.round, s.legs, 'buy', s.quoteLifetime));
const competitiveWindow = (s: Setup) =>
  window(s, 'competitive', (i) => competitiveLifecycle(s.ex, s.competitive.takers[i], s.competitive.panels[i], s.round, s.legs, s.quoteLifetime));

async function setUp(ctx: Context, legwork: ServerProcess, env: Record<string, string>, traders: Trader[]) {
  const ex = new Exchange(`http://127.0.0.1:${legwork.port}`, `ws://127.0.0.1:${legwork.port}/client`, env);
  const round = await ex.listRound('BCOMP', 3, ['140', '150', '160']);
  const legs: Leg[] = [
    { instrument: round.symbol('150'), quantity: '1' },
    { instrument: round.symbol('160'), quantity: '-1' },
  ];
  const connectNew = async (roles: string[], deposit: string, subscribe: boolean) => {
    const t = await ex.connect(await ex.account(roles, deposit), subscribe);
    traders.push(t);
    return t;
  };
  const many = (n: number, roles: string[], deposit: string, subscribe: boolean) =>
    Promise.all(Array.from({ length: n }, () => connectNew(roles, deposit, subscribe)));
  const seed = { takers: await many(PAIRS, ['taker'], '100000000', true), makers: await many(PAIRS, ['quoter'], '1000000000', false) };
  const takers = await many(PAIRS, ['taker'], '100000000', true);
  const makers = await many(PAIRS * PANEL, ['quoter'], '1000000000', false);
  const panels = takers.map((_, i) => makers.slice(i * PANEL, (i + 1) * PANEL));
  return { ex, round, legs, seed, competitive: { takers, panels } };
}

export async function runF13(ctx: Context): Promise<FigureResult[]> {
  const settings = f13Settings(ctx);
  const legwork = await ServerProcess.start('legwork-f13', 'legwork', settings.env, {
    logFile: join(ctx.logDir, 'f13-legwork.log'),
    nodeArgs: ctx.legworkNodeArgs,
  });
  const traders: Trader[] = [];
  try {
    const s: Setup = { ctx, legwork, ...(await setUp(ctx, legwork, settings.env, traders)), ...settings };
    const rounds: Array<{ competitive: Window; seed: Window }> = [];
    for (let r = 0; r < ctx.rounds; r++) {
      const x = await alternate(
        r,
        () => seedWindow(s),
        () => competitiveWindow(s),
      );
      rounds.push({ competitive: x.legwork, seed: x.baseline });
      const rate = (w: Window) => (w.lifecycles / w.seconds).toFixed(1);
      const pg = (w: Window) => (((w.cpu.postgres ?? NaN) * 1000) / w.lifecycles).toFixed(2);
      ctx.log(
        `F13 round ${r + 1}: competitive ${rate(x.legwork)}/s (${x.legwork.failures} failed), seed ${rate(x.baseline)}/s (${x.baseline.failures} failed); PostgreSQL CPU ms per lifecycle ${pg(x.legwork)} vs ${pg(x.baseline)}`,
      );
    }
    await profiled(ctx, legwork, 'F13', () => competitiveWindow(s));
    return f13Figures(rounds, settings);
  } finally {
    for (const t of traders) await t.rpc?.close().catch(() => undefined);
    await legwork.stop();
  }
}

/** CPU seconds per 1,000 lifecycles of a window. */
const per1000 = (w: Window) => ({
  server: w.cpu.server === null ? null : (w.cpu.server / w.lifecycles) * 1000,
  postgres: w.cpu.postgres === null ? null : (w.cpu.postgres / w.lifecycles) * 1000,
  redis: w.cpu.redis === null ? null : (w.cpu.redis / w.lifecycles) * 1000,
});
const medianOf = (windows: Window[], pick: (c: ReturnType<typeof per1000>) => number | null) => median(windows.map((w) => pick(per1000(w)) ?? NaN));
const cpuMedians = (windows: Window[]) => ({
  server: medianOf(windows, (c) => c.server),
  postgres: medianOf(windows, (c) => c.postgres),
  redis: medianOf(windows, (c) => c.redis),
});

function f13Figures(
  rounds: Array<{ competitive: Window; seed: Window }>,
  settings: { quoteLifetime: number; warmMs: number; windowMs: number },
): FigureResult[] {
  const rate = (w: Window) => w.lifecycles / w.seconds;
  const pgMs = (w: Window) => ((w.cpu.postgres ?? NaN) * 1000) / w.lifecycles;
  const backendsMs = (w: Window) => ((w.cpu.postgresBackends ?? NaN) * 1000) / w.lifecycles;
  const ratio = median(rounds.map((x) => rate(x.competitive) / rate(x.seed)));
  const pgRatio = median(rounds.map((x) => pgMs(x.competitive) / pgMs(x.seed)));
  const common = `16 takers, each with a panel of ${PANEL} makers (one replaces once), against 16 seed taker/maker pairs; two-leg RFQs, quotes ${settings.quoteLifetime} s; warm-up ${settings.warmMs} ms, window ${settings.windowMs} ms per side per round`;
  const failures = { competitive: rounds.map((x) => x.competitive.failures), seed: rounds.map((x) => x.seed.failures) };
  return [
    {
      id: 'F13',
      title: `competitive RFQ lifecycles/s, ${PANEL} makers quoting, best accepted`,
      unit: 'lifecycles/s',
      baselineTitle: "F5's seed lifecycles/s, same server, same run",
      status: 'measured',
      legwork: median(rounds.map((x) => rate(x.competitive))),
      baseline: median(rounds.map((x) => rate(x.seed))),
      ratioOf: 'competitive / seed, median of per-round ratios',
      ratio,
      target: `>= ${TARGET}`,
      met: Number.isFinite(ratio) ? ratio >= TARGET : null,
      rounds: rounds.map((x) => ({ legwork: rate(x.competitive), baseline: rate(x.seed) })),
      cpu: { legwork: cpuMedians(rounds.map((x) => x.competitive)), baseline: cpuMedians(rounds.map((x) => x.seed)) },
      extra: { failures },
      notes: [
        common,
        'a competitive lifecycle is 7 round trips before the fill (create, 5 quotes at once, the replace, the accept) and writes a signed transcript',
      ],
    },
    {
      id: 'F13-pg',
      title: 'PostgreSQL CPU ms per competitive lifecycle (beside F5-pg: per seed lifecycle)',
      unit: 'ms',
      baselineTitle: 'seed lifecycle, same run',
      status: 'measured',
      legwork: median(rounds.map((x) => pgMs(x.competitive))),
      baseline: median(rounds.map((x) => pgMs(x.seed))),
      ratioOf: 'competitive / seed, median of per-round ratios',
      ratio: pgRatio,
      target: 'information',
      met: null,
      rounds: rounds.map((x) => ({ legwork: pgMs(x.competitive), baseline: pgMs(x.seed) })),
      extra: {
        backends_ms_per_lifecycle: { competitive: median(rounds.map((x) => backendsMs(x.competitive))), seed: median(rounds.map((x) => backendsMs(x.seed))) },
      },
      notes: [
        "CPU of the bench database's backends plus PostgreSQL's auxiliary processes (bench/lib/cpu.ts, as F5-pg) over each window, per lifecycle; backends alone in the details",
      ],
    },
  ];
}
