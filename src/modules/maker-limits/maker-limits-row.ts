import { type Narrow, type RowOf, columnList } from '../../common/database/table';
import { type LimitsDocument, type MakerLimits, effectiveLimits, parseLimits } from './domain/maker-limits';

/** A maker's limits row: both documents as stored and the protection state. */
export interface MakerLimitsRow {
  limits: LimitsDocument;
  adminLimits: LimitsDocument;
  /** Unix seconds of the last trip; null: not tripped since the last reset. */
  trippedAt: number | null;
  /** null with trippedAt set: frozen until reset. */
  frozenUntil: number | null;
  tripReason: string | null;
}

/** The columns of a limits row, for this module's statements and the rfq module's read of an RFQ with its maker's row. */
export const MAKER_LIMITS_COLUMNS = columnList('maker_limits', ['limits', 'admin_limits', 'tripped_at', 'frozen_until', 'trip_reason']);
export type MakerLimitsRawRow = Narrow<RowOf<typeof MAKER_LIMITS_COLUMNS>, { limits: LimitsDocument; admin_limits: LimitsDocument }>;

export const toMakerLimitsRow = (r: MakerLimitsRawRow): MakerLimitsRow => ({
  limits: r.limits,
  adminLimits: r.admin_limits,
  trippedAt: r.tripped_at === null ? null : Number(r.tripped_at),
  frozenUntil: r.frozen_until === null ? null : Number(r.frozen_until),
  tripReason: r.trip_reason,
});

/** Frozen at `nowMs`: tripped, and either until reset (no end) or before its end. */
export function isFrozen(row: MakerLimitsRow | null, nowMs: number): row is MakerLimitsRow {
  return row?.trippedAt != null && (row.frozenUntil === null || row.frozenUntil * 1000 > nowMs);
}

/** The limits that bind: the maker's document under the operator's ceiling. */
export function effectiveOf(row: MakerLimitsRow): MakerLimits {
  return effectiveLimits(parseLimits(row.limits), parseLimits(row.adminLimits));
}

/**
 * The maker's limits row locked to the caller's commit, selected only while it holds exactly `row`
 * (the rfq module's guarded respond): a locked row is re-read at its latest committed version, so
 * a change committed meanwhile (a trip, a reset, new limits) selects nothing.
 */
export function limitsRowHeldSql(param: (value: unknown) => string, accountId: number, row: MakerLimitsRow): string {
  return `SELECT 1 FROM maker_limits WHERE account_id = ${param(accountId)}
             AND limits = ${param(JSON.stringify(row.limits))}::jsonb AND admin_limits = ${param(JSON.stringify(row.adminLimits))}::jsonb
             AND tripped_at IS NOT DISTINCT FROM ${param(row.trippedAt)}::bigint AND frozen_until IS NOT DISTINCT FROM ${param(row.frozenUntil)}::bigint
             AND trip_reason IS NOT DISTINCT FROM ${param(row.tripReason)}::text
           FOR UPDATE`;
}
