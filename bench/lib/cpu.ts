import Redis from 'ioredis';
import { Client } from 'pg';
import { procCpuSeconds } from './proc';

/**
 * CPU seconds spent by the services during a measurement window:
 * - a process (the server under test): utime + stime of /proc/<pid>/stat, every thread;
 * - PostgreSQL: the backends of the bench database (pids from pg_stat_activity, so other
 *   databases' work on the shared server is not counted) plus the auxiliary processes (WAL writer,
 *   checkpointer, background writer, autovacuum), all read from /proc;
 * - Redis: used_cpu_user + used_cpu_sys of `INFO cpu` (the whole Redis server).
 */
export interface CpuReading {
  server: number | null;
  postgres: number | null;
  /**
   * Of `postgres`, the bench database's own backends only (information): the auxiliary processes
   * serve every database of a shared server, so their share moves with what other users write.
   */
  postgresBackends?: number | null;
  redis: number | null;
}

export class CpuMeter {
  private constructor(
    private readonly pg: Client | null,
    private readonly redis: Redis | null,
    private readonly database: string | null,
  ) {}

  static async open(options: { postgresUrl?: string | null; database?: string | null; redisUrl?: string | null }): Promise<CpuMeter> {
    let pg: Client | null = null;
    if (options.postgresUrl) {
      pg = new Client({ connectionString: options.postgresUrl });
      await pg.connect();
    }
    const redis = options.redisUrl ? new Redis(options.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 }) : null;
    if (redis) await redis.connect();
    return new CpuMeter(pg, redis, options.database ?? null);
  }

  /**
   * Starts a window; `stop()` gives the seconds each spent since. PostgreSQL backends are polled
   * every 250 ms during the window, so that a backend that connects and leaves inside it (pgbench)
   * counts up to its last poll.
   */
  async start(serverPid: number | null): Promise<() => Promise<CpuReading>> {
    const server0 = serverPid ? procCpuSeconds(serverPid) : null;
    const own = new Set<number>();
    const first = await this.postgresTimes(own);
    const last = new Map(first ?? []);
    const poll = async () => {
      const now = await this.postgresTimes(own).catch(() => null);
      if (now) for (const [pid, t] of now) last.set(pid, t);
    };
    let polling: Promise<void> = Promise.resolve();
    const timer = first
      ? setInterval(() => {
          polling = polling.then(poll);
        }, 250)
      : null;
    const redis0 = await this.redisSeconds();
    return async () => {
      const server1 = serverPid ? procCpuSeconds(serverPid) : null;
      if (timer) clearInterval(timer);
      await polling;
      await poll();
      const redis1 = await this.redisSeconds();
      let postgres: number | null = null;
      let postgresBackends: number | null = null;
      if (first) {
        postgres = 0;
        postgresBackends = 0;
        // A process seen during the window: its time since the start, or all of it when it is new.
        for (const [pid, t1] of last) {
          postgres += t1 - (first.get(pid) ?? 0);
          if (own.has(pid)) postgresBackends += t1 - (first.get(pid) ?? 0);
        }
      }
      return {
        server: server0 !== null && server1 !== null ? server1 - server0 : null,
        postgres,
        postgresBackends,
        redis: redis0 !== null && redis1 !== null ? redis1 - redis0 : null,
      };
    };
  }

  /** CPU seconds of each process counted; the bench database's client backends are added to `own`. */
  private async postgresTimes(own: Set<number>): Promise<Map<number, number> | null> {
    if (!this.pg) return null;
    const { rows } = await this.pg.query<{ pid: number; own: boolean }>(
      `SELECT pid, (datname = $1 AND backend_type = 'client backend') AS own FROM pg_stat_activity
        WHERE pid <> pg_backend_pid() AND (datname = $1 OR backend_type <> 'client backend')`,
      [this.database],
    );
    const times = new Map<number, number>();
    for (const { pid, own: mine } of rows) {
      if (mine) own.add(pid);
      const s = procCpuSeconds(pid);
      if (s !== null) times.set(pid, s);
    }
    return times;
  }

  private async redisSeconds(): Promise<number | null> {
    if (!this.redis) return null;
    const info = await this.redis.info('cpu');
    const read = (name: string) => Number(new RegExp(`${name}:([0-9.]+)`).exec(info)?.[1] ?? NaN);
    return read('used_cpu_user') + read('used_cpu_sys');
  }

  async close(): Promise<void> {
    await this.pg?.end().catch(() => undefined);
    this.redis?.disconnect();
  }
}

/** CPU seconds per 1,000 operations, or null. */
export function per1000(seconds: number | null, ops: number): number | null {
  if (seconds === null || ops <= 0) return null;
  return (seconds / ops) * 1000;
}
