import type { JobPayloads, QueueName } from './queues';

export interface EnqueueOptions {
  /** Run no sooner than this many milliseconds from now. */
  delayMs?: number;
  /** Deterministic id: a job with the same id that is still waiting is not added twice. */
  jobId?: string;
  /** Attempts before the job is given up (default 5). */
  attempts?: number;
}

export interface JobContext {
  attempt: number;
  jobId: string;
}

export type JobProcessor<Q extends QueueName> = (data: JobPayloads[Q], context: JobContext) => Promise<void>;

/**
 * The jobs port: BullMQ on Redis in production, in-process timers in the embedded default.
 * The same processors run in both. Delivery is at least once: processors are idempotent.
 */
export abstract class JobRunner {
  abstract process<Q extends QueueName>(queue: Q, processor: JobProcessor<Q>, options?: { concurrency?: number }): void;
  abstract enqueue<Q extends QueueName>(queue: Q, data: JobPayloads[Q], options?: EnqueueOptions): Promise<void>;
  /** Jobs waiting, delayed or active, per queue. */
  abstract depths(): Promise<Record<string, number>>;
  /** Stop taking jobs and wait for the running ones. */
  abstract close(): Promise<void>;
}

export const DEFAULT_ATTEMPTS = 5;

/** Jobs of one queue a worker runs at once when nothing smaller is asked (BullMQ's usual figure here). */
const MAX_WORKER_CONCURRENCY = 8;

/**
 * How many jobs of a queue one worker runs at once, sized from the database pool it shares with
 * the requests: a fill holds a pooled connection for its whole transaction (lock waits included),
 * so fills may take at most the pool less a fifth (at least one connection) kept for requests, and
 * never more than MAX_WORKER_CONCURRENCY. Pool 10 (the default) keeps 8 fills; the embedded
 * database's pool of 1 runs one at a time, as its single session does anyway. Expiry and
 * settlement jobs keep MAX_WORKER_CONCURRENCY: both are rare beside fills, and an expiry job holds
 * a connection only from 200 ms before its deadline (one job per deadline second: RfqExpiryService).
 */
export function workerConcurrency(queue: QueueName, poolSize: number): number {
  if (queue !== 'rfq-fill') return MAX_WORKER_CONCURRENCY;
  const reserved = Math.max(1, Math.ceil(poolSize / 5));
  return Math.max(1, Math.min(MAX_WORKER_CONCURRENCY, poolSize - reserved));
}

/** Exponential backoff between attempts, 200 ms doubling, at most 10 s. */
export function backoffMs(attempt: number): number {
  return Math.min(200 * 2 ** (attempt - 1), 10_000);
}
