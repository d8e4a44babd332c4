import type { EntityManager, QueryRunner } from 'typeorm';

/** Positional parameters of one statement ($1, $2, ...). */
export type SqlParams = readonly unknown[];

/** Transaction isolation levels Legwork uses (PostgreSQL's names). */
export type Isolation = 'READ COMMITTED' | 'REPEATABLE READ' | 'SERIALIZABLE';

/**
 * Typed SQL over one executor: the pool, or one transaction. Repositories take a `Sql` so the
 * same method runs alone or inside a caller's transaction. Row types are the caller's
 * declaration of the statement's columns (snake_case, as PostgreSQL returns them).
 */
export interface Sql {
  /** Every row of the statement (SELECT, or INSERT/UPDATE/DELETE ... RETURNING). */
  rows<T extends object>(text: string, params?: SqlParams): Promise<T[]>;
  /** The first row, or null when there is none. */
  one<T extends object>(text: string, params?: SqlParams): Promise<T | null>;
  /** The number of rows the statement touched (INSERT, UPDATE, DELETE). */
  exec(text: string, params?: SqlParams): Promise<number>;
  /** The entity manager of this executor, for repositories that use TypeORM's entity API. */
  readonly manager: EntityManager;
  /**
   * Runs `fn` once the work done through this executor is committed: in a transaction, right after
   * its COMMIT is answered (never when it rolls back); outside one (each statement commits on its
   * own), at once. For what must follow a commit and is cheap (a metric): `fn` must not throw.
   */
  afterCommit(fn: () => void): void;
}

/** The pool's executor, which can also open transactions. */
export interface SqlPool extends Sql {
  /** Runs `fn` in one transaction; inside it use only the `Sql` it is given (PGlite has one session). */
  tx<T>(fn: (sql: Sql) => Promise<T>, isolation?: Isolation): Promise<T>;
}

interface StructuredResult {
  records?: unknown[];
  affected?: number;
}

/** Runs statements on one query runner (a transaction's) or on a fresh one per statement (the pool's). */
export class RunnerSql implements Sql {
  constructor(
    readonly manager: EntityManager,
    private readonly runner: () => { runner: QueryRunner; release: boolean },
    /** A transaction's callbacks, run by `Database.tx` after its COMMIT; null outside a transaction. */
    private readonly committed: Array<() => void> | null = null,
  ) {}

  afterCommit(fn: () => void): void {
    if (this.committed) this.committed.push(fn);
    else fn();
  }

  async rows<T extends object>(text: string, params: SqlParams = []): Promise<T[]> {
    return ((await this.structured(text, params)).records ?? []) as T[];
  }

  async one<T extends object>(text: string, params: SqlParams = []): Promise<T | null> {
    const rows = await this.rows<T>(text, params);
    return rows[0] ?? null;
  }

  async exec(text: string, params: SqlParams = []): Promise<number> {
    return (await this.structured(text, params)).affected ?? 0;
  }

  private async structured(text: string, params: SqlParams): Promise<StructuredResult> {
    const { runner, release } = this.runner();
    try {
      return (await runner.query(text, [...params], true)) as StructuredResult;
    } finally {
      if (release) await runner.release();
    }
  }
}

/**
 * The `Sql` of a transaction's entity manager (its query runner is fixed for the transaction);
 * its `afterCommit` callbacks go into `committed`, which the caller runs after the COMMIT.
 */
export function transactionSql(manager: EntityManager, committed: Array<() => void> = []): Sql {
  const runner = manager.queryRunner;
  if (!runner) throw new Error('transactionSql needs a transaction entity manager');
  return new RunnerSql(manager, () => ({ runner, release: false }), committed);
}

/** SQLSTATE raised by `legwork_refuse(reason)` (migration 1763800000004): a statement refused itself. */
const REFUSED_SQLSTATE = 'LW001';

/** The reason of a statement that refused itself with legwork_refuse (it changed nothing), else null. */
export function refusalReason(error: unknown): string | null {
  const e = error as { code?: unknown; message?: unknown; driverError?: { code?: unknown; message?: unknown } } | null;
  if ((e?.driverError?.code ?? e?.code) !== REFUSED_SQLSTATE) return null;
  return String(e?.driverError?.message ?? e?.message);
}
