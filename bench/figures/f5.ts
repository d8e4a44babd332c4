import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { type CpuReading, per1000 } from '../lib/cpu';
import { Exchange, type Leg, type Lifecycle, type Trader, acceptToFilled, hasMethod } from '../lib/exchange';
import { type FillProfile, fillProfile, fillProfileTable } from '../lib/fill-profile';
import { HEAD_HISTOGRAMS, type Histogram, delta, readHistograms, summary } from '../lib/histogram';
import { type PgbenchResult, type Script, buildScript, pgbench } from '../lib/pgbench';
import { ServerProcess, sleep } from '../lib/proc';
import { type FigureResult, notMeasured } from '../lib/report';
import { Samples, median, medianOrNull, percentile } from '../lib/stats';
import type { TracedStatement } from '../servers/pg-trace';
import type { TracedCommand } from '../servers/redis-trace';
import { type Context, alternate, profiled } from './context';
import { scaleOut } from './f5-scale';

/**
 * F5: full RFQ lifecycles per second (rfq.create → rfq.maker.respond → rfq.accept → `filled` on the
 * taker's `rfq` channel) with 16 concurrent taker/maker pairs, each on its own connection, and
 * PostgreSQL commits per lifecycle (pg_stat_database.xact_commit of the bench database). Baseline:
 * pgbench, 16 clients, a custom script of the statements one lifecycle sent (traced in the server:
 * the same transactions, texts and parameters; lib/pgbench.ts), on the same database.
 * F6: expiry lateness (the `expired` event's arrival at the taker minus the quote's expires_at)
 * of probe RFQs quoted to expire 1-2 s later, created at a fixed rate during the F5 window.
 * Baseline: a bare BullMQ worker with delayed no-op jobs at the same rate and deadlines, same
 * Redis, run alongside pgbench (under comparable load).
 */
const PAIRS = 16;
const SEQUENCE = 'bench_pgbench_seq';

interface LegworkRound {
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

interface BaselineRound {
  pg: PgbenchResult;
  commits: number;
  cpu: CpuReading;
  bullmq: number[];
  /** F7's baseline: bare BullMQ add → processed of jobs due at once, ms, alongside pgbench. */
  bullmqNow: number[];
  /** F7's baseline: the mean latency of the fill's statements in pgbench (-r), summed, ms. */
  fillStatementsMs: number;
}

async function xactCommit(pg: Client, database: string): Promise<number> {
  const { rows } = await pg.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = $1', [database]);
  return Number(rows[0].n);
}

/** CPU ms per operation, for the round's log line. */
const cpuMs = (seconds: number | null | undefined, ops: number) => per1000(seconds ?? null, ops)?.toFixed(2) ?? '-';

export async function runF5(ctx: Context): Promise<FigureResult[]> {
  const quoteLifetime = ctx.quick ? 2 : 3;
  // Full run: a warm-up as long as the RFQ TTL, so the deferred expiry jobs are in steady state.
  const warmMs = ctx.quick ? 1500 : (quoteLifetime + 1) * 1000 + 500;
  const windowMs = ctx.quick ? 2000 : 6000;
  const probeRate = ctx.quick ? 10 : 20;
  const probeWindowMs = ctx.quick ? 1000 : 5000;
  const env = ctx.env.appEnv({
    MARKET_DATA_MAX_AGE_SECONDS: '86400',
    RFQ_RATE_PER_SECOND: '1000000',
    RFQ_RATE_BURST: '1000000',
    // One second longer than the quotes: the RFQ's own expiry job and the quote's are two jobs, as in production.
    RFQ_TTL_SECONDS: String(quoteLifetime + 1),
    MAX_OPEN_RFQS: '100000',
  });
  const missing = (reason: string) => [
    notMeasured('F5', `RFQ lifecycles/s, ${PAIRS} pairs`, 'pgbench, same statements', '>= 0.75', 'not measured', reason),
    notMeasured('F6', 'expiry lateness p99 under F5 load', 'bare BullMQ delayed jobs', '<= 1.2x baseline p99', 'not measured', reason),
    notMeasured(
      'F7',
      'accept → filled at the taker, p50 under F5 load',
      'bare BullMQ add → processed + pgbench fill statements',
      '<= 1.5',
      'not measured',
      reason,
    ),
    notMeasured(
      'F7-p99',
      'accept → filled at the taker, p99 under F5 load',
      'bare BullMQ add → processed + pgbench fill statements',
      '<= 2.0',
      'not measured',
      reason,
    ),
  ];
  const legwork = await ServerProcess.start('legwork-f5', 'legwork', env, { logFile: join(ctx.logDir, 'f5-legwork.log'), nodeArgs: ctx.legworkNodeArgs });
  const pg = new Client({ connectionString: ctx.env.databaseUrl });
  await pg.connect();
  let bullmq: ServerProcess | null = null;
  const traders: Trader[] = [];
  try {
    const ex = new Exchange(`http://127.0.0.1:${legwork.port}`, `ws://127.0.0.1:${legwork.port}/client`, env);
    // Account ids far from any small constant, so that they are recognisable in the trace.
    await pg.query(`SELECT setval('accounts_id_seq', GREATEST((SELECT last_value FROM accounts_id_seq), 100000))`);
    // Fill ids too (a returned fill id flows into later statements of the script: it must not equal a constant, like the fee account's id).
    await pg.query(`SELECT setval('fills_id_seq', GREATEST((SELECT last_value FROM fills_id_seq), 1000000))`);
    const round = await ex.listRound('BFIVE', 3, ['140', '150', '160']);
    const legs: Leg[] = [
      { instrument: round.symbol('150'), quantity: '1' },
      { instrument: round.symbol('160'), quantity: '-1' },
    ];
    const connectNew = async (roles: string[], deposit: string, subscribe: boolean) => {
      const t = await ex.connect(await ex.account(roles, deposit), subscribe);
      traders.push(t);
      return t;
    };
    const takers = await Promise.all(Array.from({ length: PAIRS }, () => connectNew(['taker'], '100000000', true)));
    const makers = await Promise.all(Array.from({ length: PAIRS }, () => connectNew(['quoter'], '1000000000', false)));
    if (!(await hasMethod(takers[0].rpc, 'rfq.accept'))) return missing('rfq.accept is not a method yet');
    const probeTaker = await connectNew(['taker'], '100000000', true);
    const probeMaker = await connectNew(['quoter'], '1000000000', false);
    // pgbench's own pairs: consecutive ids, same roles and deposits.
    const pgTakers: Trader[] = [];
    const pgMakers: Trader[] = [];
    for (let i = 0; i < PAIRS; i++) pgTakers.push(await ex.account(['taker'], '100000000'));
    for (let i = 0; i < PAIRS; i++) pgMakers.push(await ex.account(['quoter'], '1000000000'));
    const contiguous = (list: Trader[]) => list.every((t, i) => t.accountId === list[0].accountId + i);
    if (!contiguous(pgTakers) || !contiguous(pgMakers)) throw new Error('pgbench accounts are not consecutive ids');
    const vars = { tbase: pgTakers[0].accountId, mbase: pgMakers[0].accountId };

    // One lifecycle, traced, with its deferred expiry jobs (after one untraced, in the full run).
    if (!ctx.quick) {
      await ex.lifecycle(takers[0], makers[0], round, legs, 'buy', quoteLifetime);
      await sleep(quoteLifetime * 1000 + 2500);
    }
    await legwork.request({ type: 'trace-start' });
    const traced = await ex.lifecycle(takers[0], makers[0], round, legs, 'buy', quoteLifetime);
    await sleep((quoteLifetime + 1) * 1000 + 1200); // the RFQ's and the quote's expiry jobs
    const statements = (await legwork.request({ type: 'trace-stop' })).statements as TracedStatement[];
    const script: Script = buildScript(
      statements,
      {
        rfqId: traced.rfqId,
        quoteId: traced.quoteId,
        clientRef: traced.clientRef,
        quoteNonce: traced.quoteNonce,
        takerId: takers[0].accountId,
        makerId: makers[0].accountId,
      },
      SEQUENCE,
    );
    await pg.query(`CREATE SEQUENCE IF NOT EXISTS ${SEQUENCE}`);
    const scriptFile = join(ctx.resultsDir, 'f5-lifecycle.pgbench.sql');
    writeFileSync(join(ctx.resultsDir, 'f5-lifecycle.trace.json'), JSON.stringify({ lifecycle: traced, statements }, null, 1));
    const filled = async () =>
      Number(
        (await pg.query(`SELECT count(*) AS n FROM rfqs WHERE state = 'filled' AND account_id BETWEEN $1 AND $2`, [vars.tbase, vars.tbase + PAIRS - 1])).rows[0]
          .n,
      );
    const before = await filled();
    await pgbench(ctx.env.databaseUrl, scriptFile, script, { clients: 1, transactions: 1, vars });
    if ((await filled()) !== before + 1) throw new Error(`the pgbench script did not fill its RFQ; see ${scriptFile}`);
    ctx.log(
      `F5 traced lifecycle: ${statements.length} statements, script ${script.statements} statements in ${script.transactions} transactions + ${script.autocommit} autocommit (file ${scriptFile})`,
    );

    bullmq = await ServerProcess.start(
      'bullmq-expiry',
      'bullmq-expiry',
      { REDIS_URL: ctx.env.redisUrl, REDIS_PREFIX: `${ctx.env.redisPrefix}-bullmq` },
      { logFile: join(ctx.logDir, 'f5-bullmq.log') },
    );

    /**
     * The pairs run for the whole round: phase A (after a warm-up as long as the quote lifetime,
     * so the deferred expiry jobs are in steady state) measures F5; then phase B adds the F6
     * probes (created from its start, counted when their deadline falls in its window).
     */
    const legworkRun = async (
      withProbes = true,
      withPairs = true,
      stages?: (trace: { statements: TracedStatement[]; commands: TracedCommand[]; done: Lifecycle[] }) => void,
    ): Promise<LegworkRound> => {
      let running = true;
      let completed = 0;
      let failures = 0;
      const latencies = new Samples();
      const done: Lifecycle[] = [];
      let counting = false;
      const loops = takers.map(async (taker, i) => {
        while (running && withPairs) {
          try {
            const r = await ex.lifecycle(taker, makers[i], round, legs, 'buy', quoteLifetime);
            if (counting) {
              completed++;
              latencies.push(r.ms);
              done.push(r);
            }
          } catch (error) {
            if (counting) failures++;
            if (failures < 3 && counting) ctx.log(`F5 lifecycle failed: ${String((error as Error).message).slice(0, 200)}`);
            await sleep(50);
          }
        }
      });
      await sleep(warmMs);
      // Phase A: F5.
      const commits0 = await xactCommit(pg, ctx.env.database);
      const stopCpu = await ctx.meter.start(legwork.pid);
      const client0 = process.cpuUsage();
      const heads0 = await readHistograms(legwork, HEAD_HISTOGRAMS);
      if (stages) await legwork.request({ type: 'stages-start' });
      const t0 = performance.now();
      counting = true;
      await sleep(windowMs);
      counting = false;
      if (stages) {
        const trace = await legwork.request({ type: 'stages-stop' }, 120_000);
        stages({ statements: trace.statements as TracedStatement[], commands: trace.commands as TracedCommand[], done });
      }
      const seconds = (performance.now() - t0) / 1000;
      const heads1 = await readHistograms(legwork, HEAD_HISTOGRAMS);
      const cpu = await stopCpu();
      const clientCpu = process.cpuUsage(client0);
      const commits1 = await xactCommit(pg, ctx.env.database);
      const lifecycles = completed;

      // Phase B: F6 probes, a quote expiring at the next whole second + lifetime, at a fixed rate.
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
          void (async () => {
            const rfq = await probeTaker.rpc.result('rfq.create', { client_ref: randomUUID(), legs });
            const quote = ex.quote(probeMaker, round, rfq.rfq_id, legs, quoteLifetime);
            const entry = { deadline: quote.expires_at * 1000, at: null as number | null };
            const expired = probeTaker.until(rfq.rfq_id, ['expired'], quoteLifetime * 1000 + 30_000);
            await probeMaker.rpc.result('rfq.maker.respond', quote);
            probes.push(entry);
            entry.at = (await expired).at;
          })().catch(() => undefined);
        }
      })();
      // A probe created at t has its deadline in (t + lifetime - 1 s, t + lifetime]: from probeStart +
      // lifetime the deadlines come at the full rate; probes created after windowEnd - (lifetime - 1) s
      // cannot fall in the window, so creation stops then.
      const windowStart = probeStart + quoteLifetime * 1000 + (ctx.quick ? -500 : 1000);
      const windowEnd = windowStart + (withProbes ? probeWindowMs : 0);
      if (withProbes) await sleep(windowEnd - (quoteLifetime - 1) * 1000 - Date.now());
      probing = false;
      await probeLoop;
      running = false;
      await Promise.all(loops);
      // Every probe due in the window has expired (or counts as lost) by windowEnd + 1.5 s (full: 3 s).
      if (withProbes) await sleep(Math.max(0, windowEnd + (ctx.quick ? 1500 : 3000) - Date.now()));
      const inWindow = probes.filter((p) => p.deadline >= windowStart && p.deadline <= windowEnd);
      const lateness = inWindow.map((p) => (p.at === null ? Infinity : p.at - p.deadline));
      return {
        lifecycles,
        seconds,
        failures,
        commits: commits1 - commits0,
        cpu,
        clientCpuSeconds: (clientCpu.user + clientCpu.system) / 1e6,
        latencyP50: latencies.percentile(50),
        latencyP99: latencies.percentile(99),
        fillMs: done.map(acceptToFilled),
        done,
        probes: lateness.filter((x) => Number.isFinite(x)),
        probesLost: lateness.filter((x) => !Number.isFinite(x)).length,
        head: {
          hold: heads1[HEAD_HISTOGRAMS[0]] ? delta(heads1[HEAD_HISTOGRAMS[0]], heads0[HEAD_HISTOGRAMS[0]]) : null,
          wait: heads1[HEAD_HISTOGRAMS[1]] ? delta(heads1[HEAD_HISTOGRAMS[1]], heads0[HEAD_HISTOGRAMS[1]]) : null,
        },
      };
    };

    // F7's BullMQ baseline adds jobs at Legwork's fill rate: the last measured, else a typical full run's.
    let fillRate = 80;
    const baselineRun = async (): Promise<BaselineRound> => {
      const seconds = Math.max(1, Math.round(windowMs / 1000));
      const queueRun = bullmq!.request(
        { type: 'run', rate: probeRate, seconds: ctx.quick ? seconds : seconds + quoteLifetime, lifetime: quoteLifetime },
        (seconds + quoteLifetime) * 1000 + 30_000,
      );
      queueRun.catch(() => undefined); // awaited below; a pgbench failure must not leave it unhandled
      if (!ctx.quick) await sleep(1000);
      const nowRun = bullmq!.request({ type: 'latency', rate: fillRate, seconds: Math.max(1, seconds - 1) }, seconds * 1000 + 30_000);
      nowRun.catch(() => undefined);
      const commits0 = await xactCommit(pg, ctx.env.database);
      const stopCpu = await ctx.meter.start(null);
      const result = await pgbench(ctx.env.databaseUrl, scriptFile, script, { clients: PAIRS, seconds, vars, latencies: true });
      const cpu = await stopCpu();
      const commits1 = await xactCommit(pg, ctx.env.database);
      const q = await queueRun;
      const samples = (q.samples as Array<{ due: number; lateness: number }>).map((s) => s.lateness);
      const now = (await nowRun).samples as number[];
      const fillStatementsMs = script.fillCommands.reduce((sum, i) => sum + (result.commandMs[i] ?? NaN), 0);
      // Each script run begins with one autocommit SELECT nextval(...) for fresh ids, which is not one of the
      // lifecycle's statements: its commit is taken out, so both sides count the commits of the same statements.
      return { pg: result, commits: commits1 - commits0 - result.transactions, cpu, bullmq: samples, bullmqNow: now, fillStatementsMs };
    };

    const rounds: Array<{ l: LegworkRound; b: BaselineRound }> = [];
    for (let r = 0; r < ctx.rounds; r++) {
      const x = await alternate(r, baselineRun, legworkRun);
      rounds.push({ l: x.legwork, b: x.baseline });
      const l = x.legwork;
      const b = x.baseline;
      fillRate = Math.max(10, Math.round(l.lifecycles / l.seconds));
      const hold = summary(l.head.hold);
      const wait = summary(l.head.wait);
      ctx.log(
        hold && wait
          ? `F5 round ${r + 1}: journal head held p50/p99/mean ${hold.p50_ms.toFixed(2)}/${hold.p99_ms.toFixed(2)}/${hold.mean_ms.toFixed(2)} ms, its lock statement p50/p99/mean ${wait.p50_ms.toFixed(2)}/${wait.p99_ms.toFixed(2)}/${wait.mean_ms.toFixed(2)} ms (${hold.count} appends; held ${((l.head.hold!.sum / l.seconds) * 100).toFixed(0)} % of the window)`
          : `F5 round ${r + 1}: the server has no journal head histograms`,
      );
      ctx.log(
        `F5 round ${r + 1}: ${(l.lifecycles / l.seconds).toFixed(1)} lifecycles/s (${(l.commits / Math.max(1, l.lifecycles)).toFixed(2)} commits each, ${l.failures} failed) vs pgbench ${b.pg.tps.toFixed(1)} tps (${(b.commits / Math.max(1, b.pg.transactions)).toFixed(2)} commits each); ` +
          `F6 p99 ${percentile(l.probes, 99).toFixed(1)} ms (${l.probes.length} probes, ${l.probesLost} lost) vs ${percentile(b.bullmq, 99).toFixed(1)} ms; ` +
          `F7 p50/p99 ${percentile(l.fillMs, 50).toFixed(1)}/${percentile(l.fillMs, 99).toFixed(1)} ms vs BullMQ ${percentile(b.bullmqNow, 50).toFixed(1)}/${percentile(b.bullmqNow, 99).toFixed(1)} + fill statements ${b.fillStatementsMs.toFixed(1)} ms; ` +
          `CPU ms per lifecycle: PostgreSQL ${cpuMs(l.cpu.postgres, l.lifecycles)} (backends ${cpuMs(l.cpu.postgresBackends, l.lifecycles)}), server ${cpuMs(l.cpu.server, l.lifecycles)}; ` +
          `per pgbench run: PostgreSQL ${cpuMs(b.cpu.postgres, b.pg.transactions)} (backends ${cpuMs(b.cpu.postgresBackends, b.pg.transactions)})`,
      );
    }
    // --scale: the same load on one and on two instances sharing the database, back to back (not counted).
    const scale = ctx.scale
      ? await scaleOut(ctx, {
          ex,
          exB: (base, wsUrl) => new Exchange(base, wsUrl, env),
          env,
          legwork,
          takers,
          makers,
          round,
          legs,
          quoteLifetime,
          warmMs,
          windowMs,
        })
      : null;
    await profiled(ctx, legwork, 'F5', () => legworkRun(false));
    // Where the fill step's time goes: one more window (not counted) with every statement and Redis command timed.
    let profile: FillProfile | null = null;
    await legworkRun(false, true, (trace) => {
      profile = fillProfile(trace.statements, trace.commands, trace.done);
    });
    if (profile) {
      if (!ctx.quick)
        writeFileSync(
          join(ctx.resultsDir, 'fill-profile.md'),
          `# Where the fill step's time goes (${new Date().toISOString()}, ${PAIRS} pairs)\n\n${fillProfileTable(profile)}\n`,
        );
      ctx.log(`F7 fill profile:\n${fillProfileTable(profile)}`);
    }
    // Diagnosis (full run): the same probes without the F5 load.
    const idle = ctx.quick ? null : await legworkRun(true, false);
    if (idle)
      ctx.log(
        `F6 without F5 load: p99 ${percentile(idle.probes, 99).toFixed(1)} ms, p50 ${percentile(idle.probes, 50).toFixed(1)} ms (${idle.probes.length} probes)`,
      );

    const lps = rounds.map((x) => x.l.lifecycles / x.l.seconds);
    const commitsPerLifecycle = rounds.map((x) => x.l.commits / Math.max(1, x.l.lifecycles));
    const pgCommitsPerTx = rounds.map((x) => x.b.commits / Math.max(1, x.b.pg.transactions));
    // The brief's ratio: Legwork's commits per second over pgbench's (tps x commits per script run).
    const ratios = rounds.map(
      (x) => ((x.l.lifecycles / x.l.seconds) * (x.l.commits / Math.max(1, x.l.lifecycles))) / (x.b.pg.tps * (x.b.commits / Math.max(1, x.b.pg.transactions))),
    );
    const ratio = median(ratios);
    const lifecycleRatio = median(rounds.map((x) => x.l.lifecycles / x.l.seconds / x.b.pg.tps));
    const p99L = median(rounds.map((x) => percentile(x.l.probes, 99)));
    const p99B = median(rounds.map((x) => percentile(x.b.bullmq, 99)));
    // The target: at most 1.2x the baseline's p99, so expiry stays as punctual as a bare delayed job.
    const allowed = 1.2 * p99B;
    const lost = rounds.reduce((a, x) => a + x.l.probesLost, 0);
    // F7: accept → filled at the taker against BullMQ's add → processed plus the fill statements' pgbench latency.
    const f7 = (p: number) => ({
      legwork: median(rounds.map((x) => percentile(x.l.fillMs, p))),
      baseline: median(rounds.map((x) => percentile(x.b.bullmqNow, p) + x.b.fillStatementsMs)),
      ratio: median(rounds.map((x) => percentile(x.l.fillMs, p) / (percentile(x.b.bullmqNow, p) + x.b.fillStatementsMs))),
    });
    const journalHead = headFigures(rounds.map((x) => x.l));
    if (journalHead) ctx.log(`F5 journal head (medians of the rounds): ${JSON.stringify(journalHead)}`);
    const f7p50 = f7(50);
    const f7p99 = f7(99);
    return [
      {
        id: 'F5',
        title: `full RFQ lifecycles/s (create, respond, accept, filled), ${PAIRS} concurrent pairs`,
        unit: 'lifecycles/s',
        baselineTitle: `pgbench, ${PAIRS} clients, the traced statements of one lifecycle (tps = script runs/s)`,
        status: 'measured',
        legwork: median(lps),
        baseline: median(rounds.map((x) => x.b.pg.tps)),
        ratioOf: '(lifecycles/s x commits per lifecycle) / (pgbench tps x commits per script run): commits/s over commits/s',
        ratio,
        target: '>= 0.75',
        met: ratio >= 0.75,
        rounds: rounds.map((x) => ({
          legwork: x.l.lifecycles / x.l.seconds,
          baseline: x.b.pg.tps,
          commits_per_lifecycle: x.l.commits / Math.max(1, x.l.lifecycles),
          pgbench_commits_per_run: x.b.commits / Math.max(1, x.b.pg.transactions),
          failures: x.l.failures,
          lifecycle_p50_ms: x.l.latencyP50,
          lifecycle_p99_ms: x.l.latencyP99,
        })),
        cpu: {
          legwork: {
            server: medianOrNull(rounds.map((x) => per1000(x.l.cpu.server, x.l.lifecycles))),
            postgres: medianOrNull(rounds.map((x) => per1000(x.l.cpu.postgres, x.l.lifecycles))),
            redis: medianOrNull(rounds.map((x) => per1000(x.l.cpu.redis, x.l.lifecycles))),
          },
          baseline: {
            server: null,
            postgres: medianOrNull(rounds.map((x) => per1000(x.b.cpu.postgres, x.b.pg.transactions))),
            redis: medianOrNull(rounds.map((x) => per1000(x.b.cpu.redis, x.b.pg.transactions))),
          },
        },
        extra: {
          commits_per_lifecycle: median(commitsPerLifecycle),
          pgbench_commits_per_run: median(pgCommitsPerTx),
          lifecycles_ratio: lifecycleRatio,
          traced_statements: statements.length,
          script: { statements: script.statements, transactions: script.transactions, autocommit: script.autocommit, commits: script.commits },
          failures: rounds.map((x) => x.l.failures),
          lifecycle_p99_ms: median(rounds.map((x) => x.l.latencyP99)),
          load_generator_cpu_ms_per_lifecycle: median(rounds.map((x) => (x.l.clientCpuSeconds * 1000) / Math.max(1, x.l.lifecycles))),
          journal_head: journalHead,
          postgres_backends_cpu_ms_per_lifecycle: medianOrNull(rounds.map((x) => per1000(x.l.cpu.postgresBackends ?? null, x.l.lifecycles))),
          scale_out: scale,
          pgbench_postgres_backends_cpu_ms_per_run: medianOrNull(rounds.map((x) => per1000(x.b.cpu.postgresBackends ?? null, x.b.pg.transactions))),
        },
        notes: [
          `quote lifetime ${quoteLifetime} s and RFQ_TTL_SECONDS ${quoteLifetime + 1} s so that each lifecycle's deferred expiry jobs run inside the window (steady state after a ${warmMs} ms warm-up); rate limits raised for the bench`,
          "journal_head: the server's legwork_journal_head_{hold,wait}_seconds over phase A (p50/p99 interpolated within the histogram's buckets, mean exact); held = the lock statement's reply to the COMMIT's reply, wait = the lock statement; busy = held seconds per window second; ceiling = 1 / held time, appends per second of one chain",
          "pgbench runs one SELECT nextval(...) \\gset per script run for fresh ids (its commit is taken out of pgbench's count: both sides count the commits of the lifecycle's statements; Legwork's count includes its background sweeps and expiry jobs); CPU per 1,000 lifecycles; the baseline's \"server\" is the pgbench client (not counted)",
        ],
      },
      {
        id: 'F6',
        title: 'expiry lateness p99 under F5 load (expired event at the taker - quote expires_at)',
        unit: 'ms',
        baselineTitle: `bare BullMQ worker, delayed no-op jobs, ${probeRate}/s, alongside pgbench`,
        status: 'measured',
        legwork: p99L,
        baseline: p99B,
        ratioOf: 'Legwork p99 / baseline p99',
        ratio: p99L / p99B,
        target: '<= 1.2x baseline p99',
        met: p99L <= allowed && lost === 0,
        rounds: rounds.map((x) => ({
          legwork: percentile(x.l.probes, 99),
          baseline: percentile(x.b.bullmq, 99),
          probes: x.l.probes.length,
          lost: x.l.probesLost,
          p50L: percentile(x.l.probes, 50),
          p50B: percentile(x.b.bullmq, 50),
        })),
        extra: {
          allowed_ms: allowed,
          probes_lost: lost,
          probe_rate: probeRate,
          p50_ms: { legwork: median(rounds.map((x) => percentile(x.l.probes, 50))), baseline: median(rounds.map((x) => percentile(x.b.bullmq, 50))) },
          without_f5_load: idle ? { p50_ms: percentile(idle.probes, 50), p99_ms: percentile(idle.probes, 99), probes: idle.probes.length } : null,
        },
        notes: ['lateness measured at the client (includes the notification hop); the baseline measures in its worker'],
      },
      {
        id: 'F7',
        title: 'accept → filled at the taker, p50, under F5 load',
        unit: 'ms',
        baselineTitle: `bare BullMQ add → processed (same Redis, alongside pgbench) + pgbench mean latency of the fill's ${script.fillCommands.length} statements, ${PAIRS} clients`,
        status: 'measured',
        legwork: f7p50.legwork,
        baseline: f7p50.baseline,
        ratioOf: 'Legwork p50 / baseline p50 (median of per-round ratios)',
        ratio: f7p50.ratio,
        target: '<= 1.5',
        met: f7p50.ratio <= 1.5,
        rounds: rounds.map((x) => ({
          legwork: percentile(x.l.fillMs, 50),
          baseline: percentile(x.b.bullmqNow, 50) + x.b.fillStatementsMs,
          bullmq_p50: percentile(x.b.bullmqNow, 50),
          fill_statements_ms: x.b.fillStatementsMs,
          fills: x.l.fillMs.length,
        })),
        extra: { profile },
        notes: [
          "from the accept's reply to the `filled` event, at the taker, every lifecycle of phase A",
          'pgbench -r reports a mean per statement, not percentiles: the same sum is added to the BullMQ p50 and p99',
        ],
      },
      {
        id: 'F7-p99',
        title: 'accept → filled at the taker, p99, under F5 load',
        unit: 'ms',
        baselineTitle: 'bare BullMQ add → processed p99 + pgbench mean latency of the fill statements',
        status: 'measured',
        legwork: f7p99.legwork,
        baseline: f7p99.baseline,
        ratioOf: 'Legwork p99 / baseline p99 (median of per-round ratios)',
        ratio: f7p99.ratio,
        target: '<= 2.0',
        met: f7p99.ratio <= 2,
        rounds: rounds.map((x) => ({
          legwork: percentile(x.l.fillMs, 99),
          baseline: percentile(x.b.bullmqNow, 99) + x.b.fillStatementsMs,
          bullmq_p99: percentile(x.b.bullmqNow, 99),
        })),
      },
    ];
  } finally {
    for (const t of traders) await t.rpc?.close().catch(() => undefined);
    await pg.end().catch(() => undefined);
    await bullmq?.stop();
    await legwork.stop();
  }
}

/**
 * The journal head over the rounds' phase A (medians of the rounds): hold and wait p50/p99/mean,
 * the share of the window the head was held, and 1 / hold as appends per second one chain allows.
 */
function headFigures(rounds: LegworkRound[]) {
  const list = rounds.filter((r) => r.head.hold && r.head.hold.count > 0 && r.head.wait);
  if (list.length === 0) return null;
  const hold = list.map((r) => summary(r.head.hold)!);
  const wait = list.map((r) => summary(r.head.wait)!);
  const med = (xs: number[]) => median(xs);
  return {
    appends: med(hold.map((h) => h.count)),
    hold_p50_ms: med(hold.map((h) => h.p50_ms)),
    hold_p99_ms: med(hold.map((h) => h.p99_ms)),
    hold_mean_ms: med(hold.map((h) => h.mean_ms)),
    wait_p50_ms: med(wait.map((h) => h.p50_ms)),
    wait_p99_ms: med(wait.map((h) => h.p99_ms)),
    wait_mean_ms: med(wait.map((h) => h.mean_ms)),
    busy: med(list.map((r) => r.head.hold!.sum / r.seconds)),
    ceiling_per_s: {
      at_p50: med(hold.map((h) => 1000 / h.p50_ms)),
      at_mean: med(hold.map((h) => 1000 / h.mean_ms)),
      at_p99: med(hold.map((h) => 1000 / h.p99_ms)),
    },
  };
}
