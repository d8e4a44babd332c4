import type { EntityManager, QueryRunner } from 'typeorm';
import { logger } from '../logging/logger';

/** Positional parameters of one statement ($1, $2, ...). */
export type SqlParams = readonly unknown[];

/** Transaction isolation levels Legwork uses (PostgreSQL's names). */
export type Isolation = 'READ COMMITTED' | 'REPEATABLE READ' | 'SERIALIZABLE';

/**
 * Typed SQL over one executor: the pool, or one transaction. A repository method that is right
 * alone or inside a caller's transaction (a read, a single statement atomic on its own) takes a
 * `Sql`; one that must run inside a transaction takes a `Tx`. Row types are the caller's
 * declaration of the statement's columns (snake_case, as PostgreSQL returns them).
 */
export interface Sql {
  /** Every row of the statement (SELECT, or INSERT/UPDATE/DELETE ... RETURNING). */
  rows<T extends object>(text: string, params?: SqlParams): Promise<T[]>;
  /** The first row, or null when there is none. */
  one<T extends object>(text: string, params?: SqlParams): Promise<T | null>;
  /** The number of rows the statement touched (INSERT, UPDATE, DELETE). */
  exec(text: string, params?: SqlParams): Promise<number>;
  /**
   * Runs `fn` once the work done through this executor is committed: in a transaction, right after
   * its COMMIT is answered (never when it rolls back); outside one (each statement commits on its
   * own), at once. For what must follow a commit and is cheap (a metric): `fn` must not throw.
   */
  afterCommit(fn: () => void): void;
}

/** Brands `Tx`: no value but the one `SqlPool.tx` hands its callback carries it (type only, nothing at run time). */
declare const inTransaction: unique symbol;

/**
 * One open transaction, as `SqlPool.tx` hands it to its callback: the only value of this type
 * (the pool and a held session are `Sql`, not `Tx`). A method that locks rows (FOR UPDATE /
 * FOR SHARE, a transaction-scoped advisory lock) or writes one of several statements that must
 * commit together takes a required `tx: Tx`, so the compiler refuses a call made with the pool
 * or without it: such a call would run outside the transaction, without its locks on
 * PostgreSQL and waiting forever for the one session on PGlite.
 */
export interface Tx extends Sql {
  readonly [inTransaction]: true;
  /**
   * Runs `fn` right after this transaction's COMMIT is answered, never when it rolls back: the
   * announcement of a move made in it (events to subscribers), a metric. Callbacks start in the
   * order they were registered; `SqlPool.tx` awaits the promises they return before it returns
   * and logs (never throws) their failures, since the work is committed.
   */
  afterCommit(fn: () => void | Promise<void>): void;
}

/** The pool's executor, which can also open transactions. */
export interface SqlPool extends Sql {
  /** Runs `fn` in one transaction; inside it use only the `Tx` it is given (PGlite has one session). */
  tx<T>(fn: (tx: Tx) => Promise<T>, isolation?: Isolation): Promise<T>;
}

interface StructuredResult {
  records?: unknown[];
  affected?: number;
}

/**
 * Names for the statement texts a process repeats, so that PostgreSQL parses (and, once its plan
 * cache settles, plans) each of them once per connection instead of on every call: the `pg`
 * driver prepares a named statement on a connection the first time it meets the name there and
 * then only binds and executes it. A text is named from its `after`-th call on; at most `max`
 * texts are named (the rest run unnamed, as before), so texts built at run time cannot prepare an
 * unbounded number of statements on the server. Only for PostgreSQL: the embedded database has
 * one session shared by every connection the driver opens, which each driver connection's own
 * record of what it prepared would not match.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();
  /** Calls of texts not named yet (cleared when it grows past 4 × max: a text is then counted again). */
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly max = 256,
    private readonly after = 3,
  ) {}

  /** The name of this text, or undefined while it runs unnamed. */
  nameOf(text: string): string | undefined {
    const name = this.names.get(text);
    if (name !== undefined || this.names.size >= this.max) return name;
    const count = (this.seen.get(text) ?? 0) + 1;
    if (count < this.after) {
      if (this.seen.size >= 4 * this.max) this.seen.clear();
      this.seen.set(text, count);
      return undefined;
    }
    this.seen.delete(text);
    const named = `lw${this.names.size + 1}`;
    this.names.set(text, named);
    return named;
  }

  /** How many texts are named. */
  get size(): number {
    return this.names.size;
  }
}

/** Runs statements on one query runner (a transaction's) or on a fresh one per statement (the pool's). */
export class RunnerSql implements Sql {
  constructor(
    private readonly runner: () => { runner: QueryRunner; release: boolean },
    /** A transaction's callbacks, run by `Database.tx` after its COMMIT; null outside a transaction. */
    private readonly committed: Array<() => void | Promise<void>> | null = null,
    private readonly names?: StatementNames,
  ) {}

  afterCommit(fn: () => void | Promise<void>): void {
    if (this.committed) this.committed.push(fn);
    // Outside a transaction there is nothing to wait for; an async callback's failure is logged, as Database.tx does.
    else void Promise.resolve(fn()).catch((error: unknown) => logger.event('warn', 'after-commit callback failed', { error: String(error) }, 'Database'));
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
    const name = this.names?.nameOf(text);
    // A query config object reaches `pg` as it is (TypeORM passes it on); a fresh one per call, as `pg` adds the values to it.
    const query = name === undefined ? text : ({ name, text } as unknown as string);
    try {
      return (await runner.query(query, [...params], true)) as StructuredResult;
    } finally {
      if (release) await runner.release();
    }
  }
}

/**
 * The `Tx` of a transaction's entity manager (its query runner is fixed for the transaction);
 * its `afterCommit` callbacks go into `committed`, which the caller runs after the COMMIT.
 * Only `Database.tx` calls it: it is what makes a `Tx`.
 */
export function transactionSql(manager: EntityManager, committed: Array<() => void | Promise<void>> = [], names?: StatementNames): Tx {
  const runner = manager.queryRunner;
  if (!runner) throw new Error('transactionSql needs a transaction entity manager');
  // The brand is a type only: this executor runs on the transaction's own runner.
  return new RunnerSql(() => ({ runner, release: false }), committed, names) as Sql as Tx;
}

/** SQLSTATE raised by `legwork_refuse(reason)` (migration 1763800000004): a statement refused itself. */
const REFUSED_SQLSTATE = 'LW001';

/** The reason of a statement that refused itself with legwork_refuse (it changed nothing), else null. */
export function refusalReason(error: unknown): string | null {
  const e = error as { code?: unknown; message?: unknown; driverError?: { code?: unknown; message?: unknown } } | null;
  if ((e?.driverError?.code ?? e?.code) !== REFUSED_SQLSTATE) return null;
  return String(e?.driverError?.message ?? e?.message);
}
