import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { Exchange, type Leg, type Trader, hasMethod } from '../lib/exchange';
import { type FillProfile, fillProfile, fillProfileTable } from '../lib/fill-profile';
import { type Script, buildScript, pgbench } from '../lib/pgbench';
import { ServerProcess, sleep } from '../lib/proc';
import type { FigureResult } from '../lib/report';
import { percentile } from '../lib/stats';
import type { TracedStatement } from '../servers/pg-trace';
import { type Context, alternate, profiled } from './context';
import { type F5Rounds, f5Figures, f5NotMeasured, logRound } from './f5-report';
import { type BaselineSetup, type F5Setup, PAIRS, baselineRound, legworkRound } from './f5-rounds';
import { scaleOut } from './f5-scale';
import { f14Figure, f14NotMeasured, widerRound } from './f14';

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
const SEQUENCE = 'bench_pgbench_seq';

/** The round's times (quick: shorter) and the Legwork server's environment for them. */
function f5Settings(ctx: Context) {
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
  return { quoteLifetime, warmMs, windowMs, probeRate, probeWindowMs, env };
}

/**
 * The round, the 16 pairs and the probe pair, each trader on its own connection (added to
 * `traders` to be closed at the end); null when the server has no rfq.accept yet.
 */
async function connectPairs(
  ctx: Context,
  settings: ReturnType<typeof f5Settings>,
  legwork: ServerProcess,
  pg: Client,
  traders: Trader[],
): Promise<F5Setup | null> {
  const ex = new Exchange(`http://127.0.0.1:${legwork.port}`, `ws://127.0.0.1:${legwork.port}/client`, settings.env);
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
  if (!(await hasMethod(takers[0].rpc, 'rfq.accept'))) return null;
  const probeTaker = await connectNew(['taker'], '100000000', true);
  const probeMaker = await connectNew(['quoter'], '1000000000', false);
  const { quoteLifetime, warmMs, windowMs, probeRate, probeWindowMs } = settings;
  return { ctx, legwork, pg, ex, round, legs, takers, makers, probeTaker, probeMaker, quoteLifetime, warmMs, windowMs, probeRate, probeWindowMs };
}

/** pgbench's own pairs: consecutive ids, same roles and deposits; the script's `tbase` and `mbase`. */
async function pgbenchAccounts(ex: Exchange): Promise<{ tbase: number; mbase: number }> {
  const pgTakers: Trader[] = [];
  const pgMakers: Trader[] = [];
  for (let i = 0; i < PAIRS; i++) pgTakers.push(await ex.account(['taker'], '100000000'));
  for (let i = 0; i < PAIRS; i++) pgMakers.push(await ex.account(['quoter'], '1000000000'));
  const contiguous = (list: Trader[]) => list.every((t, i) => t.accountId === list[0].accountId + i);
  if (!contiguous(pgTakers) || !contiguous(pgMakers)) throw new Error('pgbench accounts are not consecutive ids');
  return { tbase: pgTakers[0].accountId, mbase: pgMakers[0].accountId };
}

/**
 * One lifecycle, traced, with its deferred expiry jobs (after one untraced, in the full run), and
 * the pgbench script made of it, checked once: its RFQ must end filled.
 */
async function traceScript(s: F5Setup, vars: { tbase: number; mbase: number }): Promise<{ statements: TracedStatement[]; script: Script; scriptFile: string }> {
  const { ctx, ex, legwork, pg, takers, makers, round, legs, quoteLifetime } = s;
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
  return { statements, script, scriptFile };
}

/** The counted rounds, alternating which side runs first. */
async function measureRounds(s: F5Setup, b: BaselineSetup): Promise<F5Rounds> {
  // F7's BullMQ baseline adds jobs at Legwork's fill rate: the last measured, else a typical full run's.
  let fillRate = 80;
  const rounds: F5Rounds = [];
  for (let r = 0; r < s.ctx.rounds; r++) {
    const x = await alternate(
      r,
      () => baselineRound(s, b, fillRate),
      () => legworkRound(s),
    );
    rounds.push({ l: x.legwork, b: x.baseline });
    const l = x.legwork;
    fillRate = Math.max(10, Math.round(l.lifecycles / l.seconds));
    logRound(s.ctx, r, l, x.baseline);
  }
  return rounds;
}

/** Where the fill step's time goes: one more window (not counted) with every statement and Redis command timed. */
async function profileFills(s: F5Setup): Promise<FillProfile | null> {
  const ctx = s.ctx;
  let profile: FillProfile | null = null;
  await legworkRound(s, false, true, (trace) => {
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
  return profile;
}

export async function runF5(ctx: Context): Promise<FigureResult[]> {
  const settings = f5Settings(ctx);
  const { env } = settings;
  const legwork = await ServerProcess.start('legwork-f5', 'legwork', env, { logFile: join(ctx.logDir, 'f5-legwork.log'), nodeArgs: ctx.legworkNodeArgs });
  const pg = new Client({ connectionString: ctx.env.databaseUrl });
  await pg.connect();
  let bullmq: ServerProcess | null = null;
  const traders: Trader[] = [];
  try {
    const s = await connectPairs(ctx, settings, legwork, pg, traders);
    if (!s) return [...f5NotMeasured('rfq.accept is not a method yet'), f14NotMeasured('rfq.accept is not a method yet')];
    const vars = await pgbenchAccounts(s.ex);
    const { statements, script, scriptFile } = await traceScript(s, vars);
    bullmq = await ServerProcess.start(
      'bullmq-expiry',
      'bullmq-expiry',
      { REDIS_URL: ctx.env.redisUrl, REDIS_PREFIX: `${ctx.env.redisPrefix}-bullmq` },
      { logFile: join(ctx.logDir, 'f5-bullmq.log') },
    );
    const rounds = await measureRounds(s, { bullmq, script, scriptFile, vars });
    // --scale: the same load on one and on two instances sharing the database, back to back (not counted).
    const { ex, takers, makers, round, legs, quoteLifetime, warmMs, windowMs } = s;
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
    await profiled(ctx, legwork, 'F5', () => legworkRound(s, false));
    const profile = await profileFills(s);
    // Diagnosis (full run): the same probes without the F5 load.
    const idle = ctx.quick ? null : await legworkRound(s, true, false);
    if (idle)
      ctx.log(
        `F6 without F5 load: p99 ${percentile(idle.probes, 99).toFixed(1)} ms, p50 ${percentile(idle.probes, 50).toFixed(1)} ms (${idle.probes.length} probes)`,
      );
    // F14: the head's hold per fill from the rounds; fills per second with twice the pairs (an uncounted window).
    const f14 = f14Figure(
      rounds.map((x) => x.l),
      await widerRound(s, traders),
    );
    const extras = { quoteLifetime, warmMs, probeRate: settings.probeRate, tracedStatements: statements.length, script, scale, profile, idle };
    return [...f5Figures(rounds, extras, (line) => ctx.log(line)), f14];
  } finally {
    for (const t of traders) await t.rpc?.close().catch(() => undefined);
    await pg.end().catch(() => undefined);
    await bullmq?.stop();
    await legwork.stop();
  }
}
