import { randomBytes } from 'node:crypto';
import { constants, cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ENTITIES } from '../../../src/app-entities';
import { loadConfig } from '../../../src/common/config/config';
import { Database } from '../../../src/common/database/database';
import { adminQuery } from './admin-query';

/**
 * The run's migrated embedded database (built by template-root.ts, the run's globalSetup, before
 * the workers start; they inherit the variable). Unset, as when a file runs outside that
 * configuration, or with LEGWORK_E2E_FRESH_DB=1, every embedded test database is created and
 * migrated from nothing.
 */
const TEMPLATE = 'LEGWORK_E2E_TEMPLATE';
/** The run's migrated PostgreSQL database on DATABASE_URL's server, which each e2e PostgreSQL database is created from. */
const POSTGRES_TEMPLATE = 'LEGWORK_E2E_POSTGRES_TEMPLATE';

/**
 * Fills an empty DATA_DIR with a copy of the run's migrated embedded database, so that the app (or
 * `Database.open`) finds its schema current and skips PGlite's initdb and the migrations: an app
 * boot took 0.6 to 1.1 s against 2.8 to 4.5 s (six of each, one core of two free). The app runs
 * on the copy exactly as on a DATA_DIR it migrated at an earlier start. Without a template the
 * directory is left empty, to be migrated from nothing.
 */
export function seedEmbeddedDataDir(dataDir: string): void {
  const template = process.env[TEMPLATE];
  // FICLONE: a copy-on-write clone where the file system has them, else an ordinary copy.
  if (template) cpSync(template, dataDir, { recursive: true, mode: constants.COPYFILE_FICLONE });
}

/** Builds the template in `root` by the app's own start path (PGlite's initdb, then every migration) and names it for the workers. */
export async function buildMigratedTemplate(root: string): Promise<void> {
  const dataDir = join(root, 'migrated');
  mkdirSync(dataDir, { mode: 0o700 });
  const db = await Database.open(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'error' }), ENTITIES);
  await db.close();
  process.env[TEMPLATE] = dataDir;
}

/**
 * The `TEMPLATE` clause of a new e2e PostgreSQL database: the run's migrated database, so that its
 * app (or `Database.open`) finds the schema current. A copy took 0.3 s against 0.5 to 0.8 s to
 * create an empty database and migrate it (four of each, load 6). Empty without a template.
 */
export function postgresTemplateClause(): string {
  const template = process.env[POSTGRES_TEMPLATE];
  return template ? ` TEMPLATE ${template}` : '';
}

/** Migrates a new database on `base`'s server by the app's start path and names it for the workers; dropped by dropPostgresTemplate. */
export async function buildPostgresTemplate(base: string): Promise<void> {
  const name = `e2e_template_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(base, `CREATE DATABASE ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  // Not the app's secrets: loadConfig requires both when DATABASE_URL is set, and nothing here signs.
  const config = loadConfig({
    DATABASE_URL: url.toString(),
    JWT_SECRET: 'template-jwt-secret-0123456789abcdef01234',
    EXCHANGE_SIGNING_KEY: '5e'.repeat(32),
    LOG_LEVEL: 'error',
  });
  await (await Database.open(config, ENTITIES)).close();
  process.env[POSTGRES_TEMPLATE] = name;
}

/** Drops the run's PostgreSQL template, if it built one. */
export async function dropPostgresTemplate(base: string): Promise<void> {
  const name = process.env[POSTGRES_TEMPLATE];
  if (name) await adminQuery(base, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
