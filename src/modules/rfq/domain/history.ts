/**
 * A year of history (docs/spec/design.md 17): when an ended RFQ's history is due, how late the
 * sweep is, and how large its next statement may be. Pure: time is a parameter.
 */

/** Rows one statement of the history sweep may touch at most (design 17). */
export const MAX_BATCH_ROWS = 5_000;
/** The smallest statement the sweep shrinks to: progress even on a slow embedded database. */
export const MIN_BATCH_ROWS = 50;
/**
 * A statement that took longer than this halves the next one; one under a quarter of it doubles
 * the next (up to MAX_BATCH_ROWS). Far under the 100 ms a trading statement may wait on the sweep,
 * which on the embedded database (one session) is every statement's wait. At 10 ms the trading
 * path's p99 during a backlog's deletion reached 1.3-1.7x its p99 without (retention.e2e-spec.ts, on
 * PostgreSQL, 2 cores): each trading COMMIT flushes the sweep's WAL written before it, so smaller
 * statements mean smaller flushes on the trading path.
 */
const TARGET_STATEMENT_MS = 5;

/**
 * After each statement the sweep rests this many times as long as the statement took: it takes at
 * most a twenty-first of the database. What a drain costs trading is the I/O of the pages it
 * dirties (sampled in pg_stat_activity, the trading backends wait mostly in IO:WALSync; compressing
 * the WAL with lz4 did not help), so it grows with the drain's rate: in retention.e2e-spec.ts
 * (PostgreSQL, 2 cores, Node 24) the trading p99 rose 4.8 ms (12.3 against 7.5) at 5; at 10 (52 to
 * 93 RFQs/s) 1.0 to 3.1 ms, 1.14x to 1.52x. At 20 a week of a busy venue's unfilled RFQs (57,000)
 * drains in 20 to 40 minutes.
 */
export const REST_PER_STATEMENT = 20;

/** RFQ_HISTORY_DAYS as whole seconds, at least one. */
export function historySeconds(days: number): number {
  return Math.max(1, Math.round(days * 86_400));
}

/** An ended RFQ's history is due when `ended_at < cutoff`: it ended RFQ_HISTORY_DAYS ago or more. */
export function historyCutoff(now: number, days: number): number {
  return now - historySeconds(days);
}

/** One kind of row and its retention: the time its clock starts from (`ended_at`, `at`) for the oldest row, null when there is none. */
export interface Oldest {
  at: number | null;
  keepSeconds: number;
}

/**
 * `legwork_retention_lag_seconds`: how long the oldest row past its retention has been past it,
 * over every kind of row; 0 when the sweep keeps up (or there is nothing).
 */
export function retentionLag(now: number, oldest: readonly Oldest[]): number {
  let lag = 0;
  for (const o of oldest) if (o.at !== null) lag = Math.max(lag, now - o.keepSeconds - o.at);
  return lag;
}

/** The size of the sweep's next statement after one of `rows` rows took `ms` milliseconds. */
export function nextBatchRows(rows: number, ms: number): number {
  if (ms > TARGET_STATEMENT_MS) return Math.max(MIN_BATCH_ROWS, Math.floor(rows / 2));
  if (ms < TARGET_STATEMENT_MS / 4) return Math.min(MAX_BATCH_ROWS, rows * 2);
  return Math.min(MAX_BATCH_ROWS, Math.max(MIN_BATCH_ROWS, rows));
}
