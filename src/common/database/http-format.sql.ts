/**
 * SQL twins of the HTTP output forms, for read models whose rows PostgreSQL formats itself (no
 * bigint parsing and formatting per field in Node). Each equals its TypeScript original for every
 * value (test/e2e/http-format.e2e-spec.ts runs both against the database).
 */

/**
 * `formatHttp` in SQL: a bigint micro-unit expression as text with exactly 8 fractional digits
 * ("12.50000000"). Multiplying by 0.000001 is exact (a division would round past 16 digits).
 */
export function httpDecimalSql(expression: string): string {
  return `(${expression}::numeric * 0.000001)::numeric(30, 8)::text`;
}

/**
 * `Date.prototype.toISOString()` of a timestamptz as node-postgres reads it (milliseconds,
 * truncated): "2026-11-23T12:58:28.213Z".
 */
export function isoTimeSql(expression: string): string {
  return `to_char(${expression} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
