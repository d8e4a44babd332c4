import { constants, cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ENTITIES } from '../../../src/app-entities';
import { loadConfig } from '../../../src/common/config/config';
import { Database } from '../../../src/common/database/database';

/**
 * The run's migrated embedded database (built by template-root.ts, the run's globalSetup, before
 * the workers start; they inherit the variable). Unset, as when a file runs outside that
 * configuration, or with LEGWORK_E2E_FRESH_DB=1, every embedded test database is created and
 * migrated from nothing.
 */
const TEMPLATE = 'LEGWORK_E2E_TEMPLATE';

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
