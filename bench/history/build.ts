import { createHash } from 'node:crypto';
import { Client } from 'pg';
import { MIGRATIONS } from '../../migrations';
import { Database } from '../../src/common/database/database';
import { locksOf, refreshLockGroups } from '../../src/modules/ledger/collateral.sql';
import { writeFills } from './fills';
import { DAY, type Scale, accounts, expirations, instruments, today } from './plan';
import { writeAccountEvents, writeBalances, writeLegsets, writeMakerNonces, writePositions, writeReference, writeRfqEvents, writeUnfilled } from './year-sql';
import { clientSql, clientTx } from '../lib/client-sql';

/**
 * The year-old database: built once per (scale, migrations) into `bench_history_<scale>_<hash>`
 * and kept; each run measures on a `CREATE DATABASE ... TEMPLATE` copy of it (FILE_COPY: a copy
 * of the files, not a replay of every row). `--rebuild` drops and builds it again.
 */
interface YearInfo {
  database: string;
  /** Seconds the build took (null: reused). */
  buildSeconds: number | null;
  builtAt: number;
  /** The "today" (unix seconds, midnight UTC) the year was laid out from. */
  day0: number;
}

const RETENTION_DAYS = 30;

function dbUrl(postgresUrl: string, database: string): string {
  const url = new URL(postgresUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

function yearDatabaseName(s: Scale): string {
  const hash = createHash('sha256')
    .update(MIGRATIONS.map((m) => m.name).join(','))
    .update('year-v1')
    .digest('hex')
    .slice(0, 10);
  return `bench_history_${s.name}_${hash}`;
}

async function admin<T>(postgresUrl: string, f: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: postgresUrl });
  await c.connect();
  try {
    return await f(c);
  } finally {
    await c.end();
  }
}

/** The built year (its meta row), or null when absent or unfinished. */
async function existing(postgresUrl: string, database: string): Promise<YearInfo | null> {
  const exists = await admin(postgresUrl, async (c) => (await c.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [database])).rowCount === 1);
  if (!exists) return null;
  const c = new Client({ connectionString: dbUrl(postgresUrl, database) });
  await c.connect();
  try {
    const { rows } = await c
      .query<{ built_at: string; day0: string }>(`SELECT built_at, day0 FROM bench_history_meta WHERE done`)
      .catch(() => ({ rows: [] as Array<{ built_at: string; day0: string }> }));
    if (!rows.length) return null;
    return { database, buildSeconds: null, builtAt: Number(rows[0].built_at), day0: Number(rows[0].day0) };
  } finally {
    await c.end();
  }
}

export async function ensureYear(
  postgresUrl: string,
  s: Scale,
  rebuild: boolean,
  log: (line: string) => void,
): Promise<YearInfo & { lastBuildSeconds: number }> {
  const database = yearDatabaseName(s);
  if (!rebuild) await migrateForward(postgresUrl, s, database, log);
  const found = rebuild ? null : await existing(postgresUrl, database);
  if (found) {
    const last = await admin(dbUrl(postgresUrl, database), async (c) =>
      Number((await c.query(`SELECT build_seconds FROM bench_history_meta`)).rows[0].build_seconds),
    );
    const ageDays = (Date.now() / 1000 - found.builtAt) / DAY;
    log(`history: reusing ${database} (built ${ageDays.toFixed(1)} days ago in ${last.toFixed(0)} s)`);
    if (ageDays > 1) log(`history: WARNING the year has aged ${ageDays.toFixed(1)} days: RFQs past the retention window are due; --rebuild for a fresh one`);
    return { ...found, lastBuildSeconds: last };
  }
  await admin(postgresUrl, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${database}`);
  });
  const t0 = Date.now();
  const day0 = await build(dbUrl(postgresUrl, database), s, log);
  const buildSeconds = (Date.now() - t0) / 1000;
  await admin(dbUrl(postgresUrl, database), async (c) => {
    await c.query(`CREATE TABLE bench_history_meta (done boolean, built_at bigint, day0 bigint, build_seconds float8)`);
    await c.query(`INSERT INTO bench_history_meta VALUES (true, $1, $2, $3)`, [Math.floor(Date.now() / 1000), day0, buildSeconds]);
  });
  log(`history: built ${database} in ${buildSeconds.toFixed(0)} s`);
  return { database, buildSeconds, builtAt: Math.floor(Date.now() / 1000), day0, lastBuildSeconds: buildSeconds };
}

/**
 * A year built before the newest migrations is brought forward as an operator would upgrade a
 * year-old exchange: renamed to the current name, then the pending migrations run on it (their
 * cost on a year of rows is part of what an upgrade costs). Only a year of the same scale whose
 * applied migrations are a prefix of the current list qualifies; the rows stay those the
 * generator wrote, so a change of the generator still needs `--rebuild`.
 */
async function migrateForward(postgresUrl: string, s: Scale, database: string, log: (line: string) => void): Promise<void> {
  const names = await admin(postgresUrl, async (c) => {
    const { rows } = await c.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1 AND datname <> $2 ORDER BY datname`, [
      `bench_history_${s.name}_%`,
      database,
    ]);
    return rows.map((r) => r.datname);
  });
  if (names.length === 0 || (await admin(postgresUrl, async (c) => (await c.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [database])).rowCount)))
    return;
  const current = MIGRATIONS.map((m) => m.name);
  for (const name of names) {
    if (!(await existing(postgresUrl, name))) continue;
    const applied = await admin(dbUrl(postgresUrl, name), async (c) =>
      (await c.query<{ name: string }>(`SELECT name FROM migrations ORDER BY id`)).rows.map((r) => r.name),
    );
    if (applied.length >= current.length || applied.some((n, i) => current[i] !== n)) continue;
    const t0 = Date.now();
    await admin(postgresUrl, (c) => c.query(`ALTER DATABASE ${name} RENAME TO ${database}`));
    const migrator = Database.dataSource(dbUrl(postgresUrl, database), 1);
    await migrator.initialize();
    await migrator.runMigrations({ transaction: 'each' });
    await migrator.destroy();
    log(`history: ${name} migrated forward to ${database} (${current.length - applied.length} migrations, ${((Date.now() - t0) / 1000).toFixed(0)} s)`);
    return;
  }
}

/** A copy of the year for one run (dropped by the caller). */
export async function copyYear(postgresUrl: string, year: string, copy: string): Promise<number> {
  const t0 = Date.now();
  await admin(postgresUrl, (c) => c.query(`CREATE DATABASE ${copy} TEMPLATE ${year} STRATEGY FILE_COPY`));
  return (Date.now() - t0) / 1000;
}

async function step(log: (line: string) => void, name: string, f: () => Promise<unknown>): Promise<void> {
  const t0 = Date.now();
  await f();
  log(`history: ${name} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

async function build(url: string, s: Scale, log: (line: string) => void): Promise<number> {
  const migrator = Database.dataSource(url, 1);
  await migrator.initialize();
  await migrator.runMigrations({ transaction: 'each' });
  await migrator.destroy();
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`SET synchronous_commit = off`);
    const now = Math.floor(Date.now() / 1000);
    const day0 = today(now);
    const list = accounts(s);
    const rounds = expirations(s, day0);
    const instrumentsOf = new Map(rounds.map((e) => [`${e.asset} ${e.expiry}`, instruments(s, e)]));
    const all = [...instrumentsOf.values()].flat();
    await step(log, `reference (${s.accounts} accounts, ${rounds.length} rounds, ${all.length} instruments)`, () =>
      writeReference(c, s, list, rounds, all, now),
    );
    const byId = new Map(list.map((a) => [a.id, a]));
    const ctx = { scale: s, day0, accounts: byId, rounds, instrumentsOf, retentionCutoff: now - RETENTION_DAYS * DAY };
    const indexes = await dropIndexes(c);
    await writeLegsets(c, s, rounds, instrumentsOf);
    // Two connections: the fills (Node signs the receipts) next to the set-based RFQs and account events.
    const c2 = new Client({ connectionString: url });
    await c2.connect();
    try {
      await c2.query(`SET synchronous_commit = off`);
      await Promise.all([
        step(log, `${s.filled} filled RFQs with receipts`, () => writeFills(c2, ctx, log)),
        (async () => {
          const window = Math.floor(RETENTION_DAYS * DAY * 0.98);
          await step(log, `${s.unfilled} unfilled RFQs`, async () => {
            for (let g = 1; g <= s.unfilled; g += 500_000) await writeUnfilled(c, s, now, window, g, Math.min(s.unfilled, g + 499_999));
          });
          await step(log, `${s.accountEvents} account events`, () => writeAccountEvents(c, s, now));
        })(),
      ]);
    } finally {
      await c2.end();
    }
    await step(log, 'rfq_events', () => writeRfqEvents(c));
    await step(log, 'positions and settlements', () => writePositions(c));
    await step(log, 'balances', () => writeBalances(c));
    await step(log, 'indexes', () => recreateIndexes(c, indexes));
    await step(log, 'lock groups and locks', () => writeLocks(c));
    await writeMakerNonces(c);
    await step(log, 'checks', () => checkYear(c, s));
    await step(log, 'VACUUM ANALYZE', () => c.query('VACUUM (ANALYZE)'));
    return day0;
  } finally {
    await c.end();
  }
}

/**
 * What the app would check of the year (test/e2e/invariants.ts (a), (b), (e), (g)) and the counts
 * of the brief: a build that breaks one fails instead of being measured.
 */
async function checkYear(c: Client, s: Scale): Promise<void> {
  const { rows } = await c.query(
    `SELECT (SELECT sum(total) FROM balances)::text = (SELECT sum(amount) FROM transfers)::text AS money,
            NOT EXISTS (SELECT 1 FROM positions GROUP BY instrument HAVING sum(quantity) <> 0) AS flat,
            (SELECT count(*) FROM rfqs WHERE state = 'filled')::int AS filled, (SELECT count(*) FROM fills)::int AS fills,
            (SELECT count(*) FROM rfqs WHERE state <> 'filled')::int AS unfilled, (SELECT count(*) FROM receipts)::int AS receipts,
            (SELECT journal_seq FROM journal_head)::int AS head, (SELECT count(*) FROM account_events)::int AS events,
            NOT EXISTS (SELECT 1 FROM accounts WHERE open_rfqs <> 0) AS open`,
  );
  const r = rows[0];
  const problems = [
    r.money ? null : 'sum of balances != deposits',
    r.flat ? null : 'an instrument whose positions do not sum to zero',
    r.filled === s.filled && r.fills === s.filled ? null : `filled ${r.filled}, fills ${r.fills}, expected ${s.filled}`,
    r.unfilled === s.unfilled ? null : `unfilled ${r.unfilled}, expected ${s.unfilled}`,
    r.receipts === s.filled && r.head === s.filled ? null : `receipts ${r.receipts}, head ${r.head}`,
    Math.abs(r.events - s.accountEvents) <= s.accountEvents * 0.01 ? null : `account events ${r.events}, expected about ${s.accountEvents}`,
    r.open ? null : 'open_rfqs not zero',
  ].filter(Boolean);
  if (problems.length) throw new Error(`the built year is wrong: ${problems.join('; ')}`);
}

const BULK_TABLES = ['rfqs', 'rfq_events', 'accepts', 'fills', 'fill_legs', 'receipts', 'positions', 'account_events', 'settlement_payments'];

/** Drops the secondary indexes (not those of constraints) of the bulk tables; their definitions, to build after the load. */
async function dropIndexes(c: Client): Promise<string[]> {
  const { rows } = await c.query<{ name: string; def: string }>(
    `SELECT i.indexname AS name, i.indexdef AS def FROM pg_indexes i
      WHERE i.schemaname = current_schema() AND i.tablename = ANY($1::text[])
        AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conname = i.indexname)`,
    [BULK_TABLES],
  );
  for (const r of rows) await c.query(`DROP INDEX ${r.name}`);
  return rows.map((r) => r.def);
}

/** The same indexes, built once over the loaded rows (exactly the migrations' definitions). */
async function recreateIndexes(c: Client, defs: string[]): Promise<void> {
  await c.query(`SET maintenance_work_mem = '256MB'`);
  for (const def of defs) await c.query(def);
}

/** lock_groups from the open positions (the app's statement), then every balance's lock at the index. */
async function writeLocks(c: Client): Promise<void> {
  const sql = clientSql(c);
  const ids = (await c.query(`SELECT DISTINCT account_id FROM positions WHERE NOT settled AND quantity <> 0`)).rows.map((r) => Number(r.account_id));
  await refreshLockGroups(clientTx(c), ids); // one statement on the builder's own connection
  const locks = await locksOf(sql, ids, 10_000);
  await c.query(`UPDATE balances b SET locked = u.locked FROM unnest($1::bigint[], $2::bigint[]) AS u(id, locked) WHERE b.account_id = u.id`, [
    [...locks.keys()],
    [...locks.values()].map(String),
  ]);
}
