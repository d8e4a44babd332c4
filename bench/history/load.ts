import type { CpuReading } from '../lib/cpu';
import { type Lifecycle, type Round, type Trader, acceptToFilled } from '../lib/exchange';
import type { Leg } from '../lib/exchange';
import type { FigureResult } from '../lib/report';
import { sleep } from '../lib/proc';
import { median, percentile } from '../lib/stats';
import { pairFigure } from './measure';
import { type PgWindowStats, pgWindow } from './pg-stats';
import { type HistoryOptions, QUOTE_LIFETIME, type Side, bothSides } from './sides';

const PAIRS = 16;

interface Pairs {
  takers: Trader[];
  makers: Trader[];
  round: Round;
  legs: Leg[];
}

interface LoadRound {
  lifecycles: number;
  seconds: number;
  cpu: CpuReading;
  fillMs: number[];
  failures: number;
  pg: PgWindowStats;
}

async function preparePairs(side: Side): Promise<Pairs> {
  const ex = side.ex;
  const round = await ex.listRound('HBFIVE', 3, ['140', '150', '160']);
  const legs = [
    { instrument: round.symbol('150'), quantity: '1' },
    { instrument: round.symbol('160'), quantity: '-1' },
  ];
  const takers = await Promise.all(Array.from({ length: PAIRS }, async () => ex.connect(await ex.account(['taker'], '100000000'), true)));
  const makers = await Promise.all(Array.from({ length: PAIRS }, async () => ex.connect(await ex.account(['quoter'], '1000000000'), false)));
  return { takers, makers, round, legs };
}

/**
 * F5's load on one side: 16 pairs looping create → respond → accept → `filled`, a warm-up as long
 * as the RFQ TTL (the deferred expiry jobs in steady state), then a counted window: lifecycles/s,
 * CPU of the server and of PostgreSQL (the side's database backends + auxiliaries), and every
 * accept → `filled` time (F7).
 */
async function loadRound(side: Side, p: Pairs, warmMs: number, windowMs: number): Promise<LoadRound> {
  let running = true;
  let counting = false;
  let completed = 0;
  let failures = 0;
  const done: Lifecycle[] = [];
  const loops = p.takers.map(async (taker, i) => {
    while (running) {
      try {
        const r = await side.ex.lifecycle(taker, p.makers[i], p.round, p.legs, 'buy', QUOTE_LIFETIME);
        if (counting) {
          completed++;
          done.push(r);
        }
      } catch {
        failures++;
        await sleep(20);
      }
    }
  });
  await sleep(warmMs);
  const pgStop = await pgWindow(side.env.databaseUrl, side.env.database);
  const stop = await side.meter.start(side.server.pid);
  counting = true;
  const t0 = performance.now();
  await sleep(windowMs);
  counting = false;
  const seconds = (performance.now() - t0) / 1000;
  const cpu = await stop();
  running = false;
  await Promise.all(loops);
  const pg = await pgStop(completed);
  return { lifecycles: completed, seconds, cpu, fillMs: done.map(acceptToFilled), failures, pg };
}

export async function loadFigures(o: HistoryOptions, sides: { year: Side; fresh: Side }): Promise<FigureResult[]> {
  const pairs = { year: await preparePairs(sides.year), fresh: await preparePairs(sides.fresh) };
  const warmMs = o.quick ? 1500 : (QUOTE_LIFETIME + 1) * 1000 + 500;
  const windowMs = o.quick ? 2000 : 6000;
  const rounds: Array<{ year: LoadRound; fresh: LoadRound }> = [];
  for (let r = 0; r < o.rounds; r++) {
    const x = await bothSides(r, sides, (side) => loadRound(side, pairs[side.name], warmMs, windowMs));
    rounds.push(x);
    logRound(o, r, x);
    // The quotes' and RFQs' expiry jobs of the last window fire before the other side's.
    await sleep((QUOTE_LIFETIME + 1) * 1000);
  }
  for (const side of [sides.year, sides.fresh]) for (const t of [...pairs[side.name].takers, ...pairs[side.name].makers]) await t.rpc.close();
  return loadRows(rounds, warmMs, windowMs);
}

function logRound(o: HistoryOptions, r: number, x: { year: LoadRound; fresh: LoadRound }): void {
  o.log(`history: F5 round ${r + 1}: year ${(x.year.lifecycles / x.year.seconds).toFixed(0)}/s, fresh ${(x.fresh.lifecycles / x.fresh.seconds).toFixed(0)}/s`);
  for (const name of ['year', 'fresh'] as const) {
    const { cpu, lifecycles } = x[name];
    const ms = (s: number | null | undefined) => (s === null || s === undefined ? '-' : ((s * 1000) / lifecycles).toFixed(2));
    o.log(`history: F5 round ${r + 1} ${name} PostgreSQL CPU ms per lifecycle ${ms(cpu.postgres)} (backends ${ms(cpu.postgresBackends)})`);
    o.log(`history: F5 round ${r + 1} ${name} PostgreSQL per lifecycle: ${JSON.stringify(x[name].pg)}`);
  }
}

/** F5, F5-pg and F7-p99 of the rounds. */
function loadRows(rounds: Array<{ year: LoadRound; fresh: LoadRound }>, warmMs: number, windowMs: number): FigureResult[] {
  const rate = (x: LoadRound) => x.lifecycles / x.seconds;
  const pgMs = (x: LoadRound) => ((x.cpu.postgres ?? NaN) * 1000) / x.lifecycles;
  const cpu = (x: LoadRound) => ({
    server: x.cpu.server === null ? null : (x.cpu.server / x.lifecycles) * 1000,
    postgres: x.cpu.postgres === null ? null : (x.cpu.postgres / x.lifecycles) * 1000,
    redis: x.cpu.redis === null ? null : (x.cpu.redis / x.lifecycles) * 1000,
  });
  const medCpu = (pick: (x: { year: LoadRound; fresh: LoadRound }) => LoadRound) => ({
    server: median(rounds.map((x) => cpu(pick(x)).server ?? NaN)),
    postgres: median(rounds.map((x) => cpu(pick(x)).postgres ?? NaN)),
    redis: median(rounds.map((x) => cpu(pick(x)).redis ?? NaN)),
  });
  const failures = { year: rounds.map((x) => x.year.failures), fresh: rounds.map((x) => x.fresh.failures) };
  const common = `16 taker/maker pairs, each its own connection, two-leg RFQs; warm-up ${warmMs} ms, window ${windowMs} ms per side per round`;
  return [
    pairFigure(
      { id: 'F5', title: 'RFQ lifecycles/s, 16 pairs, year vs fresh', unit: 'lifecycles/s', kind: 'rate', notes: [common], extra: { failures } },
      rounds.map((x) => ({ legwork: rate(x.year), baseline: rate(x.fresh) })),
      { legwork: medCpu((x) => x.year), baseline: medCpu((x) => x.fresh) },
    ),
    pairFigure(
      {
        id: 'F5-pg',
        title: 'PostgreSQL CPU ms per lifecycle under F5, year vs fresh',
        unit: 'ms',
        kind: 'cost',
        notes: [
          "CPU of the side's database backends plus PostgreSQL's auxiliary processes (bench/lib/cpu.ts) over the F5 window, per lifecycle",
          'details: per lifecycle, medians over the rounds, from pg_stat_database (the side) and pg_stat_wal (the server; the other side idle)',
        ],
        extra: { year: pgMedians(rounds.map((x) => x.year.pg)), fresh: pgMedians(rounds.map((x) => x.fresh.pg)) },
      },
      rounds.map((x) => ({ legwork: pgMs(x.year), baseline: pgMs(x.fresh) })),
    ),
    pairFigure(
      {
        id: 'F7-p99',
        title: 'accept → filled at the taker, p99 under F5 load, year vs fresh',
        unit: 'ms',
        kind: 'cost',
        notes: ['every lifecycle of the F5 window: from the accept reply to the filled event'],
        extra: { p50_ms: rounds.map((x) => [percentile(x.year.fillMs, 50), percentile(x.fresh.fillMs, 50)]) },
      },
      rounds.map((x) => ({ legwork: percentile(x.year.fillMs, 99), baseline: percentile(x.fresh.fillMs, 99) })),
    ),
  ];
}

/** Per-lifecycle medians of the database and WAL counters over the rounds. */
function pgMedians(stats: PgWindowStats[]): Record<string, number> {
  const keys = ['xact_commit', 'blks_hit', 'blks_read', 'tup_inserted', 'tup_updated', 'wal_records', 'wal_fpi', 'wal_bytes'];
  const value = (s: PgWindowStats, k: string) => s.database[k] ?? s.wal[k] ?? NaN;
  return Object.fromEntries(keys.map((k) => [k, median(stats.map((s) => value(s, k)))]));
}
