import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { deleteRedisPrefix } from '../../src/common/redis/delete-prefix';
import type { Json } from './rpc';

export const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef0123456789';
const JWT_SECRET = 'bench-jwt-secret-0123456789abcdef0123456789abcdef';

/**
 * One bench run's own PostgreSQL database (created here, dropped at the end) and Redis key prefix
 * (deleted at the end), on the shared services.
 */
export class BenchEnv {
  /** Added to every Legwork server's environment (`--legwork-env KEY=VALUE`, for experiments). */
  extra: Record<string, string> = {};

  private constructor(
    readonly postgresUrl: string,
    readonly redisUrl: string,
    readonly database: string,
    readonly redisPrefix: string,
  ) {}

  static async create(postgresUrl: string, redisUrl: string): Promise<BenchEnv> {
    const tag = `bench_${process.pid}_${randomBytes(3).toString('hex')}`;
    const admin = new Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${tag}`);
    await admin.end();
    return new BenchEnv(postgresUrl, redisUrl, tag, `legwork_${tag}`);
  }

  /** An env on a database made elsewhere (bench/history: the copy of the year-old database). */
  static attach(postgresUrl: string, redisUrl: string, database: string, redisPrefix: string): BenchEnv {
    return new BenchEnv(postgresUrl, redisUrl, database, redisPrefix);
  }

  get databaseUrl(): string {
    const url = new URL(this.postgresUrl);
    url.pathname = `/${this.database}`;
    return url.toString();
  }

  /** The environment of a Legwork server on this database and prefix. */
  appEnv(overrides: Record<string, string> = {}): Record<string, string> {
    return {
      PORT: '0',
      HOST: '127.0.0.1',
      SERVICE_NAME: 'Legwork',
      DATABASE_URL: this.databaseUrl,
      REDIS_URL: this.redisUrl,
      REDIS_PREFIX: this.redisPrefix,
      JWT_SECRET,
      EXCHANGE_SIGNING_KEY: '5e'.repeat(32),
      ADMIN_TOKEN,
      LOG_LEVEL: 'info',
      TRUST_PROXY: 'true',
      // Behind a proxy /metrics needs its token (docs/spec/design.md section 20).
      METRICS_TOKEN: 'bench-metrics-token-0123456789abcdef0123456789',
      // Every load generator is one client IP: the public bucket would measure refusals (F2 is public/get_market_config).
      PUBLIC_RATE_PER_SECOND: '1000000',
      PUBLIC_RATE_BURST: '1000000',
      // Likewise the authenticated reads' bucket per account and the replay budget (section 20): the figures measure capacity.
      QUERY_RATE_PER_SECOND: '1000000',
      QUERY_RATE_BURST: '1000000',
      REPLAY_EVENTS_PER_SECOND: '100000000',
      ...overrides,
      ...this.extra,
    };
  }

  async destroy(): Promise<void> {
    const c = new Client({ connectionString: this.postgresUrl });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${this.database} WITH (FORCE)`);
    await c.end();
    await deleteRedisPrefix(this.redisUrl, this.redisPrefix);
  }
}

export interface HttpResult<T = Json> {
  status: number;
  body: T;
}

/** JSON over HTTP with an optional bearer token and X-Forwarded-For. */
export async function http<T = Json>(
  base: string,
  method: string,
  path: string,
  options: { body?: unknown; token?: string; ip?: string } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.ip) headers['x-forwarded-for'] = options.ip;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const res = await fetch(base + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed as T };
}

/** Same, but throws unless 2xx. */
export async function httpOk<T = Json>(base: string, method: string, path: string, options: { body?: unknown; token?: string; ip?: string } = {}): Promise<T> {
  const r = await http<T>(base, method, path, options);
  if (r.status < 200 || r.status > 299) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Runs `task(i)` for i in [0, n) with at most `concurrency` in flight. */
export async function parallel<T>(n: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out = new Array<T>(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await task(i);
      }
    }),
  );
  return out;
}
