import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import type { CpuReading } from '../lib/cpu';
import { type Exchange, type Leg, type Lifecycle, type Round, type Trader, acceptToFilled } from '../lib/exchange';
import { HEAD_HISTOGRAMS, type Histogram, delta, readHistograms } from '../lib/histogram';
import { type PgbenchResult, type Script, pgbench } from '../lib/pgbench';
import { type ServerProcess, sleep } from '../lib/proc';
import { Samples } from '../lib/stats';
import type { TracedStatement } from '../servers/pg-trace';
import type { TracedCommand } from '../servers/redis-trace';
import type { Context } from './context';

/** One round of each side of F5/F6/F7 (figures/f5.ts): Legwork's phases A and B, and pgbench with the bare BullMQ worker. */

export const PAIRS = 16;

/** What a round of Legwork runs on: the server, its pairs and the probe pair, the round's times. */
export interface F5Setup {
  ctx: Context;
  legwork: ServerProcess;
  pg: Client;
  ex: Exchange;
  round: Round;
  legs: Leg[];
  takers: Trader[];
  makers: Trader[];
  probeTaker: Trader;
  probeMaker: Trader;
  quoteLifetime: number;
  warmMs: number;
  windowMs: number;
  probeRate: number;
  probeWindowMs: number;
}

/** What a round of the baseline runs: the script and its variables, the bare BullMQ worker. */
export interface BaselineSetup {
  bullmq: ServerProcess;
  script: Script;
  scriptFile: string;
  vars: { tbase: number; mbase: number };
}

export interface LegworkRound {
  lifecycles: number;
  seconds: number;
  failures: number;
  commits: number;
  cpu: CpuReading;
  /** CPU of the load generator (this process: the 32 clients, their signatures and JSON) in phase A. */
  clientCpuSeconds: number;
  latencyP50: number;
  latencyP99: number;
  /** F7: accept → `filled` at the taker of every lifecycle of phase A, ms. */
  fillMs: number[];
  /** The lifecycles of phase A. */
  done: Lifecycle[];
  probes: number[];
  probesLost: number;
  /** The journal head's lock in phase A (the server's histograms, MetricsService.journalHead): held and waited for, per append. */
  head: { hold: Histogram | null; wait: Histogram | null };
}

export interface BaselineRound {
  pg: PgbenchResult;
  commits: number;
  cpu: CpuReading;
  bullmq: number[];
  /** F7's baseline: bare BullMQ add → processed of jobs due at once, ms, alongside pgbench. */
  bullmqNow: number[];
  /** F7's baseline: the mean latency of the fill's statements in pgbench (-r), summed, ms. */
  fillStatementsMs: number;
}

export type Stages = (trace: { statements: TracedStatement[]; commands: TracedCommand[]; done: Lifecycle[] }) => void;

async function xactCommit(pg: Client, database: string): Promise<number> {
  const { rows } = await pg.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = $1', [database]);
  return Number(rows[0].n);
}

/** The pairs' lifecycle loops of one round: a lifecycle counts when it ends while `counting`. */
interface PairLoops {
  running: boolean;
  counting: boolean;
  completed: number;
  failures: number;
  latencies: Samples;
  done: Lifecycle[];
  loops: Array<Promise<void>>;
}

function startPairs(s: F5Setup, withPairs: boolean): PairLoops {
  const p: PairLoops = { running: true, counting: false, completed: 0, failures: 0, latencies: new Samples(), done: [], loops: [] };
  p.loops = s.takers.map(async (taker, i) => {
    while (p.running && withPairs) {
      try {
        const r = await s.ex.lifecycle(taker, s.makers[i], s.round, s.legs, 'buy', s.quoteLifetime);
        if (p.counting) {
          p.completed++;
          p.latencies.push(r.ms);
          p.done.push(r);
        }
      } catch (error) {
        if (p.counting) p.failures++;
        if (p.failures < 3 && p.counting) s.ctx.log(`F5 lifecycle failed: ${String((error as Error).message).slice(0, 200)}`);
        await sleep(50);
      }
    }
  });
  return p;
}

/** Phase A: F5's window. The counters around it, and with `stages` the server's statement and command trace of it. */
async function phaseA(s: F5Setup, p: PairLoops, stages: Stages | undefined) {
  const { ctx, legwork, pg } = s;
  const commits0 = await xactCommit(pg, ctx.env.database);
  const stopCpu = await ctx.meter.start(legwork.pid);
  const client0 = process.cpuUsage();
  const heads0 = await readHistograms(legwork, HEAD_HISTOGRAMS);
  if (stages) await legwork.request({ type: 'stages-start' });
  const t0 = performance.now();
  p.counting = true;
  await sleep(s.windowMs);
  p.counting = false;
  if (stages) {
    const trace = await legwork.request({ type: 'stages-stop' }, 120_000);
    stages({ statements: trace.statements as TracedStatement[], commands: trace.commands as TracedCommand[], done: p.done });
  }
  const seconds = (performance.now() - t0) / 1000;
  const heads1 = await readHistograms(legwork, HEAD_HISTOGRAMS);
  const cpu = await stopCpu();
  const clientCpu = process.cpuUsage(client0);
  const commits1 = await xactCommit(pg, ctx.env.database);
  const lifecycles = p.completed;
  return { seconds, heads0, heads1, cpu, clientCpu, commits0, commits1, lifecycles };
}

/** One F6 probe: an RFQ quoted to expire `quoteLifetime` s later; `at` is when its `expired` event arrived. */
async function probe(s: F5Setup, probes: Array<{ deadline: number; at: number | null }>): Promise<void> {
  const { ex, probeTaker, probeMaker, round, legs, quoteLifetime } = s;
  const rfq = await probeTaker.rpc.result('rfq.create', { client_ref: randomUUID(), legs });
  const quote = ex.quote(probeMaker, round, rfq.rfq_id, legs, quoteLifetime);
  const entry = { deadline: quote.expires_at * 1000, at: null as number | null };
  const expired = probeTaker.until(rfq.rfq_id, ['expired'], quoteLifetime * 1000 + 30_000);
  await probeMaker.rpc.result('rfq.maker.respond', quote);
  probes.push(entry);
  entry.at = (await expired).at;
}

/**
 * Phase B: F6 probes, a quote expiring at the next whole second + lifetime, at a fixed rate; the
 * pairs stop once the last probe that can fall in the window is made. Each probe's lateness, ms
 * (Infinity: lost).
 */
async function phaseB(s: F5Setup, p: PairLoops, withProbes: boolean): Promise<number[]> {
  const { ctx, quoteLifetime, probeRate } = s;
  const probes: Array<{ deadline: number; at: number | null }> = [];
  let probing = withProbes;
  const probeStart = Date.now();
  const probeLoop = (async () => {
    let sent = 0;
    while (probing) {
      const due = probeStart + (sent * 1000) / probeRate;
      if (Date.now() < due) {
        await sleep(Math.max(1, due - Date.now()));
        continue;
      }
      sent++;
      void probe(s, probes).catch(() => undefined);
    }
  })();
  // A probe created at t has its deadline in (t + lifetime - 1 s, t + lifetime]: from probeStart +
  // lifetime the deadlines come at the full rate; probes created after windowEnd - (lifetime - 1) s
  // cannot fall in the window, so creation stops then.
  const windowStart = probeStart + quoteLifetime * 1000 + (ctx.quick ? -500 : 1000);
  const windowEnd = windowStart + (withProbes ? s.probeWindowMs : 0);
  if (withProbes) await sleep(windowEnd - (quoteLifetime - 1) * 1000 - Date.now());
  probing = false;
  await probeLoop;
  p.running = false;
  await Promise.all(p.loops);
  // Every probe due in the window has expired (or counts as lost) by windowEnd + 1.5 s (full: 3 s).
  if (withProbes) await sleep(Math.max(0, windowEnd + (ctx.quick ? 1500 : 3000) - Date.now()));
  const inWindow = probes.filter((x) => x.deadline >= windowStart && x.deadline <= windowEnd);
  return inWindow.map((x) => (x.at === null ? Infinity : x.at - x.deadline));
}

/**
 * A round of Legwork. The pairs run for the whole round: phase A (after a warm-up as long as the
 * quote lifetime, so the deferred expiry jobs are in steady state) measures F5; then phase B adds
 * the F6 probes (created from its start, counted when their deadline falls in its window).
 */
export async function legworkRound(s: F5Setup, withProbes = true, withPairs = true, stages?: Stages): Promise<LegworkRound> {
  const p = startPairs(s, withPairs);
  await sleep(s.warmMs);
  const a = await phaseA(s, p, stages);
  const lateness = await phaseB(s, p, withProbes);
  const { heads0, heads1 } = a;
  return {
    lifecycles: a.lifecycles,
    seconds: a.seconds,
    failures: p.failures,
    commits: a.commits1 - a.commits0,
    cpu: a.cpu,
    clientCpuSeconds: (a.clientCpu.user + a.clientCpu.system) / 1e6,
    latencyP50: p.latencies.percentile(50),
    latencyP99: p.latencies.percentile(99),
    fillMs: p.done.map(acceptToFilled),
    done: p.done,
    probes: lateness.filter((x) => Number.isFinite(x)),
    probesLost: lateness.filter((x) => !Number.isFinite(x)).length,
    head: {
      hold: heads1[HEAD_HISTOGRAMS[0]] ? delta(heads1[HEAD_HISTOGRAMS[0]], heads0[HEAD_HISTOGRAMS[0]]) : null,
      wait: heads1[HEAD_HISTOGRAMS[1]] ? delta(heads1[HEAD_HISTOGRAMS[1]], heads0[HEAD_HISTOGRAMS[1]]) : null,
    },
  };
}

/**
 * A round of the baseline: pgbench with the lifecycle's script, and alongside it the bare BullMQ
 * worker's delayed jobs (F6) and its jobs due at once at `fillRate` (F7).
 */
export async function baselineRound(s: F5Setup, b: BaselineSetup, fillRate: number): Promise<BaselineRound> {
  const { ctx, pg, quoteLifetime } = s;
  const seconds = Math.max(1, Math.round(s.windowMs / 1000));
  const queueRun = b.bullmq.request(
    { type: 'run', rate: s.probeRate, seconds: ctx.quick ? seconds : seconds + quoteLifetime, lifetime: quoteLifetime },
    (seconds + quoteLifetime) * 1000 + 30_000,
  );
  queueRun.catch(() => undefined); // awaited below; a pgbench failure must not leave it unhandled
  if (!ctx.quick) await sleep(1000);
  const nowRun = b.bullmq.request({ type: 'latency', rate: fillRate, seconds: Math.max(1, seconds - 1) }, seconds * 1000 + 30_000);
  nowRun.catch(() => undefined);
  const commits0 = await xactCommit(pg, ctx.env.database);
  const stopCpu = await ctx.meter.start(null);
  const result = await pgbench(ctx.env.databaseUrl, b.scriptFile, b.script, { clients: PAIRS, seconds, vars: b.vars, latencies: true });
  const cpu = await stopCpu();
  const commits1 = await xactCommit(pg, ctx.env.database);
  const q = await queueRun;
  const samples = (q.samples as Array<{ due: number; lateness: number }>).map((x) => x.lateness);
  const now = (await nowRun).samples as number[];
  const fillStatementsMs = b.script.fillCommands.reduce((sum, i) => sum + (result.commandMs[i] ?? NaN), 0);
  // Each script run begins with one autocommit SELECT nextval(...) for fresh ids, which is not one of the
  // lifecycle's statements: its commit is taken out, so both sides count the commits of the same statements.
  return { pg: result, commits: commits1 - commits0 - result.transactions, cpu, bullmq: samples, bullmqNow: now, fillStatementsMs };
}
