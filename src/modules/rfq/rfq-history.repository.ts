import { Injectable } from '@nestjs/common';
import { Database } from '../../common/database/database';
import type { Row, TableName } from '../../common/database/table';

/** An ended RFQ whose history is due: `kept` when it has a fill (its row stays, its rfq_events go). */
type DueRfq = Row<'rfqs', 'id'> & { kept: boolean };

/** The tables whose size grows with history (`legwork_table_rows`); one the database lacks is left out. */
export const GROWING_TABLES = [
  'rfqs',
  'rfq_events',
  'accepts',
  'account_events',
  'fills',
  'fill_legs',
  'receipts',
  'positions',
  'settlement_payments',
  'transfers',
  'audit_log',
] as const satisfies readonly TableName[];

/**
 * The history sweep's statements (docs/spec/design.md 17). Each runs alone, its own short
 * transaction, and touches at most the rows it is given (the caller keeps that under 5,000): no
 * statement holds a lock for long, and none takes a lock the trading path takes (ended RFQs are
 * not moved again, except a fill's revert, which SKIP LOCKED steps around instead of waiting).
 *
 * Candidates come from the partial index `rfqs_history_due (ended_at, id)`, read in its order up to
 * the cutoff: an index range scan with no sort, that never reads an RFQ the sweep is done with.
 * EXPLAIN on PostgreSQL, 1.2 M rfqs of which 1 M are done (their events pruned):
 *   due:    Limit -> Index Scan using rfqs_history_due on rfqs r  Index Cond: (ended_at < $1)
 *   oldest: Limit -> Index Only Scan using rfqs_history_due on rfqs
 *   deletes: Index Only Scan using rfq_events_rfq, then Index Scan using rfq_events_pkey;
 *            rfqs by rfqs_pkey, their events by rfq_events_rfq.
 *
 * Like RfqRepository's moves, the delete of an RFQ also deletes its `accepts` row (the ledger's
 * table, referencing rfqs) in the same statement, and reads `fills` to never delete an RFQ a
 * fill references.
 */
@Injectable()
export class RfqHistoryRepository {
  constructor(private readonly db: Database) {}

  /** Up to `limit` RFQs that ended before `cutoff` and still have history to go, oldest end first. */
  due(cutoff: number, limit: number): Promise<DueRfq[]> {
    return this.db.rows<DueRfq>(
      `SELECT r.id, (r.fill_id IS NOT NULL OR EXISTS (SELECT 1 FROM fills f WHERE f.rfq_id = r.id)) AS kept
         FROM rfqs r
        WHERE r.ended_at IS NOT NULL AND r.events_pruned_at IS DISTINCT FROM r.ended_at AND r.ended_at < $1
        ORDER BY r.ended_at, r.id
        LIMIT $2`,
      [cutoff, limit],
    );
  }

  /** Deletes at most `limit` rfq_events of the RFQs `ids`, by primary key; how many. */
  deleteEvents(ids: readonly string[], limit: number): Promise<number> {
    return this.db.exec(`DELETE FROM rfq_events WHERE id IN (SELECT id FROM rfq_events WHERE rfq_id = ANY($1::char(32)[]) LIMIT $2)`, [ids, limit]);
  }

  /**
   * Deletes the RFQs `ids` that ended before `cutoff` and have no fill, with every row kept beside
   * them (none has a foreign key to rfqs, migration 1763800000410): their accept, competitive quotes,
   * declines, transcript, panel rows and any event left; how many. An RFQ another statement holds is
   * skipped (the next pass takes it).
   */
  async deleteUnfilled(ids: readonly string[], cutoff: number): Promise<number> {
    const row = await this.db.one<{ n: number }>(
      `WITH doomed AS (
              SELECT r.id FROM rfqs r
               WHERE r.id = ANY($1::char(32)[]) AND r.ended_at < $2 AND r.fill_id IS NULL
                 AND NOT EXISTS (SELECT 1 FROM fills f WHERE f.rfq_id = r.id)
                 FOR UPDATE SKIP LOCKED),
            events AS (DELETE FROM rfq_events e USING doomed d WHERE e.rfq_id = d.id),
            accepted AS (DELETE FROM accepts a USING doomed d WHERE a.rfq_id = d.id),
            panels AS (DELETE FROM competition_panels p USING doomed d WHERE p.rfq_id = d.id),
            quotes AS (DELETE FROM competition_quotes q USING doomed d WHERE q.rfq_id = d.id),
            declines AS (DELETE FROM competition_declines c USING doomed d WHERE c.rfq_id = d.id),
            transcripts AS (DELETE FROM competition_transcripts t USING doomed d WHERE t.rfq_id = d.id),
            gone AS (DELETE FROM rfqs r USING doomed d WHERE r.id = d.id RETURNING r.id)
       SELECT count(*)::int AS n FROM gone`,
      [ids, cutoff],
    );
    return row?.n ?? 0;
  }

  /** Marks the kept RFQs `ids` (ended before `cutoff`, no rfq_events left) as done; how many. */
  markEventsPruned(ids: readonly string[], cutoff: number): Promise<number> {
    return this.db.exec(
      `UPDATE rfqs SET events_pruned_at = ended_at
        WHERE id IN (SELECT r.id FROM rfqs r
                      WHERE r.id = ANY($1::char(32)[]) AND r.ended_at < $2
                        AND NOT EXISTS (SELECT 1 FROM rfq_events e WHERE e.rfq_id = r.id)
                        FOR UPDATE SKIP LOCKED)`,
      [ids, cutoff],
    );
  }

  /**
   * The oldest ended_at with history still to go, and the oldest stored account event: each the
   * first entry of an index (rfqs_history_due, account_events_at), so as cheap at any size.
   */
  async oldest(): Promise<{ rfqEndedAt: number | null; accountEventAt: number | null }> {
    const row = await this.db.one<{ rfq: string | null; event: string | null }>(
      `SELECT (SELECT min(ended_at) FROM rfqs WHERE ended_at IS NOT NULL AND events_pruned_at IS DISTINCT FROM ended_at) AS rfq,
              (SELECT min(at) FROM account_events) AS event`,
    );
    const num = (v: string | null | undefined) => (v === null || v === undefined ? null : Number(v));
    return { rfqEndedAt: num(row?.rfq), accountEventAt: num(row?.event) };
  }

  /** The planner's row estimates (pg_class.reltuples; 0 for a table never analyzed) of the growing tables. */
  async tableRows(): Promise<Record<string, number>> {
    const rows = await this.db.rows<{ table: string; n: number }>(
      `SELECT relname AS table, greatest(reltuples, 0)::float8 AS n FROM pg_class
        WHERE relnamespace = to_regnamespace(current_schema()) AND relkind = 'r' AND relname = ANY($1::text[])`,
      [GROWING_TABLES],
    );
    return Object.fromEntries(rows.map((r) => [r.table, Number(r.n)]));
  }

  /** Refreshes the planner's statistics of one growing table (the embedded database has no autovacuum). */
  async analyze(table: (typeof GROWING_TABLES)[number]): Promise<void> {
    if (!GROWING_TABLES.includes(table)) return;
    await this.db.exec(`ANALYZE ${table}`);
  }
}
