import type { Sql, Tx } from '../../../src/common/database/sql';

/**
 * A `Sql` over a function that runs a statement and answers its rows (a node-postgres client of a
 * test's own connection): for the ledger's SQL functions, which read rows. `exec` is not
 * available (no row count) and throws.
 */
export function rowsSql(run: (text: string, params?: unknown[]) => Promise<unknown[]>): Sql {
  return {
    rows: async <T extends object>(text: string, params: readonly unknown[] = []) => (await run(text, [...params])) as T[],
    one: async <T extends object>(text: string, params: readonly unknown[] = []) => ((await run(text, [...params]))[0] as T | undefined) ?? null,
    exec: () => Promise.reject(new Error('rowsSql has no row count: use rows')),
    afterCommit: (fn) => fn(),
  };
}

/** `rowsSql` as a `Tx`, for the app's statements that must run in a transaction which the test opened itself (BEGIN ... COMMIT on its own client). */
export function rowsTx(run: (text: string, params?: unknown[]) => Promise<unknown[]>): Tx {
  return rowsSql(run) as Tx;
}
