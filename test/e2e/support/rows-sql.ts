import type { EntityManager } from 'typeorm';
import type { Sql } from '../../../src/common/database/sql';

/**
 * A `Sql` over a function that runs a statement and answers its rows (a node-postgres client of a
 * test's own connection): for the ledger's SQL functions, which read rows. `exec` and `manager`
 * are not available (no row count, no TypeORM) and throw.
 */
export function rowsSql(run: (text: string, params?: unknown[]) => Promise<unknown[]>): Sql {
  return {
    rows: async <T extends object>(text: string, params: readonly unknown[] = []) => (await run(text, [...params])) as T[],
    one: async <T extends object>(text: string, params: readonly unknown[] = []) => ((await run(text, [...params]))[0] as T | undefined) ?? null,
    exec: () => Promise.reject(new Error('rowsSql has no row count: use rows')),
    get manager(): EntityManager {
      throw new Error('rowsSql has no entity manager');
    },
    afterCommit: (fn) => fn(),
  };
}
