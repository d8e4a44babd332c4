import { logger } from '../logging/logger';
import { DEFAULT_ATTEMPTS, type EnqueueOptions, type JobContext, type JobProcessor, JobRunner, backoffMs, workerConcurrency } from './job-runner';
import type { JobPayloads, QueueName } from './queues';

/** The longest delay one Node timer can hold. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

interface PendingJob {
  timer: NodeJS.Timeout | null;
  running: boolean;
}

/** A processor once stored: the map forgets its queue's payload type; `run` hands it only data enqueued on that queue. */
type StoredProcessor = (data: unknown, context: JobContext) => Promise<void>;

/** A queue's worker slots: jobs past `limit` wait in order for a running one to end. */
interface Slots {
  limit: number;
  active: number;
  queued: Array<() => void>;
}

/**
 * Embedded default: timers in this process call the same processors, at most the queue's
 * concurrency at once (workerConcurrency, as BullMQ's workers: due jobs beyond it wait their turn
 * instead of all queueing for the database pool at once). One instance only; jobs lost with the
 * process are picked up by the database sweeps on the next start.
 */
export class InProcessJobRunner extends JobRunner {
  private readonly processors = new Map<QueueName, StoredProcessor>();
  private readonly slots = new Map<QueueName, Slots>();
  private readonly jobs = new Map<string, PendingJob>();
  private readonly running = new Set<Promise<void>>();
  private closed = false;
  private seq = 0;

  /** `poolSize`: the database pool's size, which bounds each queue's concurrency (workerConcurrency). */
  constructor(private readonly poolSize = 10) {
    super();
  }

  process<Q extends QueueName>(queue: Q, processor: JobProcessor<Q>, options: { concurrency?: number } = {}): void {
    if (this.processors.has(queue)) throw new Error(`queue ${queue} has a processor already`);
    this.processors.set(queue, processor as StoredProcessor);
    this.slotsOf(queue).limit = Math.max(1, options.concurrency ?? workerConcurrency(queue, this.poolSize));
  }

  private slotsOf(queue: QueueName): Slots {
    let slots = this.slots.get(queue);
    if (!slots) {
      slots = { limit: workerConcurrency(queue, this.poolSize), active: 0, queued: [] };
      this.slots.set(queue, slots);
    }
    return slots;
  }

  /** Waits for a slot of the queue; the returned function gives it to the next waiting job, or frees it. */
  private async slot(queue: QueueName): Promise<() => void> {
    const slots = this.slotsOf(queue);
    if (slots.active < slots.limit) slots.active += 1;
    else await new Promise<void>((resolve) => slots.queued.push(resolve));
    return () => {
      const next = slots.queued.shift();
      if (next) next();
      else slots.active -= 1;
    };
  }

  async enqueue<Q extends QueueName>(queue: Q, data: JobPayloads[Q], options: EnqueueOptions = {}): Promise<void> {
    if (this.closed) return;
    const key = `${queue}/${options.jobId ?? `auto-${++this.seq}`}`;
    if (this.jobs.has(key)) return;
    const job: PendingJob = { timer: null, running: false };
    this.jobs.set(key, job);
    this.schedule(queue, key, job, data, 1, options.attempts ?? DEFAULT_ATTEMPTS, options.delayMs ?? 0);
  }

  private schedule(queue: QueueName, key: string, job: PendingJob, data: unknown, attempt: number, attempts: number, delayMs: number): void {
    // setTimeout fires at once past 2^31-1 ms (24.8 days): longer delays wait in steps.
    const step = Math.min(Math.max(0, delayMs), MAX_TIMER_MS);
    job.timer = setTimeout(() => {
      job.timer = null;
      if (delayMs > MAX_TIMER_MS) {
        this.schedule(queue, key, job, data, attempt, attempts, delayMs - MAX_TIMER_MS);
        return;
      }
      const run = this.run(queue, key, job, data, attempt, attempts);
      this.running.add(run);
      void run.finally(() => this.running.delete(run));
    }, step);
    job.timer.unref?.();
  }

  private async run(queue: QueueName, key: string, job: PendingJob, data: unknown, attempt: number, attempts: number): Promise<void> {
    const release = await this.slot(queue);
    try {
      await this.attempt(queue, key, job, data, attempt, attempts);
    } finally {
      release();
    }
  }

  private async attempt(queue: QueueName, key: string, job: PendingJob, data: unknown, attempt: number, attempts: number): Promise<void> {
    const processor = this.processors.get(queue);
    if (!processor || this.closed) {
      this.jobs.delete(key);
      return;
    }
    job.running = true;
    try {
      await processor(data, { attempt, jobId: key.slice(queue.length + 1) });
      this.jobs.delete(key);
    } catch (error) {
      job.running = false;
      if (attempt >= attempts || this.closed) {
        this.jobs.delete(key);
        logger.event('error', 'job failed', { queue, job_id: key, attempt, error: String(error) }, 'Jobs');
        return;
      }
      logger.event('warn', 'job attempt failed', { queue, job_id: key, attempt, error: String(error) }, 'Jobs');
      this.schedule(queue, key, job, data, attempt + 1, attempts, backoffMs(attempt));
    }
  }

  async depths(): Promise<Record<string, number>> {
    const depths: Record<string, number> = {};
    for (const queue of this.processors.keys()) depths[queue] = 0;
    for (const key of this.jobs.keys()) {
      const queue = key.slice(0, key.indexOf('/'));
      depths[queue] = (depths[queue] ?? 0) + 1;
    }
    return depths;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.jobs.values()) if (job.timer) clearTimeout(job.timer);
    // Jobs waiting for a slot start, see the runner closed and end: nothing is left waiting.
    for (const slots of this.slots.values()) {
      for (const next of slots.queued.splice(0)) {
        slots.active += 1;
        next();
      }
    }
    await Promise.allSettled([...this.running]);
    this.jobs.clear();
  }
}
