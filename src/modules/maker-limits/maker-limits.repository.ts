import { Injectable } from '@nestjs/common';
import { Database } from '../../common/database/database';
import type { Sql, Tx } from '../../common/database/sql';
import type { Maybe, Narrow, Row } from '../../common/database/table';
import type { LimitsDocument } from './domain/maker-limits';
import type { FillWindow } from './domain/quote-exposure';
import type { QuotedLeg } from './domain/quoted-rfq';
import { MAKER_LIMITS_COLUMNS, type MakerLimitsRawRow as RawRow, type MakerLimitsRow, toMakerLimitsRow as toRow } from './maker-limits-row';
import { parseRfqSigned } from '@legwork/protocol';

/** Where MakerLimitsRepository.quotesVersion reads: locking in a transaction, or without a lock anywhere. */
export type VersionRead = { sql: Tx; lock: true } | { sql: Sql; lock: false };

/**
 * See MakerLimitsRepository.quotesVersion; `key` compares two versions. `competition`: the version
 * of the maker's competitive quotes that no event to it moves (CompetitionPort.version), null
 * until read.
 */
export interface QuotesVersion {
  highWater: bigint | null;
  lastSeq: string | null;
  locked: boolean;
  competition: string | null;
  key: string;
}

export const quotesVersion = (highWater: bigint | null, lastSeq: string | null, locked: boolean, competition: string | null = null): QuotesVersion => ({
  highWater,
  lastSeq,
  locked,
  competition,
  key: `${highWater ?? ''}:${lastSeq ?? ''}:${competition ?? ''}`,
});

const COLUMNS = MAKER_LIMITS_COLUMNS.sql;
/** The version of a maker's quotes: its high-water mark and its event counter (null: no event yet), as text. */
type VersionRow = Row<'maker_nonces', 'high_water'> & Maybe<Row<'account_event_seqs', 'last_seq'>>;
/** The parts of the version as scalar subqueries on `$1` (the maker's account id), each NULL when the maker has none. */
const LAST_SEQ = '(SELECT last_seq::text FROM account_event_seqs WHERE account_id = $1) AS last_seq';
const HIGH_WATER = '(SELECT high_water::text FROM maker_nonces WHERE account_id = $1) AS high_water';
/** A version as read (a null high_water: the maker never quoted). */
const versionOf = (r: Maybe<VersionRow>, locked: boolean, competition: string | null = null): QuotesVersion =>
  quotesVersion(r.high_water === null ? null : BigInt(r.high_water), r.last_seq, locked, competition);

export type { MakerLimitsRow } from './maker-limits-row';

/**
 * `maker_limits` and `maker_fills` (docs/spec/design.md section 15): a maker's limits, the
 * operator's ceiling, the protection state and window; and the reads of a maker's live quotes in
 * the rfq module's `rfqs`, `maker_nonces` and `account_event_seqs` that its usage is summed from
 * (read only: an index-only read of a maker's live quotes, and their version in the statement
 * that locks the limits row, stay one statement each). get_limits' statement also embeds the
 * competition module's version subquery, whose text that module gives (CompetitiveUsage.versionSql).
 */
@Injectable()
export class MakerLimitsRepository {
  constructor(private readonly db: Database) {}

  async find(accountId: number, sql: Sql = this.db): Promise<MakerLimitsRow | null> {
    const row = await sql.one<RawRow>(`SELECT ${COLUMNS} FROM maker_limits WHERE account_id = $1`, [accountId]);
    return row && toRow(row);
  }

  /**
   * The row (null: never had limits) and, in the same statement, the version of the maker's quotes
   * (see quotesVersion) with its competitive quotes' (`competitionSql`, a scalar subquery on `$1`
   * that the competition module gives; null: none registered, the version's part stays unread).
   */
  async findWithVersion(accountId: number, competitionSql: string | null): Promise<{ row: MakerLimitsRow | null; version: QuotesVersion }> {
    const r = (await this.db.one<Maybe<RawRow> & Maybe<VersionRow> & { competition: string | null; found: boolean }>(
      `SELECT ${COLUMNS}, m.account_id IS NOT NULL AS found, ${HIGH_WATER}, ${LAST_SEQ}, ${competitionSql ?? 'NULL::text'} AS competition
         FROM (SELECT $1::bigint AS id) maker LEFT JOIN maker_limits m ON m.account_id = maker.id`,
      [accountId],
    ))!;
    const version = versionOf(r, false, competitionSql === null ? null : (r.competition ?? ''));
    return { row: r.found ? toRow(r as RawRow) : null, version };
  }

  /** The row locked to the caller's commit: one maker's responds under limits, and its fills' protection, queue on it. */
  async lock(tx: Tx, accountId: number): Promise<MakerLimitsRow | null> {
    const row = await tx.one<RawRow>(`SELECT ${COLUMNS} FROM maker_limits WHERE account_id = $1 FOR UPDATE`, [accountId]);
    return row && toRow(row);
  }

  /**
   * The row locked (as `lock`) with, in the same statement, the maker's high-water row locked and
   * the version of its quotes (see quotesVersion); a locked row reads its latest committed
   * version, the `account_seq` counter may read older (a version that matches nothing later).
   * Null version: the maker never quoted, nothing but the limits row is locked.
   */
  async lockWithVersion(tx: Tx, accountId: number): Promise<{ row: MakerLimitsRow | null; version: QuotesVersion | null }> {
    const r = await tx.one<RawRow & VersionRow>(
      `SELECT ${COLUMNS}, n.high_water::text AS high_water, ${LAST_SEQ}
         FROM maker_limits m JOIN maker_nonces n ON n.account_id = m.account_id WHERE m.account_id = $1 FOR UPDATE OF m, n`,
      [accountId],
    );
    if (r) return { row: toRow(r), version: versionOf(r, true) };
    return { row: await this.lock(tx, accountId), version: null };
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

  /**
   * The maker's live quotes (state quoted, quote_expires_at after `liveAfter`) with their expiry:
   * an index-only read of `rfqs_maker_live` (maker_account_id, quote_expires_at, id).
   */
  async liveQuotes(accountId: number, liveAfter: number, sql: Sql = this.db): Promise<Array<{ id: string; expiresAt: number }>> {
    // One row of comma-joined pairs: thousands of one-column rows cost the driver more than the read.
    const row = await sql.one<{ quotes: string | null }>(
      `SELECT string_agg(id || ':' || quote_expires_at, ',') AS quotes FROM rfqs WHERE maker_account_id = $1 AND state = 'quoted' AND quote_expires_at > $2`,
      [accountId, liveAfter],
    );
    if (!row?.quotes) return [];
    return row.quotes.split(',').map((pair) => {
      const at = pair.indexOf(':');
      return { id: pair.slice(0, at), expiresAt: Number(pair.slice(at + 1)) };
    });
  }

  /**
   * The version of the maker's set of quotes: its nonce high-water mark, which every quote it takes
   * raises in its move, and its `account_seq` counter, which every move of its quotes out of
   * quoted (accepted, expired) raises in the move's own statement. `lock`: the high-water row is
   * locked to the caller's commit (no quote of the maker commits meanwhile); without a row
   * (never quoted) nothing is locked and `locked` is false.
   */
  async quotesVersion(accountId: number, { sql, lock }: VersionRead): Promise<QuotesVersion> {
    const row = lock
      ? await sql.one<VersionRow>(`SELECT n.high_water::text AS high_water, ${LAST_SEQ} FROM maker_nonces n WHERE n.account_id = $1 FOR UPDATE`, [accountId])
      : null;
    const read = row ?? (await sql.one<Maybe<VersionRow>>(`SELECT ${HIGH_WATER}, ${LAST_SEQ}`, [accountId]))!;
    return versionOf(read, row !== null);
  }

  /** The legs of these RFQs (they never change once created), by id. */
  async legsOf(ids: readonly string[], sql: Sql = this.db): Promise<Array<{ id: string; asset: string; legs: QuotedLeg[] }>> {
    const rows = await sql.rows<Narrow<Row<'rfqs', 'id' | 'asset' | 'legs'>, { legs: Array<{ instrument: string; quantity: string }> }>>(
      `SELECT id, asset, legs FROM rfqs WHERE id = ANY($1::char(32)[])`,
      [ids],
    );
    return rows.map((r) => ({ id: r.id, asset: r.asset, legs: r.legs.map((l) => ({ instrument: l.instrument, quantity: parseRfqSigned(l.quantity) })) }));
  }

  /**
   * Adds a fill to the maker's protection window (once per RFQ), drops the fills at or before
   * `windowStart`, and answers the window's sums.
   */
  async addFill(
    tx: Tx,
    accountId: number,
    fill: { rfqId: string; filledAt: number; asset: string; notional: bigint; delta: bigint },
    windowStart: number,
  ): Promise<FillWindow> {
    await tx.exec(
      `INSERT INTO maker_fills (account_id, rfq_id, filled_at, asset, notional, delta) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (account_id, rfq_id) DO NOTHING`,
      [accountId, fill.rfqId, fill.filledAt, fill.asset, fill.notional.toString(), fill.delta.toString()],
    );
    await tx.exec(`DELETE FROM maker_fills WHERE account_id = $1 AND filled_at <= $2`, [accountId, windowStart]);
    return this.window(accountId, tx);
  }

  /** The sums of the fills in the maker's protection window. */
  async window(accountId: number, sql: Sql = this.db): Promise<FillWindow> {
    const rows = await sql.rows<Row<'maker_fills', 'asset' | 'notional' | 'delta'> & { fills: number }>(
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
  async trip(tx: Tx, accountId: number, at: number, until: number | null, reason: string): Promise<void> {
    await tx.exec(`UPDATE maker_limits SET tripped_at = $2, frozen_until = $3, trip_reason = $4, updated_at = $2 WHERE account_id = $1`, [
      accountId,
      at,
      until,
      reason,
    ]);
    await tx.exec(`DELETE FROM maker_fills WHERE account_id = $1`, [accountId]);
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
