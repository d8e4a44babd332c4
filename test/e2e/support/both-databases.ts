import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { ENTITIES } from '../../../src/app-entities';
import { loadConfig } from '../../../src/common/config/config';
import { Database } from '../../../src/common/database/database';
import { logger } from '../../../src/common/logging/logger';
import { adminQuery } from './admin-query';
import { postgresTemplateClause, seedEmbeddedDataDir } from './migrated-template';
import { scratchDir } from './scratch-dir';

/** The two databases Legwork runs on: PostgreSQL (DATABASE_URL) and the embedded default (PGlite). */
export type DatabaseKind = 'postgres' | 'embedded';

/** A migrated database of one kind, and how to get rid of it. */
export interface TestDatabase {
  readonly kind: DatabaseKind;
  readonly db: Database;
  destroy(): Promise<void>;
}

// Not the app's secrets: loadConfig requires both when DATABASE_URL is set, and nothing here signs.
const JWT_SECRET = 'both-databases-jwt-secret-0123456789abcdef';
const SIGNING_KEY = '5e'.repeat(32);

/**
 * Opens a fresh, migrated `Database` of the given kind: a new database on DATABASE_URL's server
 * (dropped by `destroy`), or PGlite in a temporary DATA_DIR (deleted by `destroy`). Migrations
 * run exactly as at the app's start (`Database.open`), and the DataSource knows the app's entities.
 * Each starts from a copy of the run's migrated template of its kind (migrated-template.ts) unless
 * `fromNothing`, for a test of the migrations themselves: then (PGlite's initdb and) every migration run here.
 */
export async function openTestDatabase(kind: DatabaseKind, fromNothing = false): Promise<TestDatabase> {
  if (kind === 'postgres') {
    const base = process.env.DATABASE_URL;
    if (!base) throw new Error('openTestDatabase(postgres) needs DATABASE_URL');
    const name = `repo_${process.pid}_${randomBytes(4).toString('hex')}`;
    await adminQuery(base, `CREATE DATABASE ${name}${fromNothing ? '' : postgresTemplateClause()}`);
    const url = new URL(base);
    url.pathname = `/${name}`;
    try {
      const db = await Database.open(loadConfig({ DATABASE_URL: url.toString(), JWT_SECRET, EXCHANGE_SIGNING_KEY: SIGNING_KEY, LOG_LEVEL: 'error' }), ENTITIES);
      return {
        kind,
        db,
        destroy: async () => {
          await db.close();
          await adminQuery(base, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        },
      };
    } catch (error) {
      await adminQuery(base, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      throw error;
    }
  }
  const dir = scratchDir('legwork-repo-');
  try {
    if (!fromNothing) seedEmbeddedDataDir(dir);
    const db = await Database.open(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'error' }), ENTITIES);
    return {
      kind,
      db,
      destroy: async () => {
        await db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

type DescribeBody = (getDb: () => Database, kind: DatabaseKind) => void;

/**
 * Runs `body` once per database kind, each in its own `describe` with its own freshly migrated
 * database (opened in beforeAll, destroyed in afterAll; tests of one block share it). The
 * PostgreSQL block is skipped, and says so in its name, when DATABASE_URL is unset. With
 * `{ fromNothing: true }` before `body` the embedded database is migrated from nothing (see openTestDatabase).
 *
 *   describeBothDatabases('BalancesRepository', (getDb, kind) => {
 *     it('credits', async () => { const db = getDb(); ... });
 *   });
 */
export function describeBothDatabases(name: string, body: DescribeBody): void;
export function describeBothDatabases(name: string, options: { fromNothing: boolean }, body: DescribeBody): void;
export function describeBothDatabases(name: string, ...args: [DescribeBody] | [{ fromNothing: boolean }, DescribeBody]): void {
  const [{ fromNothing }, body] = args.length === 1 ? [{ fromNothing: false }, args[0]] : args;
  for (const kind of ['postgres', 'embedded'] as const) {
    const skip = kind === 'postgres' && !process.env.DATABASE_URL;
    const describeKind = skip ? describe.skip : describe;
    describeKind(`${name} [${kind}${skip ? ': skipped, DATABASE_URL is unset' : ''}]`, () => {
      let opened: TestDatabase | null = null;
      beforeAll(async () => {
        opened = await openTestDatabase(kind, fromNothing);
      }, 120_000);
      afterAll(async () => {
        await opened?.destroy();
      }, 60_000);
      body(() => {
        if (!opened) throw new Error(`the ${kind} database is not open (did beforeAll fail?)`);
        return opened.db;
      }, kind);
    });
  }
}

/** Keep test output readable: migrations and the embedded start log at info. */
logger.setLevel((process.env.E2E_LOG_LEVEL as 'debug') ?? 'error');
