import type { ServerProcess } from './proc';

/** A Prometheus histogram as the app's registry holds it: cumulative bucket counts (`le` Infinity last), sum, count. */
export interface Histogram {
  buckets: Array<{ le: number; count: number }>;
  sum: number;
  count: number;
}

/** The journal head's histograms (MetricsService.journalHead). */
export const HEAD_HISTOGRAMS = ['legwork_journal_head_hold_seconds', 'legwork_journal_head_wait_seconds'] as const;

/** Histograms of a Legwork server (bench/servers/legwork.ts, `histograms`), by name; a name the server lacks is absent. */
export async function readHistograms(server: ServerProcess, names: readonly string[]): Promise<Record<string, Histogram>> {
  const reply = await server.request({ type: 'histograms', names });
  return (reply.histograms ?? {}) as Record<string, Histogram>;
}

/** `after` − `before` (the observations of a window); `before` null: `after` itself. */
export function delta(after: Histogram, before: Histogram | null | undefined): Histogram {
  if (!before) return after;
  return {
    buckets: after.buckets.map((b, i) => ({ le: b.le, count: b.count - (before.buckets[i]?.count ?? 0) })),
    sum: after.sum - before.sum,
    count: after.count - before.count,
  };
}

/** The observations of several servers together (same buckets). */
export function merge(list: Histogram[]): Histogram | null {
  if (list.length === 0) return null;
  return {
    buckets: list[0].buckets.map((b, i) => ({ le: b.le, count: list.reduce((sum, h) => sum + (h.buckets[i]?.count ?? 0), 0) })),
    sum: list.reduce((sum, h) => sum + h.sum, 0),
    count: list.reduce((sum, h) => sum + h.count, 0),
  };
}

/**
 * The q-quantile (0..1) as Prometheus' histogram_quantile computes it: linear within the bucket
 * that holds the rank (the first bucket from 0; in the +Inf bucket, the highest finite bound).
 * Exact only to the bucket: the app's head buckets are 0.25 ms wide below 2 ms, then 1–10 ms.
 */
function quantile(h: Histogram, q: number): number {
  if (h.count <= 0) return NaN;
  const rank = q * h.count;
  let lower = 0;
  let below = 0;
  for (const b of h.buckets) {
    if (b.count >= rank) {
      if (!Number.isFinite(b.le)) return lower;
      const inBucket = b.count - below;
      return inBucket > 0 ? lower + ((b.le - lower) * (rank - below)) / inBucket : b.le;
    }
    lower = Number.isFinite(b.le) ? b.le : lower;
    below = b.count;
  }
  return lower;
}

/** p50, p99 and mean in ms, and the observations, of a window's histogram. */
export function summary(h: Histogram | null | undefined): { p50_ms: number; p99_ms: number; mean_ms: number; count: number } | null {
  if (!h || h.count <= 0) return null;
  return { p50_ms: quantile(h, 0.5) * 1000, p99_ms: quantile(h, 0.99) * 1000, mean_ms: (h.sum / h.count) * 1000, count: h.count };
}
