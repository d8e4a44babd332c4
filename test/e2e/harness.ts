import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../../src/app';
import { type AppConfig, loadConfig } from '../../src/common/config/config';
import { logger } from '../../src/common/logging/logger';
import { ApiDocumentsService } from '../../src/modules/docs/api-documents.service';
import { adminQuery } from './support/admin-query';
import { postgresTemplateClause, seedEmbeddedDataDir } from './support/migrated-template';
import { describeServer } from './support/openapi-responses';
import { scratchDir } from './support/scratch-dir';

export const ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdef0123456789';
export const JWT_SECRET = 'e2e-jwt-secret-0123456789abcdef0123456789abcdef';
/** The exchange's receipt-signing seed in e2e runs on PostgreSQL (required there; docs/spec/design.md section 0). */
export const EXCHANGE_SIGNING_KEY = '5e'.repeat(32);
/**
 * The harness runs every app behind a trusted proxy (TRUST_PROXY=true, so tests can speak for many
 * client IPs), and behind a proxy /metrics needs its token (docs/spec/design.md section 20).
 */
export const METRICS_TOKEN = 'e2e-metrics-token-0123456789abcdef0123456789';
/** The header a scrape of an app of this harness sends. */
export const METRICS_AUTH = { authorization: `Bearer ${METRICS_TOKEN}` };

/**
 * A fresh, isolated place to run the app: its own PostgreSQL database when DATABASE_URL is set
 * (created here from the run's migrated template, dropped at the end), else an embedded database in a temporary directory, already
 * migrated (a copy of the run's template: support/migrated-template.ts); its own Redis key prefix
 * when REDIS_URL is set. Several apps may share one Environment (instances).
 */
export class Environment {
  readonly env: Record<string, string>;
  private readonly cleanups: Array<() => Promise<void>> = [];

  private constructor(env: Record<string, string>) {
    this.env = env;
  }

  static async create(overrides: Record<string, string> = {}): Promise<Environment> {
    const tag = `e2e_${process.pid}_${randomBytes(4).toString('hex')}`;
    const env: Record<string, string> = {
      SERVICE_NAME: 'Legwork',
      JWT_SECRET,
      ADMIN_TOKEN,
      TRUST_PROXY: 'true',
      METRICS_TOKEN,
      LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'error',
      REDIS_PREFIX: `legwork_${tag}`,
      // The tests make many public reads from 127.0.0.1; the public bucket's own tests set it back to its defaults.
      PUBLIC_RATE_PER_SECOND: '1000000',
      PUBLIC_RATE_BURST: '1000000',
      // Likewise the authenticated reads' bucket per account (section 20); its own tests set it back.
      QUERY_RATE_PER_SECOND: '1000000',
      QUERY_RATE_BURST: '1000000',
    };
    const environment = new Environment(env);
    const base = process.env.DATABASE_URL;
    if (base) {
      // Already migrated: a copy of the run's PostgreSQL template (support/migrated-template.ts).
      await adminQuery(base, `CREATE DATABASE ${tag}${postgresTemplateClause()}`);
      const url = new URL(base);
      url.pathname = `/${tag}`;
      env.DATABASE_URL = url.toString();
      env.EXCHANGE_SIGNING_KEY = EXCHANGE_SIGNING_KEY;
      environment.cleanups.push(() => adminQuery(base, `DROP DATABASE IF EXISTS ${tag} WITH (FORCE)`));
    } else {
      const dir = scratchDir('legwork-e2e-');
      env.DATA_DIR = dir;
      environment.cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
      // Already migrated: a copy of the run's template (the app's boot then skips initdb and the migrations).
      seedEmbeddedDataDir(dir);
    }
    if (process.env.REDIS_URL) env.REDIS_URL = process.env.REDIS_URL;
    // A small pool finds a transaction that asks the pool for a second connection (it waits forever at 1).
    if (process.env.DATABASE_POOL_SIZE) env.DATABASE_POOL_SIZE = process.env.DATABASE_POOL_SIZE;
    Object.assign(env, overrides);
    return environment;
  }

  /** Boots an instance of the app on a free port. */
  async start(overrides: Record<string, string> = {}): Promise<TestApp> {
    return TestApp.start({ ...this.env, ...overrides });
  }

  async destroy(): Promise<void> {
    for (const cleanup of this.cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

export class TestApp {
  /** The server side of every connection the app accepted: what a slow close waits on is among them. */
  private readonly sockets = new Set<Socket>();

  private constructor(
    readonly app: NestFastifyApplication,
    readonly config: AppConfig,
    readonly url: string,
  ) {
    app.getHttpServer().on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  static async start(env: Record<string, string>): Promise<TestApp> {
    const config = loadConfig({ ...env, PORT: '0', HOST: '127.0.0.1' });
    const app = await createApp(config);
    await app.listen(0, '127.0.0.1');
    const address = app.getHttpServer().address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const url = `http://127.0.0.1:${port}`;
    // Every response the test clients get from this app is checked against its OpenAPI document (clients.ts).
    describeServer(url, app.get(ApiDocumentsService).openapi());
    return new TestApp(app, config, url);
  }

  get wsUrl(): string {
    return this.url.replace('http', 'ws') + '/client';
  }

  /**
   * Closes the app. A close that takes longer than SLOW_CLOSE_MS (one took over 50 s once, on a
   * loaded machine, in an afterAll) prints what the process still holds and turns the app's
   * shutdown logs on, so that the stage it waits in shows in the test's output.
   */
  async close(): Promise<void> {
    const started = Date.now();
    const watch = setTimeout(() => {
      console.warn(
        `app.close() still running after ${SLOW_CLOSE_MS} ms; active resources: ${JSON.stringify(countOf(process.getActiveResourcesInfo()))}; ` +
          `open connections: ${JSON.stringify([...this.sockets].map(describeSocket))}`,
      );
      logger.setLevel('info');
    }, SLOW_CLOSE_MS);
    try {
      await this.app.close();
    } finally {
      clearTimeout(watch);
      if (Date.now() - started > SLOW_CLOSE_MS) {
        console.warn(`app.close() took ${Date.now() - started} ms`);
        logger.setLevel((process.env.E2E_LOG_LEVEL as 'debug') ?? 'error');
      }
    }
  }
}

/** What a server-side socket is doing: its peer, bytes each way, the response it is writing (if any). */
function describeSocket(socket: Socket) {
  const response = (socket as Socket & { _httpMessage?: { req?: { method?: string; url?: string }; writableFinished?: boolean } })._httpMessage;
  return {
    peer: socket.remotePort,
    read: socket.bytesRead,
    written: socket.bytesWritten,
    buffered: socket.writableLength,
    request: response ? `${response.req?.method} ${response.req?.url} finished=${response.writableFinished}` : null,
  };
}

/** A close slower than this is reported (TestApp.close). */
const SLOW_CLOSE_MS = 15_000;

const countOf = (names: string[]) => names.reduce<Record<string, number>>((n, name) => ({ ...n, [name]: (n[name] ?? 0) + 1 }), {});

/** Keep test output readable: the app logs errors only unless E2E_LOG_LEVEL says otherwise. */
logger.setLevel((process.env.E2E_LOG_LEVEL as 'debug') ?? 'error');
