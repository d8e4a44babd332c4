import { Injectable } from '@nestjs/common';
import { Database } from '../../common/database/database';
import type { Sql } from '../../common/database/sql';

/** A maker's last 7 days of competitive RFQs, as the wire shows it (MakerStats). */
export interface MakerStats {
  rfqs: number;
  quoted: number;
  median_response_ms: number | null;
  cancelled: number;
  replaced: number;
  won: number;
}

/** A listed maker with its stats (DirectoryMaker). */
export interface DirectoryMaker {
  wallet: string;
  name: string | null;
  stats: MakerStats;
}

interface StatsRow {
  account_id: string;
  rfqs: number;
  quoted: number;
  median_response_ms: number | null;
  cancelled: number;
  replaced: number;
  won: number;
}

/** The unix milliseconds of an RFQ id (a UUIDv7: its first 48 bits), in SQL. */
const CREATED_MS = (id: string) => `('x' || substr(${id}, 1, 12))::bit(48)::bigint`;

/**
 * One maker's stats (`m.account_id`) over the RFQs whose id is at or after $1 (the smallest id of
 * the window's first millisecond: ids are time ordered), each read a range of an index bounded by
 * the window: the panels that named the maker (competition_panels_pkey), the competitive RFQs
 * without a panel that another account created (rfqs_competitive_unpaneled), and the maker's quotes
 * received since $2, the window's start in ms (competition_quotes_maker_quotes), of RFQs created in
 * the window.
 */
const STATS = `
  CROSS JOIN LATERAL (
    SELECT (SELECT count(*) FROM competition_panels p WHERE p.maker_account_id = m.account_id AND p.rfq_id >= $1)
         + (SELECT count(*) FROM rfqs r WHERE r.competition IS NOT NULL AND (r.competition ->> 'accounts') IS NULL AND r.id >= $1 AND r.account_id <> m.account_id)
           AS rfqs) reached
  CROSS JOIN LATERAL (
    SELECT count(DISTINCT q.rfq_id) AS quoted,
           count(*) FILTER (WHERE q.ending = 'cancelled') AS cancelled,
           count(*) FILTER (WHERE q.ending = 'replaced') AS replaced,
           count(*) FILTER (WHERE q.ending = 'accepted') AS won
      FROM competition_quotes q WHERE q.maker_account_id = m.account_id AND q.received_at_ms >= $2 AND q.rfq_id >= $1) counted
  CROSS JOIN LATERAL (
    SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY f.first_ms - ${CREATED_MS('f.rfq_id')})) AS median_response_ms
      FROM (SELECT q.rfq_id, min(q.received_at_ms) AS first_ms FROM competition_quotes q
             WHERE q.maker_account_id = m.account_id AND q.received_at_ms >= $2 AND q.rfq_id >= $1 GROUP BY q.rfq_id) f) responded`;

const STATS_COLUMNS = `m.account_id, reached.rfqs::int AS rfqs, counted.quoted::int AS quoted, responded.median_response_ms::int AS median_response_ms,
  counted.cancelled::int AS cancelled, counted.replaced::int AS replaced, counted.won::int AS won`;

const toStats = (r: StatsRow): MakerStats => ({
  rfqs: r.rfqs,
  quoted: r.quoted,
  median_response_ms: r.median_response_ms,
  cancelled: r.cancelled,
  replaced: r.replaced,
  won: r.won,
});

/** The smallest RFQ id of the millisecond `ms` (a UUIDv7 with nothing after its time). */
const firstIdOf = (ms: number): string => Math.max(0, ms).toString(16).padStart(12, '0') + '0'.repeat(20);

/**
 * The makers directory (docs/spec/design.md 18 "Choosing a panel"): the listed makers and every
 * maker's stats since a moment, off indexes bounded by that window (migration 1763800000400), never
 * the history: the read costs what the window holds, whatever the exchange's age.
 */
@Injectable()
export class MakerDirectoryRepository {
  constructor(private readonly db: Database) {}

  /** The maker's stats over the competitive RFQs created at or after `sinceMs`. */
  async stats(accountId: number, sinceMs: number, sql: Sql = this.db): Promise<MakerStats> {
    const row = await sql.one<StatsRow>(`SELECT ${STATS_COLUMNS} FROM (SELECT $3::bigint AS account_id) m ${STATS}`, [firstIdOf(sinceMs), sinceMs, accountId]);
    return toStats(row!);
  }

  /** Every listed maker (maker_profiles_listed) with its wallet, name and stats since `sinceMs`, by wallet. */
  async listed(sinceMs: number, sql: Sql = this.db): Promise<DirectoryMaker[]> {
    const rows = await sql.rows<StatsRow & { wallet: string; name: string | null }>(
      `SELECT ${STATS_COLUMNS}, m.wallet, m.name
         FROM (SELECT p.account_id, a.wallet, p.name FROM maker_profiles p JOIN accounts a ON a.id = p.account_id WHERE p.listed) m ${STATS}
        ORDER BY m.wallet`,
      [firstIdOf(sinceMs), sinceMs],
    );
    return rows.map((r) => ({ wallet: r.wallet, name: r.name, stats: toStats(r) }));
  }
}
