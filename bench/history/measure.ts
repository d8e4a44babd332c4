import type { CpuReading } from '../lib/cpu';
import type { FigureResult } from '../lib/report';
import type { Rpc } from '../lib/rpc';
import { Samples, median, medianOrNull } from '../lib/stats';

/** One round of a year-vs-fresh figure: `legwork` the year side, `baseline` the fresh side. */
export interface PairRound {
  legwork: number;
  baseline: number;
  [key: string]: unknown;
}

/**
 * A year-vs-fresh figure in latest.json's shape. `kind` says which way is worse: for a `rate`
 * (higher is better) the ratio is fresh / year, for a `cost` (lower is better) year / fresh; either
 * way a ratio above 1 is what the year costs more, and the target is `<= target`.
 */
export function pairFigure(
  f: { id: string; title: string; unit: string; kind: 'rate' | 'cost'; target?: number; notes?: string[]; extra?: Record<string, unknown> },
  rounds: PairRound[],
  cpu?: FigureResult['cpu'],
): FigureResult {
  const target = f.target ?? 1.25;
  const ratio = medianWithInfinity(rounds.map((x) => roundRatio(f.kind, x)));
  return {
    id: f.id,
    title: f.title,
    unit: f.unit,
    baselineTitle: 'fresh database',
    status: 'measured',
    legwork: median(rounds.map((x) => x.legwork)),
    baseline: median(rounds.map((x) => x.baseline)),
    ratioOf: f.kind === 'rate' ? 'fresh / year, median of per-round ratios' : 'year / fresh, median of per-round ratios',
    ratio,
    target: `<= ${target.toFixed(2)}`,
    met: Number.isNaN(ratio) ? null : ratio <= target,
    rounds,
    ...(cpu ? { cpu } : {}),
    ...(f.extra ? { extra: f.extra } : {}),
    ...(f.notes ? { notes: f.notes } : {}),
  };
}

/** A round's ratio: what the year costs more; Infinity when the year side did nothing, NaN when neither did. */
function roundRatio(kind: 'rate' | 'cost', x: PairRound): number {
  const [worse, better] = kind === 'rate' ? [x.baseline, x.legwork] : [x.legwork, x.baseline];
  if (!Number.isFinite(worse) || !Number.isFinite(better)) return kind === 'cost' && x.legwork === Infinity ? Infinity : NaN;
  if (better === 0) return worse === 0 ? NaN : Infinity;
  return worse / better;
}

/** The median, counting Infinity (a round where the year side did nothing) and leaving NaN out. */
function medianWithInfinity(values: number[]): number {
  const v = values.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  if (!v.length) return NaN;
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/** An absolute figure of the year side (no fresh comparison): `met` from `check`. */
export function absoluteFigure(
  f: { id: string; title: string; unit: string; target: string; notes?: string[]; extra?: Record<string, unknown> },
  value: number,
  baseline: number | null,
  met: boolean | null,
  rounds: PairRound[] = [],
): FigureResult {
  return {
    id: f.id,
    title: f.title,
    unit: f.unit,
    baselineTitle: baseline === null ? 'none (absolute)' : 'see notes',
    status: 'measured',
    legwork: value,
    baseline,
    ratioOf: 'none: absolute target',
    ratio: null,
    target: f.target,
    met,
    rounds,
    ...(f.extra ? { extra: f.extra } : {}),
    ...(f.notes ? { notes: f.notes } : {}),
  };
}

/** CPU seconds per 1,000 operations of each side, medians over the rounds. */
export function cpuPer1000(rounds: Array<{ cpuL: CpuReading; cpuB: CpuReading; opsL: number; opsB: number }>): FigureResult['cpu'] {
  const per = (pick: (x: (typeof rounds)[number]) => [number | null, number]) =>
    medianOrNull(
      rounds.map((x) => {
        const [s, n] = pick(x);
        return s === null || n <= 0 ? null : (s / n) * 1000;
      }),
    );
  const side = (which: 'L' | 'B') => ({
    server: per((x) => [which === 'L' ? x.cpuL.server : x.cpuB.server, which === 'L' ? x.opsL : x.opsB]),
    postgres: per((x) => [which === 'L' ? x.cpuL.postgres : x.cpuB.postgres, which === 'L' ? x.opsL : x.opsB]),
    redis: per((x) => [which === 'L' ? x.cpuL.redis : x.cpuB.redis, which === 'L' ? x.opsL : x.opsB]),
  });
  return { legwork: side('L'), baseline: side('B') };
}

interface RpcLoad {
  calls: number;
  seconds: number;
  rate: number;
  p50: number;
  p99: number;
  measured: unknown;
}

/** `calls` JSON-RPC calls over one connection, `inFlight` at a time (closed loop); throws on an error reply. */
export async function rpcLoad(
  rpc: Rpc,
  method: string,
  params: unknown,
  calls: number,
  inFlight: number,
  measure?: () => Promise<() => Promise<unknown>>,
): Promise<RpcLoad> {
  const samples = new Samples();
  const stop = measure ? await measure() : null;
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < calls) {
        next++;
        const s = performance.now();
        const reply = await rpc.call(method, params);
        if (reply.error) throw new Error(`${method}: ${JSON.stringify(reply.error)}`);
        samples.push(performance.now() - s);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const measured = stop ? await stop() : null;
  return { calls, seconds, rate: calls / seconds, p50: samples.percentile(50), p99: samples.percentile(99), measured };
}
