import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { type Profiler, Session } from 'node:inspector';
import { writeHeapSnapshot } from 'node:v8';
import { installPgTrace } from './pg-trace';
import { installRedisTrace } from './redis-trace';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/common/config/config';
import { Database } from '../../src/common/database/database';
import { MetricsService } from '../../src/modules/health/metrics.service';
import { flushLogs } from '../../src/common/logging/logger';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

process.on('exit', flushLogs);

/**
 * The Legwork server as `node dist/src/main.js` runs it (createApp + listen, from the compiled
 * sources), in its own process, with an IPC channel for the bench:
 * - `memory`: full GC (the process runs with --expose-gc), then process.memoryUsage();
 * - `heap-snapshot` `{ file }`: V8 heap snapshot after a full GC (F3 analysis);
 * - `trace-start` / `trace-stop`: record every SQL statement sent to PostgreSQL (pg-trace.ts);
 * - `stages-start` / `stages-stop`: record every SQL statement and every Redis command, timed
 *   (pg-trace.ts, redis-trace.ts), for the fill step's breakdown (lib/fill-profile.ts);
 * - `profile-start` / `profile-stop` `{ file }`: V8 CPU profile of just that window (node:inspector),
 *   written as a .cpuprofile;
 * - `histograms` `{ names }`: the cumulative buckets, sum and count of unlabelled histograms of the
 *   app's registry (what /metrics shows, without an HTTP request or the scrape-time gauges' queries);
 * - `canned` `{ entries: [{ match, rows }] }` / `uncanned`: `db.dataSource.query` answers `rows`
 *   for an SQL text equal to `match`, without asking the database (F1a: the handler's DB calls
 *   replaced by the same rows; everything above the Database port still runs).
 */
type Message = { type: string; [key: string]: unknown };

function revive(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(revive);
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (typeof o.$date === 'string' && Object.keys(o).length === 1) return new Date(o.$date);
    return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, revive(v)]));
  }
  return value;
}

/**
 * BENCH_WS_DEDUPE=1 (experiment, not the default): @nestjs/platform-ws pins ws 8.22.0 and loads its
 * own copy; this makes it load the application's ws (8.23) instead, as an npm `overrides` entry
 * would, to measure the difference (bench/README.md, F3).
 */
function dedupeWs(): void {
  const nested = require.resolve('ws', { paths: [dirname(require.resolve('@nestjs/platform-ws'))] });
  const root = require.resolve('ws');
  if (nested === root) return;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a path resolved at run time, loaded for require.cache
  require(root);
  require.cache[nested] = require.cache[root];
}

/**
 * BENCH_EXP_DOMAIN_CACHE=1 (experiment): memoize signingDomain(serviceName), which
 * MarketDataService.marketConfig() recomputes (SHA-256) on every public/get_market_config.
 */
function cacheSigningDomain(): void {
  // The package's index re-exports through getters, so the patch goes on the module that defines it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a path resolved at run time, patched in place
  const mod = require(require.resolve('@legwork/protocol').replace(/index\.js$/, 'quote-payload.js')) as { signingDomain: (name: string) => Buffer };
  const original = mod.signingDomain;
  const cache = new Map<string, Buffer>();
  mod.signingDomain = (name: string) => {
    let d = cache.get(name);
    if (!d) cache.set(name, (d = original(name)));
    return Buffer.from(d);
  };
}
/** The experiments that patch modules before the app is made (none by default). */
function applyExperiments(): void {
  if (process.env.BENCH_WS_DEDUPE === '1') dedupeWs();
  if (process.env.BENCH_EXP_DOMAIN_CACHE === '1') cacheSigningDomain();
  if (process.env.BENCH_EXP_NO_ALS === '1') {
    // Experiment: no AsyncLocalStorage (log lines lose their operation id); measures the promise-hook cost.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { operationContext } = require('../../src/common/logging/logger') as {
      operationContext: { run: (store: unknown, fn: (...a: unknown[]) => unknown, ...args: unknown[]) => unknown };
    };
    operationContext.run = (_store, fn, ...args) => fn(...args);
  }
}

type Query = (sql: string, params?: unknown[]) => Promise<unknown>;
type TypedReads = { rows: (sql: string, params?: unknown[]) => Promise<unknown[]>; one: (sql: string, params?: unknown[]) => Promise<unknown> };

/** Experiment: the pool's reads straight through pg's Pool, without a TypeORM query runner per statement. */
function rawPool(db: Database, typed: TypedReads): void {
  type Client = { query: (t: string, p: unknown[]) => Promise<{ rows: unknown[] }>; release: () => void };
  const pool = (db.dataSource.driver as unknown as { master: { connect: () => Promise<Client> } }).master;
  const run = async (sql: string, params?: unknown[]) => {
    const client = await pool.connect();
    try {
      return (await client.query(sql, params ? [...params] : [])).rows;
    } finally {
      client.release();
    }
  };
  typed.rows = run;
  typed.one = async (sql, params) => (await run(sql, params))[0] ?? null;
}

/**
 * `canned` / `uncanned` (F1a): `db.dataSource.query`, and the typed reads of Database (rows / one)
 * the repositories use, answer the rows of an SQL text given, else ask the database as before.
 */
class CannedReads {
  private readonly dataSource: { query: Query };
  private readonly realQuery: Query;
  private readonly typed: TypedReads;
  private readonly realRows: TypedReads['rows'];
  private readonly realOne: TypedReads['one'];

  constructor(db: Database) {
    this.dataSource = db.dataSource;
    this.realQuery = this.dataSource.query;
    // Repositories read through the typed SQL of Database (rows / one), not dataSource.query: both are canned.
    this.typed = db;
    if (process.env.BENCH_EXP_RAW_POOL === '1') rawPool(db, this.typed);
    this.realRows = this.typed.rows;
    this.realOne = this.typed.one;
  }

  can(list: Array<{ match: string; rows: unknown }>): void {
    const { realQuery, realRows, realOne } = this;
    const entries = new Map<string, unknown>();
    for (const e of list) entries.set(e.match, revive(e.rows));
    this.dataSource.query = function (this: unknown, sql: string, params?: unknown[]) {
      const rows = entries.get(sql);
      if (rows !== undefined) return Promise.resolve(Array.isArray(rows) ? rows.slice() : rows);
      return realQuery.call(this, sql, params);
    };
    this.typed.rows = function (this: unknown, sql: string, params?: unknown[]) {
      const rows = entries.get(sql);
      if (Array.isArray(rows)) return Promise.resolve(rows.slice());
      return realRows.call(this, sql, params);
    };
    this.typed.one = function (this: unknown, sql: string, params?: unknown[]) {
      const rows = entries.get(sql);
      if (Array.isArray(rows)) return Promise.resolve(rows[0] ?? null);
      return realOne.call(this, sql, params);
    };
  }

  uncan(): void {
    this.dataSource.query = this.realQuery;
    this.typed.rows = this.realRows;
    this.typed.one = this.realOne;
  }
}

/** What the bench's requests act on. */
interface Parts {
  app: NestFastifyApplication;
  trace: ReturnType<typeof installPgTrace>;
  redisTrace: ReturnType<typeof installRedisTrace>;
  reads: CannedReads;
  /** An inspector command; `T` is the shape of its documented result. */
  post: <T = unknown>(method: string, params?: object) => Promise<T>;
  /** The body of the raw-route experiment. */
  raw: { body: unknown };
}

type Handler = (m: Message) => Promise<Message> | Message;

/** The cumulative buckets, sum and count of the registry's unlabelled histograms `names`. */
async function histograms(app: NestFastifyApplication, names: string[]): Promise<Record<string, unknown>> {
  const registry = app.get(MetricsService).registry;
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const metric = registry.getSingleMetric(name);
    if (!metric) continue;
    const { values } = (await metric.get()) as { values: Array<{ value: number; labels: Record<string, string | number>; metricName?: string }> };
    out[name] = {
      buckets: values
        .filter((v) => v.metricName === `${name}_bucket`)
        .map((v) => ({ le: v.labels.le === '+Inf' ? Infinity : Number(v.labels.le), count: v.value })),
      sum: values.find((v) => v.metricName === `${name}_sum`)?.value ?? 0,
      count: values.find((v) => v.metricName === `${name}_count`)?.value ?? 0,
    };
  }
  return out;
}

/** Profiles, memory, heap snapshots, histograms: each request's reply. */
function diagnosticHandlers({ app, post }: Parts): Array<[string, Handler]> {
  return [
    [
      'profile-start',
      async () => {
        await post('Profiler.enable');
        await post('Profiler.setSamplingInterval', { interval: 200 });
        await post('Profiler.start');
        return { type: 'profile-start' };
      },
    ],
    [
      'profile-stop',
      async (m) => {
        const { profile } = await post<Profiler.StopReturnType>('Profiler.stop');
        writeFileSync(String(m.file), JSON.stringify(profile));
        return { type: 'profile-stop', file: m.file };
      },
    ],
    [
      'memory',
      async () => {
        for (let i = 0; i < 3; i++) (global as { gc?: () => void }).gc?.();
        await new Promise((r) => setTimeout(r, 50));
        (global as { gc?: () => void }).gc?.();
        return { type: 'memory', memory: process.memoryUsage() };
      },
    ],
    [
      'heap-snapshot',
      (m) => {
        (global as { gc?: () => void }).gc?.();
        return { type: 'heap-snapshot', file: writeHeapSnapshot(String(m.file)) };
      },
    ],
    ['histograms', async (m) => ({ type: 'histograms', histograms: await histograms(app, m.names as string[]) })],
  ];
}

/** The statement and command traces, and the canned reads: each request's reply. */
function traceHandlers({ trace, redisTrace, reads, raw }: Parts): Array<[string, Handler]> {
  return [
    [
      'trace-start',
      () => {
        trace.start();
        return { type: 'trace-start' };
      },
    ],
    ['trace-stop', () => ({ type: 'trace-stop', statements: trace.stop() })],
    [
      'stages-start',
      () => {
        trace.start();
        redisTrace.start();
        return { type: 'stages-start' };
      },
    ],
    ['stages-stop', () => ({ type: 'stages-stop', statements: trace.stop(), commands: redisTrace.stop() })],
    [
      'canned',
      (m) => {
        reads.can(m.entries as Array<{ match: string; rows: unknown }>);
        return { type: 'canned' };
      },
    ],
    [
      'raw-body',
      (m) => {
        raw.body = m.body;
        return { type: 'raw-body' };
      },
    ],
    [
      'uncanned',
      () => {
        reads.uncan();
        return { type: 'uncanned' };
      },
    ],
  ];
}

/** SIGTERM closes the app (exit 1 if that takes over 8 s); with BENCH_EXP_HEAP_SAMPLE, the sampling heap profile is written first. */
async function closeOnSigterm(app: NestFastifyApplication, post: Parts['post']): Promise<void> {
  const heapSample = process.env.BENCH_EXP_HEAP_SAMPLE;
  if (heapSample) {
    // Experiment: where the objects that outlive a scavenge are allocated (sampling heap profiler,
    // objects later collected by a major GC included), written at SIGTERM.
    await post('HeapProfiler.enable');
    await post('HeapProfiler.startSampling', {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: process.env.BENCH_EXP_HEAP_SAMPLE_MINOR === '1',
    });
  }
  let closing = false;
  process.on('SIGTERM', () => {
    if (closing) return;
    closing = true;
    if (heapSample) {
      void post<{ profile: unknown }>('HeapProfiler.stopSampling').then(({ profile }) => writeFileSync(heapSample, JSON.stringify(profile)));
    }
    const force = setTimeout(() => process.exit(1), 8000);
    force.unref();
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

async function main(): Promise<void> {
  applyExperiments();
  const trace = installPgTrace();
  const redisTrace = installRedisTrace();
  const config = loadConfig(process.env);
  const app = await createApp(config);
  const raw = { body: { rows: [] } as unknown };
  if (process.env.BENCH_EXP_RAW_ROUTE === '1') {
    // Experiment: a plain Fastify route in the Legwork process (its hooks, no Nest): what the process costs apart from Nest.
    app
      .getHttpAdapter()
      .getInstance()
      .get('/bench/raw', async () => raw.body);
  }
  await app.listen(config.port, config.host);
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const reads = new CannedReads(app.get(Database));
  const send = (m: Message) => process.send?.(m);

  const inspector = new Session();
  inspector.connect();
  const post = <T = unknown>(method: string, params: object = {}) =>
    new Promise<T>((resolve, reject) => inspector.post(method, params, (error, result) => (error ? reject(error) : resolve(result as T))));

  const parts: Parts = { app, trace, redisTrace, reads, post, raw };
  const handlers = new Map<string, Handler>([...diagnosticHandlers(parts), ...traceHandlers(parts)]);
  // Every failure is answered to the parent (the catch below): the listener only starts it.
  const handle = async (m: Message): Promise<void> => {
    try {
      const handler = handlers.get(m.type);
      send(handler ? await handler(m) : { type: m.type, error: `unknown request ${m.type}` });
    } catch (error) {
      send({ type: m.type, error: String(error) });
    }
  };
  process.on('message', (m: Message) => void handle(m));
  await closeOnSigterm(app, post);
  send({ type: 'ready', port });
}

main().catch((error) => {
  process.stderr.write(`bench legwork server failed: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
