import { Queue, Worker } from 'bullmq';
import Redis from 'ioredis';

/**
 * Baseline of F6: a bare BullMQ queue and worker on the same Redis (own prefix), with the options
 * of Legwork's BullMqJobRunner (attempts, backoff, removeOnComplete/Fail, concurrency 8). On
 * `{ type: 'run', rate, seconds, lifetime }` it adds delayed no-op jobs at `rate` per second for
 * `seconds`, each due at the next whole second + `lifetime` (as a quote's expires_at = now + lifetime
 * in unix seconds), and answers the lateness (processed - due, ms) of every job.
 */
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = process.env.REDIS_PREFIX ?? 'legwork-bench-bullmq';
const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
const queue = new Queue('bench-expiry', {
  connection,
  prefix,
  defaultJobOptions: { attempts: 5, backoff: { type: 'exponential', delay: 200 }, removeOnComplete: { count: 1000 }, removeOnFail: { count: 5000 } },
});
let sink: ((due: number, at: number) => void) | null = null;
const worker = new Worker(
  'bench-expiry',
  async (job) => {
    sink?.(job.data.due as number, Date.now());
  },
  { connection, prefix, concurrency: 8 },
);
/**
 * Baseline of F7: a second queue and worker, same options, for jobs added to run at once (as the
 * fill job is): on `{ type: 'latency', rate, seconds }` it adds `rate` jobs per second for `seconds`,
 * each with its own job id and Legwork's fill attempts, and answers add → processed (ms) of each.
 */
const nowQueue = new Queue('bench-now', {
  connection,
  prefix,
  defaultJobOptions: { attempts: 8, backoff: { type: 'exponential', delay: 200 }, removeOnComplete: { count: 1000 }, removeOnFail: { count: 5000 } },
});
let nowSink: ((addedAt: number, at: number) => void) | null = null;
const nowWorker = new Worker(
  'bench-now',
  async (job) => {
    nowSink?.(job.data.addedAt as number, performance.now());
  },
  { connection, prefix, concurrency: 8 },
);

async function latencyRun(rate: number, seconds: number): Promise<number[]> {
  const samples: number[] = [];
  nowSink = (addedAt, at) => samples.push(at - addedAt);
  const start = performance.now();
  const total = Math.round(rate * seconds);
  let added = 0;
  while (added < total) {
    const due = start + (added * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    void nowQueue.add('fill', { addedAt: performance.now() }, { jobId: `now-${process.pid}-${Math.round(start)}-${added}` });
    added++;
  }
  const deadline = Date.now() + 5000;
  while (samples.length < added && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  nowSink = null;
  return samples;
}

async function onMessage(m: { type: string; rate: number; seconds: number; lifetime: number }): Promise<void> {
  if (m.type === 'latency') {
    process.send?.({ type: 'latency', samples: await latencyRun(m.rate, m.seconds) });
    return;
  }
  if (m.type !== 'run') return;
  const samples: Array<{ due: number; lateness: number }> = [];
  sink = (due, at) => samples.push({ due, lateness: at - due });
  const start = Date.now();
  const interval = 1000 / m.rate;
  let added = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = Date.now();
      while (added < m.rate * m.seconds && start + added * interval <= now) {
        const due = (Math.floor(now / 1000) + m.lifetime) * 1000;
        void queue.add('expire', { due }, { jobId: `expire-${process.pid}-${start}-${added}`, delay: Math.max(0, due - now) });
        added++;
      }
      if (added >= m.rate * m.seconds) {
        clearInterval(timer);
        resolve();
      }
    }, 5);
  });
  const deadline = Date.now() + (m.lifetime + 3) * 1000;
  while (samples.length < added && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  sink = null;
  process.send?.({ type: 'run', added, samples });
}

async function shutdown(): Promise<void> {
  await worker.close();
  await nowWorker.close();
  await queue.obliterate({ force: true }).catch(() => undefined);
  await nowQueue.obliterate({ force: true }).catch(() => undefined);
  await queue.close();
  await nowQueue.close();
  connection.disconnect();
  process.exit(0);
}

/** A failure here leaves the parent without an answer: it is reported, and the process ends. */
function fail(error: unknown): void {
  process.stderr.write(`bullmq-expiry server failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
}

process.on('message', (m: { type: string; rate: number; seconds: number; lifetime: number }) => void onMessage(m).catch(fail));
process.on('SIGTERM', () => void shutdown().catch(fail));
Promise.all([worker.waitUntilReady(), nowWorker.waitUntilReady()]).then(() => process.send?.({ type: 'ready', port: 0 }), fail);
