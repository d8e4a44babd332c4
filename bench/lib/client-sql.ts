import type { Client } from 'pg';
import type { Sql, Tx } from '../../src/common/database/sql';

/**
 * The app's `Sql` port over one of the bench's own pg clients, so that figures can call the app's
 * SQL functions and repositories on a connection they hold. No transaction of the port's: a
 * callback after commit runs at once.
 */
export function clientSql(client: Client): Sql {
  const rows = async <T extends object>(text: string, params: readonly unknown[] = []) => (await client.query(text, [...params])).rows as T[];
  return {
    rows,
    one: async <T extends object>(text: string, params?: readonly unknown[]) => (await rows<T>(text, params))[0] ?? null,
    exec: async (text, params = []) => (await client.query(text, [...params])).rowCount ?? 0,
    afterCommit: (fn: () => void) => fn(),
  };
}

/**
 * `clientSql` as a `Tx`, for the app's functions that must run in a transaction (repriceAsset)
 * while the figure holds one on this client: the caller sends BEGIN and COMMIT itself. An
 * after-commit callback still runs at once (the figures register none).
 */
export function clientTx(client: Client): Tx {
  return clientSql(client) as Tx;
}
