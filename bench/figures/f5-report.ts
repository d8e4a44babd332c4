import { per1000 } from '../lib/cpu';
import type { FillProfile } from '../lib/fill-profile';
import { summary } from '../lib/histogram';
import type { Script } from '../lib/pgbench';
import { type FigureResult, notMeasured } from '../lib/report';
import { median, medianOrNull, percentile } from '../lib/stats';
import type { Context } from './context';
import { type BaselineRound, type LegworkRound, PAIRS } from './f5-rounds';

/** The figures of F5 (lifecycles/s), F6 (expiry lateness) and F7 (accept → filled) from their rounds, and the rounds' log lines. */

export type F5Rounds = Array<{ l: LegworkRound; b: BaselineRound }>;

/** What the figures say besides the rounds: the run's settings, the script, and the extra windows. */
export interface F5Extras {
  quoteLifetime: number;
  warmMs: number;
  probeRate: number;
  tracedStatements: number;
  script: Script;
  scale: unknown;
  profile: FillProfile | null;
  idle: LegworkRound | null;
}

/** CPU ms per operation, for the round's log line. */
const cpuMs = (seconds: number | null | undefined, ops: number) => per1000(seconds ?? null, ops)?.toFixed(2) ?? '-';

/** The four figures when F5 cannot run. */
export function f5NotMeasured(reason: string): FigureResult[] {
  return [
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
}

/** The round's two log lines: the journal head, then each side's rates, latencies and CPU. */
export function logRound(ctx: Context, r: number, l: LegworkRound, b: BaselineRound): void {
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

export function f5Figures(rounds: F5Rounds, e: F5Extras, log: (line: string) => void): FigureResult[] {
  const journalHead = headFigures(rounds.map((x) => x.l));
  if (journalHead) log(`F5 journal head (medians of the rounds): ${JSON.stringify(journalHead)}`);
  return [f5Figure(rounds, e, journalHead), f6Figure(rounds, e), ...f7Figures(rounds, e)];
}

function f5Figure(rounds: F5Rounds, e: F5Extras, journalHead: ReturnType<typeof headFigures>): FigureResult {
  const lps = rounds.map((x) => x.l.lifecycles / x.l.seconds);
  // The brief's ratio: Legwork's commits per second over pgbench's (tps x commits per script run).
  const ratios = rounds.map(
    (x) => ((x.l.lifecycles / x.l.seconds) * (x.l.commits / Math.max(1, x.l.lifecycles))) / (x.b.pg.tps * (x.b.commits / Math.max(1, x.b.pg.transactions))),
  );
  const ratio = median(ratios);
  return {
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
    extra: f5Extra(rounds, e, journalHead),
    notes: [
      `quote lifetime ${e.quoteLifetime} s and RFQ_TTL_SECONDS ${e.quoteLifetime + 1} s so that each lifecycle's deferred expiry jobs run inside the window (steady state after a ${e.warmMs} ms warm-up); rate limits raised for the bench`,
      "journal_head: the server's legwork_journal_head_{hold,wait}_seconds over phase A (p50/p99 interpolated within the histogram's buckets, mean exact); held = the lock statement's reply to the COMMIT's reply, wait = the lock statement; busy = held seconds per window second; ceiling = 1 / held time, appends per second of one chain",
      "pgbench runs one SELECT nextval(...) \\gset per script run for fresh ids (its commit is taken out of pgbench's count: both sides count the commits of the lifecycle's statements; Legwork's count includes its background sweeps and expiry jobs); CPU per 1,000 lifecycles; the baseline's \"server\" is the pgbench client (not counted)",
    ],
  };
}

function f5Extra(rounds: F5Rounds, e: F5Extras, journalHead: ReturnType<typeof headFigures>): Record<string, unknown> {
  const script = e.script;
  return {
    commits_per_lifecycle: median(rounds.map((x) => x.l.commits / Math.max(1, x.l.lifecycles))),
    pgbench_commits_per_run: median(rounds.map((x) => x.b.commits / Math.max(1, x.b.pg.transactions))),
    lifecycles_ratio: median(rounds.map((x) => x.l.lifecycles / x.l.seconds / x.b.pg.tps)),
    traced_statements: e.tracedStatements,
    script: { statements: script.statements, transactions: script.transactions, autocommit: script.autocommit, commits: script.commits },
    failures: rounds.map((x) => x.l.failures),
    lifecycle_p99_ms: median(rounds.map((x) => x.l.latencyP99)),
    load_generator_cpu_ms_per_lifecycle: median(rounds.map((x) => (x.l.clientCpuSeconds * 1000) / Math.max(1, x.l.lifecycles))),
    journal_head: journalHead,
    postgres_backends_cpu_ms_per_lifecycle: medianOrNull(rounds.map((x) => per1000(x.l.cpu.postgresBackends ?? null, x.l.lifecycles))),
    scale_out: e.scale,
    pgbench_postgres_backends_cpu_ms_per_run: medianOrNull(rounds.map((x) => per1000(x.b.cpu.postgresBackends ?? null, x.b.pg.transactions))),
  };
}

function f6Figure(rounds: F5Rounds, e: F5Extras): FigureResult {
  const { probeRate, idle } = e;
  const p99L = median(rounds.map((x) => percentile(x.l.probes, 99)));
  const p99B = median(rounds.map((x) => percentile(x.b.bullmq, 99)));
  // The target: at most 1.2x the baseline's p99, so expiry stays as punctual as a bare delayed job.
  const allowed = 1.2 * p99B;
  const lost = rounds.reduce((a, x) => a + x.l.probesLost, 0);
  return {
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
  };
}

function f7Figures(rounds: F5Rounds, e: F5Extras): FigureResult[] {
  const { script, profile } = e;
  // F7: accept → filled at the taker against BullMQ's add → processed plus the fill statements' pgbench latency.
  const f7 = (p: number) => ({
    legwork: median(rounds.map((x) => percentile(x.l.fillMs, p))),
    baseline: median(rounds.map((x) => percentile(x.b.bullmqNow, p) + x.b.fillStatementsMs)),
    ratio: median(rounds.map((x) => percentile(x.l.fillMs, p) / (percentile(x.b.bullmqNow, p) + x.b.fillStatementsMs))),
  });
  const f7p50 = f7(50);
  const f7p99 = f7(99);
  return [
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
