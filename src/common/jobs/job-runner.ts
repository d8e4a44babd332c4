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

/** Exponential backoff between attempts, 200 ms doubling, at most 10 s. */
export function backoffMs(attempt: number): number {
  return Math.min(200 * 2 ** (attempt - 1), 10_000);
}
