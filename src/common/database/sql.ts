/** Anything that runs SQL: the DataSource, or a transaction's EntityManager. */
export interface SqlExecutor {
  query(sql: string, parameters?: unknown[]): Promise<any>;
}

/**
 * The rows of a statement. TypeORM's PostgreSQL driver answers UPDATE and DELETE with
 * `[rows, rowCount]` but SELECT and INSERT with `rows`; this gives `rows` for all of them.
 * Use it for every statement whose rows are read (`... RETURNING` above all).
 */
export async function sqlRows<T = Record<string, any>>(executor: SqlExecutor, sql: string, parameters: unknown[] = []): Promise<T[]> {
  const result = await executor.query(sql, parameters);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}

/** SQLSTATE raised by `legwork_refuse(reason)` (migration 1763800000004): a statement refused itself. */
export const REFUSED_SQLSTATE = 'LW001';

/** The reason of a statement that refused itself with legwork_refuse (it changed nothing), else null. */
export function refusalReason(error: unknown): string | null {
  const e = error as { code?: unknown; message?: unknown; driverError?: { code?: unknown; message?: unknown } } | null;
  if ((e?.driverError?.code ?? e?.code) !== REFUSED_SQLSTATE) return null;
  return String(e?.driverError?.message ?? e?.message);
}
