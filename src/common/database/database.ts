import type { Duplex } from 'node:stream';
import type { PGlite } from '@electric-sql/pglite' with { 'resolution-mode': 'import' };
import { DataSource, type EntityManager } from 'typeorm';
import { MIGRATIONS } from '../../../migrations';
import type { AppConfig } from '../config/config';
import { logger } from '../logging/logger';
import { EmbeddedConnector, closeDataDirToOthers, preparePrivateDataDir } from './embedded';
import { tarWithout } from './tar';
import { type Isolation, RunnerSql, type Sql, type SqlParams, type SqlPool, StatementNames, type Tx, transactionSql } from './sql';

/** The embedded database's pool: PGlite has one session for every connection. */
const EMBEDDED_POOL_SIZE = 1;

/** Connections in the app's pool: DATABASE_POOL_SIZE on PostgreSQL, one on the embedded database (the job workers are sized from it). */
export function databasePoolSize(config: AppConfig): number {
  return config.databaseUrl ? config.databasePoolSize : EMBEDDED_POOL_SIZE;
}

/** Entity classes the DataSource knows (src/app-entities.ts: `common` imports no module, so the app passes them in). */
export type EntityClasses = ReadonlyArray<new () => object>;

/**
 * The database port: PostgreSQL from DATABASE_URL, or embedded PostgreSQL (PGlite, persisted in
 * DATA_DIR) reached through an in-process pipe (EmbeddedConnector: no socket, so nothing outside
 * the process can connect). The same SQL runs on both. PGlite has one session for every
 * connection, so the embedded pool holds exactly one connection.
 */
export class Database implements SqlPool {
  private readonly pool: Sql;
  /** Named statements (parsed once per connection) on PostgreSQL; none on the embedded database (sql.ts). */
  private readonly names: StatementNames | undefined;

  private constructor(
    /** @deprecated Only `common/database` may use it (the import-boundary rule); use `rows`, `one`, `exec`, `tx`. */
    readonly dataSource: DataSource,
    readonly embedded: boolean,
    private readonly stopEmbedded: () => Promise<void>,
    /** The embedded database itself (null on PostgreSQL): only `embeddedSnapshot` reaches it. */
    private readonly pglite: PGlite | null = null,
  ) {
    this.names = embedded ? undefined : new StatementNames();
    this.pool = new RunnerSql(() => ({ runner: dataSource.createQueryRunner(), release: true }), null, this.names);
  }

  get manager(): EntityManager {
    return this.dataSource.manager;
  }

  rows<T extends object>(text: string, params?: SqlParams): Promise<T[]> {
    return this.pool.rows<T>(text, params);
  }

  one<T extends object>(text: string, params?: SqlParams): Promise<T | null> {
    return this.pool.one<T>(text, params);
  }

  exec(text: string, params?: SqlParams): Promise<number> {
    return this.pool.exec(text, params);
  }

  async tx<T>(fn: (tx: Tx) => Promise<T>, isolation?: Isolation): Promise<T> {
    // Tx.afterCommit callbacks of this transaction: run once its COMMIT is answered, dropped on rollback.
    const committed: Array<() => void | Promise<void>> = [];
    const run = (manager: EntityManager): Promise<T> => fn(transactionSql(manager, committed, this.names));
    const result = await (isolation ? this.dataSource.transaction(isolation, run) : this.dataSource.transaction(run));
    // Every callback starts at once, in order (a metric reads its clock right after the COMMIT;
    // announcements are published in the order of their moves); then their promises are awaited,
    // so the caller continues once its events are out, as when it published them itself.
    const running = committed.map(async (callback) => callback());
    for (const outcome of await Promise.allSettled(running)) {
      // The transaction is committed: a failed callback must not make it look failed to its caller.
      if (outcome.status === 'rejected') logger.event('warn', 'after-commit callback failed', { error: String(outcome.reason) }, 'Database');
    }
    return result;
  }

  afterCommit(fn: () => void): void {
    this.pool.afterCommit(fn);
  }

  /**
   * Runs `fn` with one pooled connection taken now and held until it returns (no transaction:
   * each statement commits on its own), for a statement that must not queue for the pool when it
   * is due (RfqExpiryService takes it just before a deadline). On the embedded database, whose pool is
   * its one session, nothing is held: `fn` gets the pool.
   */
  async session<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    if (this.embedded) return fn(this.pool);
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.connect();
      return await fn(new RunnerSql(() => ({ runner, release: false }), null, this.names));
    } finally {
      await runner.release();
    }
  }

  /**
   * The embedded database's data directory as a tar (PGlite's `dumpDataDir`), consistent at one
   * moment between two transactions (docs/operations.md, "Backups"). The copy is taken while this
   * call holds the pool's one connection, which is PGlite's one session: every transaction holds
   * that connection from BEGIN to COMMIT, so none is open while the files are read and none starts
   * before they are. A CHECKPOINT first writes every committed page into the files, so a restore
   * replays almost no WAL. Database work waits meanwhile (the pool queues it; nothing fails unless
   * the copy outlasts the pool's 10 s connection timeout). Files of DATA_DIR named in `without`
   * (the exchange's signing key) are left out. `before` runs first on the held session (the
   * journal chains its staged receipts there, so the copy holds every fill with its receipt).
   */
  async embeddedSnapshot(without: readonly string[] = [], before?: (sql: Sql) => Promise<void>): Promise<Buffer> {
    if (!this.pglite) throw new Error('embeddedSnapshot: the database is PostgreSQL (use pg_dump)');
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.connect();
      // What must be in the copy first (the journal's staged receipts chained), on the held session.
      if (before) await before(new RunnerSql(() => ({ runner, release: false }), null, this.names));
      await runner.query('CHECKPOINT');
      const tar = await this.pglite.dumpDataDir('none');
      return tarWithout(Buffer.from(await tar.arrayBuffer()), without);
    } finally {
      await runner.release();
    }
  }

  /** Opens the configured database and runs the pending migrations; `entities` is the app's ENTITIES. */
  static async open(config: AppConfig, entities: EntityClasses = []): Promise<Database> {
    if (config.databaseUrl) {
      const dataSource = Database.dataSource(config.databaseUrl, config.databasePoolSize, entities);
      await dataSource.initialize();
      await Database.migrate(dataSource);
      return new Database(dataSource, false, async () => {});
    }
    // Loaded only in embedded mode: PGlite is a large WebAssembly module.
    const { PGlite } = await import('@electric-sql/pglite');
    preparePrivateDataDir(config.dataDir);
    const db = await PGlite.create({ dataDir: config.dataDir });
    // The directory and its files, new or from an install before the rule, closed to other users.
    closeDataDirToOthers(config.dataDir);
    const connector = await EmbeddedConnector.create(db);
    // No host is reached: the driver's connection is the in-process pipe that `stream` returns.
    const dataSource = Database.dataSource('postgres://postgres@embedded/postgres', EMBEDDED_POOL_SIZE, entities, { stream: connector.stream });
    const stop = async () => {
      await connector.close();
      await db.close();
    };
    try {
      await dataSource.initialize();
      await Database.migrate(dataSource);
    } catch (error) {
      await stop();
      throw error;
    }
    logger.event('info', 'embedded database ready', { data_dir: config.dataDir }, 'Database');
    return new Database(dataSource, true, stop, db);
  }

  /**
   * The DataSource of the app, the migration CLI and the tests: the migrations create the schema
   * (`synchronize` is never on); the entities declare it, and test/e2e/schema.e2e-spec.ts checks
   * that the two agree.
   */
  static dataSource(url: string, poolSize: number, entities: EntityClasses = [], driverOptions: { stream?: () => Duplex } = {}): DataSource {
    return new DataSource({
      type: 'postgres',
      url,
      poolSize,
      extra: { max: poolSize, connectionTimeoutMillis: 10_000, ...driverOptions },
      entities: [...entities],
      migrations: MIGRATIONS,
      migrationsTableName: 'migrations',
      synchronize: false,
      logging: false,
    });
  }

  private static async migrate(dataSource: DataSource): Promise<void> {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    if (applied.length > 0) logger.event('info', 'migrations applied', { migrations: applied.map((m) => m.name) }, 'Database');
  }

  /**
   * The statements TypeORM would run to make the database match the entities: none when the
   * migrations and the entities agree (test/e2e/schema.e2e-spec.ts; `npm run migration:generate`
   * writes them into a migration).
   */
  async schemaDifferences(): Promise<string[]> {
    const sql = await this.dataSource.driver.createSchemaBuilder().log();
    return sql.upQueries.map((query) => query.query);
  }

  async ping(timeoutMs = 2000): Promise<boolean> {
    try {
      await withTimeout(this.dataSource.query('SELECT 1'), timeoutMs);
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
    await this.stopEmbedded();
  }
}

export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
