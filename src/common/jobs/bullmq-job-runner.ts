import { Queue, Worker } from 'bullmq';
import type Redis from 'ioredis';
import { isDependencyDown } from '../errors/dependency';
import { logger } from '../logging/logger';
import { DEFAULT_ATTEMPTS, type EnqueueOptions, type JobProcessor, JobRunner, workerConcurrency } from './job-runner';
import { QUEUES, type JobPayloads, type QueueName } from './queues';
import { closeWithin, quitRedis, settlesWithin } from '../redis/close';

/** How long a shutdown waits for running jobs before it disconnects the workers. */
const WORKER_CLOSE_MS = 5000;
/**
 * A job's lock, renewed by its worker every half of it (docs/spec/design.md section 11: a dead instance's
 * jobs are taken over within 10 s). A job whose instance died is found stalled at the first
 * check after the lock lapses, at most LOCK + STALLED_CHECK = 7 s after the death, and run
 * again by a live instance. BullMQ's defaults (30 s + 30 s) took up to a minute.
 */
const JOB_LOCK_MS = 5000;
const STALLED_CHECK_MS = 2000;
/**
 * A worker that merely missed a renewal (a long event-loop stall) is taken for dead too: the job
 * then runs twice, which the processors tolerate (idempotent). More than BullMQ's default of 1,
 * so a job that stalls once or twice is not failed for it.
 */
const MAX_STALLED = 5;

/**
 * Production: BullMQ on Redis. Every instance runs a worker per queue, so the instances share the
 * work; a job id dedupes a job while it waits.
 */
export class BullMqJobRunner extends JobRunner {
  private readonly queues = new Map<QueueName, Queue>();
  private readonly workers: Worker[] = [];

  constructor(
    /** BullMQ's connection (commands that block: maxRetriesPerRequest null). Closed with the runner. */
    private readonly connection: Redis,
    private readonly prefix: string,
    /** The database pool's size, which bounds the workers' concurrency (workerConcurrency). */
    private readonly poolSize: number,
  ) {
    super();
  }

  private queue(name: QueueName): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, {
        connection: this.connection,
        prefix: this.prefix,
        defaultJobOptions: {
          attempts: DEFAULT_ATTEMPTS,
          backoff: { type: 'exponential', delay: 200 },
          removeOnComplete: { count: 1000 },
          removeOnFail: { count: 5000 },
        },
      });
      queue.on('error', (error) => logger.event(isDependencyDown(error) ? 'warn' : 'error', 'queue error', { queue: name, error: String(error) }, 'Jobs'));
      this.queues.set(name, queue);
    }
    return queue;
  }

  process<Q extends QueueName>(name: Q, processor: JobProcessor<Q>, options: { concurrency?: number } = {}): void {
    const worker = new Worker(name, async (job) => processor(job.data as JobPayloads[Q], { attempt: job.attemptsMade + 1, jobId: job.id ?? '' }), {
      connection: this.connection,
      prefix: this.prefix,
      concurrency: options.concurrency ?? workerConcurrency(name, this.poolSize),
      lockDuration: JOB_LOCK_MS,
      stalledInterval: STALLED_CHECK_MS,
      maxStalledCount: MAX_STALLED,
    });
    worker.on('failed', (job, error) =>
      logger.event(
        job && job.attemptsMade >= (job.opts.attempts ?? 1) ? 'error' : 'warn',
        'job attempt failed',
        {
          queue: name,
          job_id: job?.id,
          attempt: job?.attemptsMade,
          error: String(error),
        },
        'Jobs',
      ),
    );
    worker.on('error', (error) => logger.event(isDependencyDown(error) ? 'warn' : 'error', 'worker error', { queue: name, error: String(error) }, 'Jobs'));
    this.workers.push(worker);
  }

  async enqueue<Q extends QueueName>(name: Q, data: JobPayloads[Q], options: EnqueueOptions = {}): Promise<void> {
    await this.queue(name).add(name, data, {
      jobId: options.jobId,
      delay: options.delayMs && options.delayMs > 0 ? Math.ceil(options.delayMs) : undefined,
      attempts: options.attempts,
    });
  }

  async depths(): Promise<Record<string, number>> {
    const depths: Record<string, number> = {};
    for (const name of Object.values(QUEUES)) {
      const counts = await this.queue(name).getJobCounts('waiting', 'delayed', 'active', 'prioritized');
      depths[name] = Object.values(counts).reduce((a, b) => a + b, 0);
    }
    return depths;
  }

  /**
   * Lets the running jobs finish (at most WORKER_CLOSE_MS), then closes the queues and the
   * connection. A worker whose Redis connection is reconnecting may never finish closing: it is
   * disconnected instead (its job, if any, is retried by BullMQ or the sweep).
   */
  async close(): Promise<void> {
    // Redis down or reconnecting: nothing can be closed gracefully, and each wait below would run out.
    if (this.connection.status !== 'ready') {
      // A forced close drops each client's own connection without waiting for it to be ready
      // (`disconnect()` waits for that, so it never returned, and its connections kept reconnecting).
      const closes = [...this.workers.map((w) => w.close(true)), ...[...this.queues.values()].map((q) => q.close())];
      await settlesWithin(Promise.all(closes.map((c) => c.catch(() => undefined))), 1000);
      logger.event('warn', 'job workers disconnected: Redis is not reachable', {}, 'Jobs');
      await quitRedis(this.connection);
      return;
    }
    const graceful = await closeWithin(
      () => Promise.all(this.workers.map((w) => w.close())),
      WORKER_CLOSE_MS,
      () => Promise.all(this.workers.map((w) => w.disconnect().catch(() => undefined))),
      1000,
    );
    if (!graceful) logger.event('warn', 'job workers did not stop in time: disconnected', { after_ms: WORKER_CLOSE_MS }, 'Jobs');
    await closeWithin(
      () => Promise.all([...this.queues.values()].map((q) => q.close())),
      2000,
      () => Promise.all([...this.queues.values()].map((q) => q.disconnect())),
    );
    await quitRedis(this.connection);
  }
}
