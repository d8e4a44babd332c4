import { Injectable } from '@nestjs/common';
import { Database } from '../../common/database/database';
import type { Sql } from '../../common/database/sql';
import type { LimitsDocument } from './domain/maker-limits';
import type { FillWindow, OpenUsage } from './domain/quote-exposure';

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

/** Per-contract greeks and index prices at the current marks, as the usage statement takes them (micro-units). */
export interface MarksTable {
  symbols: string[];
  deltas: string[];
  vegas: string[];
  assets: string[];
  indexes: string[];
}

type RawRow = { limits: LimitsDocument; admin_limits: LimitsDocument; tripped_at: string | null; frozen_until: string | null; trip_reason: string | null };

const COLUMNS = 'limits, admin_limits, tripped_at, frozen_until, trip_reason';

const toRow = (r: RawRow): MakerLimitsRow => ({
  limits: r.limits,
  adminLimits: r.admin_limits,
  trippedAt: r.tripped_at === null ? null : Number(r.tripped_at),
  frozenUntil: r.frozen_until === null ? null : Number(r.frozen_until),
  tripReason: r.trip_reason,
});

/**
 * A maker's live quotes (state quoted, quote not past its expires_at) summed per asset in one
 * statement on the index `rfqs_maker_live`: per quote, `sum |q|` times the asset's index, and
 * `sum q * delta` and `sum q * vega` with the greeks given per instrument (computed once per call);
 * each rounded toward zero to micro-units, then the absolute values summed. Quantities are decimal
 * text in the legs, the greeks and index micro-units, so each product is micro-units exactly.
 */
const USAGE = `
  WITH g AS (SELECT * FROM unnest($3::text[], $4::numeric[], $5::numeric[]) AS g(symbol, delta, vega)),
       ix AS (SELECT * FROM unnest($6::text[], $7::numeric[]) AS ix(asset, price)),
       q AS (
         SELECT r.asset, sum(abs(l.quantity)) AS qty, sum(l.quantity * g.delta) AS delta, sum(l.quantity * g.vega) AS vega
           FROM rfqs r
          CROSS JOIN LATERAL jsonb_to_recordset(r.legs) AS l(instrument text, quantity numeric)
           LEFT JOIN g ON g.symbol = l.instrument
          WHERE r.maker_account_id = $1 AND r.state = 'quoted' AND r.quote_expires_at > $2
          GROUP BY r.id, r.asset)
  SELECT q.asset, count(*)::int AS quotes,
         coalesce(sum(trunc(q.qty * ix.price)), 0)::text AS notional,
         coalesce(sum(abs(trunc(q.delta))), 0)::text AS delta,
         coalesce(sum(abs(trunc(q.vega))), 0)::text AS vega
    FROM q LEFT JOIN ix ON ix.asset = q.asset
   GROUP BY q.asset`;

/**
 * `maker_limits` and `maker_fills` (docs/spec/design.md section 15): a maker's limits, the
 * operator's ceiling, the protection state and window; and the usage read of a maker's live quotes
 * in `rfqs` (this module's table).
 */
@Injectable()
export class MakerLimitsRepository {
  constructor(private readonly db: Database) {}

  async find(accountId: number, sql: Sql = this.db): Promise<MakerLimitsRow | null> {
    const row = await sql.one<RawRow>(`SELECT ${COLUMNS} FROM maker_limits WHERE account_id = $1`, [accountId]);
    return row && toRow(row);
  }

  /** The row locked to the caller's commit: one maker's responds under limits, and its fills' protection, queue on it. */
  async lock(sql: Sql, accountId: number): Promise<MakerLimitsRow | null> {
    const row = await sql.one<RawRow>(`SELECT ${COLUMNS} FROM maker_limits WHERE account_id = $1 FOR UPDATE`, [accountId]);
    return row && toRow(row);
  }

  /** Replaces the maker's own document (`which` = limits) or the operator's (`admin_limits`), creating the row. */
  async set(accountId: number, which: 'limits' | 'admin_limits', document: LimitsDocument, at: number): Promise<MakerLimitsRow> {
    const other = which === 'limits' ? 'admin_limits' : 'limits';
    const row = await this.db.one<RawRow>(
      `INSERT INTO maker_limits (account_id, ${which}, ${other}, updated_at) VALUES ($1, $2::jsonb, '{}'::jsonb, $3)
       ON CONFLICT (account_id) DO UPDATE SET ${which} = EXCLUDED.${which}, updated_at = EXCLUDED.updated_at
       RETURNING ${COLUMNS}`,
      [accountId, JSON.stringify(document), at],
    );
    return toRow(row!);
  }

  /** The maker's live quotes at the given marks, per asset (no row: no live quote). */
  async usage(accountId: number, liveAfter: number, marks: MarksTable, sql: Sql = this.db): Promise<OpenUsage> {
    const rows = await sql.rows<{ asset: string; quotes: number; notional: string; delta: string; vega: string }>(USAGE, [
      accountId,
      liveAfter,
      marks.symbols,
      marks.deltas,
      marks.vegas,
      marks.assets,
      marks.indexes,
    ]);
    const usage: OpenUsage = { openQuotes: 0, openNotional: 0n, openDelta: {}, openVega: {} };
    for (const r of rows) {
      usage.openQuotes += r.quotes;
      usage.openNotional += BigInt(r.notional);
      usage.openDelta[r.asset] = BigInt(r.delta);
      usage.openVega[r.asset] = BigInt(r.vega);
    }
    return usage;
  }

  /**
   * Adds a fill to the maker's protection window (once per RFQ), drops the fills at or before
   * `windowStart`, and answers the window's sums.
   */
  async addFill(
    sql: Sql,
    accountId: number,
    fill: { rfqId: string; filledAt: number; asset: string; notional: bigint; delta: bigint },
    windowStart: number,
  ): Promise<FillWindow> {
    await sql.exec(
      `INSERT INTO maker_fills (account_id, rfq_id, filled_at, asset, notional, delta) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (account_id, rfq_id) DO NOTHING`,
      [accountId, fill.rfqId, fill.filledAt, fill.asset, fill.notional.toString(), fill.delta.toString()],
    );
    await sql.exec(`DELETE FROM maker_fills WHERE account_id = $1 AND filled_at <= $2`, [accountId, windowStart]);
    return this.window(accountId, sql);
  }

  /** The sums of the fills in the maker's protection window. */
  async window(accountId: number, sql: Sql = this.db): Promise<FillWindow> {
    const rows = await sql.rows<{ asset: string; fills: number; notional: string; delta: string }>(
      `SELECT asset, count(*)::int AS fills, sum(notional)::text AS notional, sum(delta)::text AS delta FROM maker_fills WHERE account_id = $1 GROUP BY asset`,
      [accountId],
    );
    const window: FillWindow = { fills: 0, notional: 0n, delta: {} };
    for (const r of rows) {
      window.fills += r.fills;
      window.notional += BigInt(r.notional);
      window.delta[r.asset] = BigInt(r.delta);
    }
    return window;
  }

  /** A trip: the maker is frozen from `at` (until `until`, or until reset when null), and a new window starts. */
  async trip(sql: Sql, accountId: number, at: number, until: number | null, reason: string): Promise<void> {
    await sql.exec(`UPDATE maker_limits SET tripped_at = $2, frozen_until = $3, trip_reason = $4, updated_at = $2 WHERE account_id = $1`, [
      accountId,
      at,
      until,
      reason,
    ]);
    await sql.exec(`DELETE FROM maker_fills WHERE account_id = $1`, [accountId]);
  }

  /** rfq.maker.reset_protection: not frozen any more; the window starts anew. Whether a row was there. */
  async reset(accountId: number, at: number): Promise<boolean> {
    return this.db.tx(async (sql) => {
      const n = await sql.exec(`UPDATE maker_limits SET tripped_at = NULL, frozen_until = NULL, trip_reason = NULL, updated_at = $2 WHERE account_id = $1`, [
        accountId,
        at,
      ]);
      await sql.exec(`DELETE FROM maker_fills WHERE account_id = $1`, [accountId]);
      return n > 0;
    });
  }
}
