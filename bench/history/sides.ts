import { join } from 'node:path';
import { Client } from 'pg';
import { CpuMeter } from '../lib/cpu';
import { BenchEnv } from '../lib/env';
import { Exchange, Trader } from '../lib/exchange';
import { ServerProcess } from '../lib/proc';
import { copyYear } from './build';
import { accountSeed } from './plan';

/**
 * The two sides of a history run: `year` (a copy of the year-old database) and `fresh` (an empty
 * database the server migrates), each with its own Legwork server process, Redis prefix, CPU
 * meter (its database's backends) and exchange client. Same settings on both.
 */
export interface Side {
  name: 'year' | 'fresh';
  env: BenchEnv;
  appEnv: Record<string, string>;
  meter: CpuMeter;
  server: ServerProcess;
  ex: Exchange;
  base: string;
}

export interface HistoryOptions {
  quick: boolean;
  rounds: number;
  logDir: string;
  log: (line: string) => void;
}

/** Quotes live 3 s and RFQs 4 s (as F5): their expiry jobs fire inside the measured windows. */
export const QUOTE_LIFETIME = 3;

function settings(env: BenchEnv): Record<string, string> {
  return env.appEnv({
    MARKET_DATA_MAX_AGE_SECONDS: '86400',
    RFQ_RATE_PER_SECOND: '1000000',
    RFQ_RATE_BURST: '1000000',
    RFQ_TTL_SECONDS: String(QUOTE_LIFETIME + 1),
    MAX_OPEN_RFQS: '100000',
  });
}

export async function openEnvs(
  postgresUrl: string,
  redisUrl: string,
  yearDatabase: string,
  log: (line: string) => void,
): Promise<{ year: BenchEnv; fresh: BenchEnv }> {
  const fresh = await BenchEnv.create(postgresUrl, redisUrl);
  const copy = `${fresh.database}_year`;
  const seconds = await copyYear(postgresUrl, yearDatabase, copy);
  log(`history: copied ${yearDatabase} to ${copy} in ${seconds.toFixed(1)} s`);
  const year = BenchEnv.attach(postgresUrl, redisUrl, copy, `legwork_${copy}`);
  if (process.env.BENCH_PG_DIAG === '1') {
    const c = new Client({ connectionString: postgresUrl });
    await c.connect();
    for (const db of [fresh.database, copy])
      for (const set of ['log_parser_stats = on', 'log_planner_stats = on', 'log_executor_stats = on', "log_min_error_statement = 'log'"])
        await c.query(`ALTER DATABASE ${db} SET ${set}`);
    await c.end();
  }
  return { year, fresh };
}

async function startServer(name: string, env: Record<string, string>, o: HistoryOptions, n: number): Promise<{ server: ServerProcess; ms: number }> {
  const t0 = performance.now();
  const server = await ServerProcess.start(`legwork-${name}`, 'legwork', env, { logFile: join(o.logDir, `${name}-${n}.log`), timeoutMs: 180_000 });
  return { server, ms: performance.now() - t0 };
}

export interface StartupRounds {
  rounds: Array<{ legwork: number; baseline: number; rssL: number; rssB: number }>;
}

/**
 * Start-up: one uncounted start of the fresh side (its database is migrated by it), then
 * (full 3, quick 2) alternating starts, each timed from the fork to the server's ready message (listening) and its
 * RSS read after a full GC; the servers of the last round stay up for the other figures.
 */
export async function startSides(envs: { year: BenchEnv; fresh: BenchEnv }, o: HistoryOptions): Promise<{ year: Side; fresh: Side; startup: StartupRounds }> {
  const appYear = settings(envs.year);
  const appFresh = settings(envs.fresh);
  // The fresh database is migrated by its first start (not counted; the year's copy is migrated already).
  const first = await startServer('fresh', appFresh, o, 0);
  o.log(`history: first start of fresh (migrations) in ${(first.ms / 1000).toFixed(1)} s`);
  await first.server.stop();
  const rounds: StartupRounds['rounds'] = [];
  let last: { year: ServerProcess; fresh: ServerProcess } | null = null;
  const count = o.quick ? 2 : 3;
  for (let r = 0; r < count; r++) {
    const order = r % 2 === 0 ? (['fresh', 'year'] as const) : (['year', 'fresh'] as const);
    const got: Record<string, { server: ServerProcess; ms: number; rss: number }> = {};
    for (const name of order) {
      const { server, ms } = await startServer(name, name === 'year' ? appYear : appFresh, o, r + 1);
      got[name] = { server, ms, rss: (await server.memory()).rss };
    }
    rounds.push({ legwork: got.year.ms, baseline: got.fresh.ms, rssL: got.year.rss, rssB: got.fresh.rss });
    o.log(`history: start-up round ${r + 1}: year ${got.year.ms.toFixed(0)} ms ${mb(got.year.rss)}, fresh ${got.fresh.ms.toFixed(0)} ms ${mb(got.fresh.rss)}`);
    if (r < count - 1) {
      await got.year.server.stop();
      await got.fresh.server.stop();
    } else last = { year: got.year.server, fresh: got.fresh.server };
  }
  const side = async (name: 'year' | 'fresh', env: BenchEnv, appEnv: Record<string, string>, server: ServerProcess): Promise<Side> => {
    const meter = await CpuMeter.open({ postgresUrl: env.postgresUrl, database: env.database, redisUrl: env.redisUrl });
    const base = `http://127.0.0.1:${server.port}`;
    return { name, env, appEnv, meter, server, base, ex: new Exchange(base, `ws://127.0.0.1:${server.port}/client`, appEnv) };
  };
  return {
    year: await side('year', envs.year, appYear, last!.year),
    fresh: await side('fresh', envs.fresh, appFresh, last!.fresh),
    startup: { rounds },
  };
}

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`;

export async function closeSides(sides: Side[], log: (line: string) => void): Promise<void> {
  for (const s of sides) {
    await s.server.stop().catch(() => undefined);
    await s.meter.close();
    await s.env.destroy().catch((error) => log(`cleanup of ${s.name}: ${String(error)}`));
  }
}

/** A trader of the year (its deterministic seed), signed in on `side`. */
export async function yearTrader(side: Side, accountId: number, roles: string[]): Promise<Trader> {
  return side.ex.connect(new Trader(accountId, accountSeed(accountId), roles), false);
}

/** Runs `measure(side)` on both sides, round `r` even: fresh first; odd: year first. */
export async function bothSides<T>(r: number, sides: { year: Side; fresh: Side }, measure: (side: Side) => Promise<T>): Promise<{ year: T; fresh: T }> {
  if (r % 2 === 0) {
    const fresh = await measure(sides.fresh);
    return { fresh, year: await measure(sides.year) };
  }
  const year = await measure(sides.year);
  return { year, fresh: await measure(sides.fresh) };
}
