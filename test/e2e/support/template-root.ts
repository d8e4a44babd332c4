import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildMigratedTemplate, buildPostgresTemplate } from './migrated-template';
import { scratchDir } from './scratch-dir';

/** What this setup reads of jest's global configuration (its type is in @jest/types, not a dependency of ours). */
interface GlobalConfig {
  rootDir: string;
  testPathPatterns: { isSet(): boolean; toExecutor(options: { rootDir: string }): { isMatch(path: string): boolean } };
}

/**
 * jest's globalSetup: migrates one embedded database for the run (migrated-template.ts), which
 * every e2e test database then copies, and with DATABASE_URL one PostgreSQL database, which every
 * e2e PostgreSQL database is created from. Built here, before the workers start, so that no test's
 * hook pays for it and it is built once. Skipped when the run's path patterns match no e2e file
 * (`jest src`: unit specs open no database) and with LEGWORK_E2E_FRESH_DB=1. The directory goes
 * when the jest process exits.
 */
export default async function templateRoot(globalConfig: GlobalConfig): Promise<void> {
  if (process.env.LEGWORK_E2E_FRESH_DB === '1' || !mayRunE2e(globalConfig)) return;
  const root = scratchDir('legwork-e2e-template-');
  process.on('exit', () => rmSync(root, { recursive: true, force: true }));
  // With DATABASE_URL, a migrated PostgreSQL database too (dropped by template-drop.ts), built alongside.
  const base = process.env.DATABASE_URL;
  await Promise.all([buildMigratedTemplate(root), base ? buildPostgresTemplate(base) : null]);
}

/** Whether an e2e spec file matches the run's path patterns (or none are given). */
function mayRunE2e(globalConfig: GlobalConfig): boolean {
  const patterns = globalConfig.testPathPatterns;
  if (!patterns.isSet()) return true;
  const match = patterns.toExecutor({ rootDir: globalConfig.rootDir });
  const e2e = join(globalConfig.rootDir, 'test', 'e2e');
  const specs = readdirSync(e2e, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.e2e-spec.ts'));
  return specs.some((name) => match.isMatch(join(e2e, name)));
}
