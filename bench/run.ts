import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CpuMeter } from './lib/cpu';
import { BenchEnv } from './lib/env';
import { type FigureResult, type Report, notMeasured, writeReport } from './lib/report';
import type { Context } from './figures/context';
import { runF1 } from './figures/f1';
import { runF2 } from './figures/f2';
import { runF3 } from './figures/f3';
import { runF4 } from './figures/f4';
import { runF5 } from './figures/f5';
import { runF8 } from './figures/f8';
import { runF9 } from './figures/f9';
import { runF10 } from './figures/f10';
import { runF11 } from './figures/f11';
import { runF13 } from './figures/f13';
import { curvesMarkdown, runCurves } from './figures/curves';
import { writeFileSync } from 'node:fs';
import { runHistory } from './history/run';

/**
 * `npm run bench [-- --quick] [-- --only F2,F4] [-- --profile]`: every figure next to its baseline,
 * alternating, `rounds` rounds, medians; results in bench/results/<latest|quick>.{json,md}.
 * Exits non-zero only when a run failed (an error), never because a target was missed.
 */
const FIGURES: Array<{ ids: string[]; run: (ctx: Context) => Promise<FigureResult[]>; titles: Array<[string, string, string, string]> }> = [
  { ids: ['F4'], run: runF4, titles: [['F4', 'quote signature verifications/s', 'crypto.verify on a cached key', '>= 0.90']] },
  { ids: ['F2'], run: runF2, titles: [['F2', 'JSON-RPC round trips/s (pipelined)', 'bare ws echo server', '>= 0.50; p99 overhead <= 1 ms']] },
  { ids: ['F3'], run: runF3, titles: [['F3', 'memory per idle signed-in WebSocket', 'bare ws server', '<= 1.5x']] },
  {
    ids: ['F1', 'F1a', 'F1b'],
    run: runF1,
    titles: [
      ['F1a', 'GET /query/rfq-positions, canned rows, req/s', 'bare Fastify route, same JSON', '>= 0.85'],
      ['F1b', 'GET /query/rfq-positions, 50 positions, req/s', 'same SQL through raw pg', '>= 0.85'],
    ],
  },
  {
    ids: ['F5', 'F6', 'F7', 'F14'],
    run: runF5,
    titles: [
      ['F5', 'RFQ lifecycles/s, 16 pairs', 'pgbench, same statements', '>= 0.75'],
      ['F6', 'expiry lateness p99 under F5 load', 'bare BullMQ delayed jobs', '<= 1.2x baseline p99'],
      ['F7', 'accept → filled at the taker, p50 under F5 load', 'bare BullMQ add → processed + pgbench fill statements', '<= 1.5'],
      ['F7-p99', 'accept → filled at the taker, p99 under F5 load', 'bare BullMQ add → processed + pgbench fill statements', '<= 2.0'],
      ['F14', 'journal head held per fill, mean, under F5 load', 'none (absolute)', '<= 1 ms'],
    ],
  },
  { ids: ['F8'], run: runF8, titles: [['F8', 'reprice after one index update, 10,000 accounts', 'one set-based UPDATE of the same rows', '<= 2.0']] },
  { ids: ['F9'], run: runF9, titles: [['F9', 'replay of 10,000 stored events, events/s', 'bare ws server, same frames', '>= 0.50']] },
  { ids: ['F10'], run: runF10, titles: [['F10', 'one created broadcast to 1,000 quoter connections, p99', 'bare ws server, same frame', '<= 1.5']] },
  {
    ids: ['F11', 'F11a', 'F11b'],
    run: runF11,
    titles: [
      ['F11a', 'rfq.maker.respond with maker limits, p50', 'the same respond without limits', '<= 1.15'],
      ['F11b', 'rfq.maker.get_limits with 5,000 live quotes, p99', 'the same call with none', 'p99 <= 5 ms'],
    ],
  },
  {
    ids: ['F13', 'F13-PG'],
    run: runF13,
    titles: [
      ['F13', 'competitive RFQ lifecycles/s, 5 makers quoting, best accepted', "F5's seed lifecycles/s, same server, same run", '>= 0.4'],
      ['F13-pg', 'PostgreSQL CPU ms per competitive lifecycle', 'seed lifecycle, same run', 'information'],
    ],
  },
];

process.on('unhandledRejection', (error) => process.stderr.write(`unhandled rejection (ignored): ${String((error as Error)?.stack ?? error)}\n`));

/** `--curves`: how cost grows (not in CI): bench/results/curves.{json,md} and docs/figures/curve-*.svg. */
async function curvesRun(ctx: Context, startedAt: string, meter: CpuMeter, env: BenchEnv): Promise<void> {
  const { resultsDir, logDir, log } = ctx;
  const curves = await runCurves(ctx, join(__dirname, '..', '..', '..', 'docs', 'figures'));
  writeFileSync(join(resultsDir, 'curves.json'), JSON.stringify({ startedAt, finishedAt: new Date().toISOString(), curves }, null, 2) + '\n');
  writeFileSync(join(resultsDir, 'curves.md'), `# How cost grows (${startedAt})\n\n${curvesMarkdown(curves)}\n`);
  log(`wrote ${join(resultsDir, 'curves.md')}:\n${curvesMarkdown(curves)}`);
  await meter.close();
  await env.destroy().catch((error) => log(`cleanup: ${String(error)}`));
  rmSync(logDir, { recursive: true, force: true });
}

/** The figures asked for, in order; a figure group that throws is `failed` and the run goes on. */
async function runFigures(ctx: Context, only: string[] | null): Promise<{ figures: FigureResult[]; failures: string[] }> {
  const log = ctx.log;
  const figures: FigureResult[] = [];
  const failures: string[] = [];
  for (const f of FIGURES) {
    if (only && !f.ids.some((id) => only.includes(id))) continue;
    const started = Date.now();
    try {
      const results = await f.run(ctx);
      figures.push(...results);
    } catch (error) {
      const message = `${f.ids.join('/')}: ${(error as Error)?.stack ?? String(error)}`;
      failures.push(message);
      log(`FAILED ${message}`);
      for (const [id, title, base, target] of f.titles)
        figures.push(notMeasured(id, title, base, target, 'failed', String((error as Error)?.message ?? error).slice(0, 300)));
    }
    log(`${f.ids.join('/')} took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  return { figures, failures };
}

/** The one-line summary of each figure, after the report is written. */
function logSummary(figures: FigureResult[], log: (line: string) => void): void {
  for (const f of figures) {
    const met = f.met === null ? '' : f.met ? 'met' : 'NOT met';
    log(
      `${f.id.padEnd(7)} ${f.status === 'measured' ? `${f.legwork?.toFixed(2)} vs ${f.baseline?.toFixed(2)} ${f.unit}; ratio ${f.ratio?.toFixed(3)} (${f.target}) ${met}` : `${f.status}: ${f.reason}`}`,
    );
  }
}

/** The bench's database and Redis prefix, with `--legwork-env KEY=VALUE` added to the Legwork servers' environment. */
async function benchEnv(args: string[], postgresUrl: string, redisUrl: string): Promise<BenchEnv> {
  const env = await BenchEnv.create(postgresUrl, redisUrl);
  for (let i = 0; i < args.length; i++) {
    if (args[i] !== '--legwork-env') continue;
    const [key, ...rest] = args[i + 1].split('=');
    env.extra[key] = rest.join('=');
  }
  return env;
}

/** bench/results/<latest|quick>.{json,md}, then each figure's summary line. */
function writeResults(
  ctx: Context,
  run: { startedAt: string; t0: number; postgresUrl: string; redisUrl: string; profile: boolean; only: string[] | null },
  figures: FigureResult[],
  failures: string[],
): void {
  const { quick, resultsDir, log } = ctx;
  const { startedAt, t0, postgresUrl, redisUrl, profile, only } = run;
  const report: Report = {
    startedAt,
    finishedAt: new Date().toISOString(),
    mode: quick ? 'quick' : 'full',
    machine: { cpus: cpus().length, node: process.version, platform: process.platform },
    settings: { rounds: ctx.rounds, windowMs: ctx.windowMs, postgres: postgresUrl.replace(/\/\/[^@]*@/, '//'), redis: redisUrl, profile, only },
    figures,
    failures,
  };
  const out = writeReport(resultsDir, report, quick ? 'quick' : 'latest');
  log(`wrote ${out.json} and ${out.md} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  logSummary(figures, log);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  const profile = args.includes('--profile');
  const onlyArg = args.find((a) => a.startsWith('--only'));
  const only = onlyArg ? (onlyArg.includes('=') ? onlyArg.split('=')[1] : args[args.indexOf(onlyArg) + 1]).split(',').map((s) => s.trim().toUpperCase()) : null;
  const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const redisUrl = process.env.BENCH_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const resultsDir = join(__dirname, '..', '..', '..', 'bench', 'results');
  const logDir = mkdtempSync(join(tmpdir(), 'legwork-bench-'));
  const profileDir = join(resultsDir, 'profiles');
  if (profile) mkdirSync(profileDir, { recursive: true });

  const startedAt = new Date().toISOString();
  const t0 = Date.now();
  const log = (line: string) => process.stdout.write(`[bench ${((Date.now() - t0) / 1000).toFixed(1)}s] ${line}\n`);
  if (args.includes('--history')) {
    // A year-old database next to a fresh one (bench/history): bench/results/history[-quick].{json,md}.
    const code = await runHistory(args, postgresUrl, redisUrl, resultsDir, log);
    process.exit(code);
  }
  const env = await benchEnv(args, postgresUrl, redisUrl);
  const meter = await CpuMeter.open({ postgresUrl, database: env.database, redisUrl });
  const ctx: Context = {
    quick,
    // The full run takes 5 rounds: on two shared cores a round moves by tens of percent, and the
    // median of 5 is steadier than of 3 (the brief asks at least 3; the quick CI run keeps 3).
    // BENCH_ROUNDS (experiments): more rounds for a steadier median when comparing two builds.
    rounds: Number(process.env.BENCH_ROUNDS) || (quick ? 3 : 5),
    windowMs: quick ? 1000 : 3000,
    env,
    meter,
    logDir,
    resultsDir,
    // Experiments only (e.g. V8 flags): BENCH_LEGWORK_NODE_ARGS="--flag --flag" reaches the Legwork server processes.
    legworkNodeArgs: (process.env.BENCH_LEGWORK_NODE_ARGS ?? '').split(' ').filter(Boolean),
    profileDir: profile ? profileDir : null,
    scale: args.includes('--scale'),
    log,
  };
  log(`mode ${quick ? 'quick' : 'full'}, database ${env.database}, logs in ${logDir}`);

  if (args.includes('--curves')) {
    await curvesRun(ctx, startedAt, meter, env);
    process.exit(0);
  }

  const { figures, failures } = await runFigures(ctx, only);
  await meter.close();
  await env.destroy().catch((error) => log(`cleanup: ${String(error)}`));
  writeResults(ctx, { startedAt, t0, postgresUrl, redisUrl, profile, only }, figures, failures);
  if (failures.length) {
    log(`server logs kept in ${logDir}`);
    process.exit(1);
  }
  if (process.env.BENCH_KEEP_LOGS === '1') log(`server logs kept in ${logDir} (BENCH_KEEP_LOGS)`);
  else rmSync(logDir, { recursive: true, force: true });
  process.exit(0);
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
