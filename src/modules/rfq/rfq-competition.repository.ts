import { Injectable } from '@nestjs/common';
import { Database } from '../../common/database/database';
import type { Sql, Tx } from '../../common/database/sql';
import type { Row } from '../../common/database/table';
import { MAKER_LIMITS_COLUMNS, type MakerLimitsRawRow, type MakerLimitsRow, toMakerLimitsRow } from '../maker-limits/maker-limits-row';
import { type CompanionRead, type CompanionWrite, type QuotesEvent, companionCtes } from './competition-port';
import type { RfqRecord } from './domain/rfq-record';
import { SNAPSHOT } from './rfq.repository';
import { RFQ_COLUMNS, type RfqRow, toRfqRecord, withAccountSeqs } from './rfq-row';

/**
 * The statements of `rfqs` and its events that competitive RFQs need (docs/spec/design.md 18),
 * run in the competition module's transactions through RfqTransitionsService: the row lock every
 * change of an RFQ's quotes queues on, the moves between pending and quoted, the maker's nonce
 * high-water mark, and the stored events of those changes (`account_events`, numbered like the
 * moves' events).
 */
@Injectable()
export class RfqCompetitionRepository {
  constructor(private readonly db: Database) {}

  /** Locks the RFQ's row to the caller's commit and reads it (null: no such RFQ). */
  async lockRecord(tx: Tx, id: string): Promise<RfqRecord | null> {
    const row = await tx.one<RfqRow>(`SELECT ${RFQ_COLUMNS} FROM rfqs WHERE id = $1 FOR UPDATE`, [id]);
    return row && toRfqRecord(row);
  }

  /**
   * The RFQ holding the quote `quoteId` (a seed quote, or a competitive RFQ's accepted one) or else
   * the RFQ whose id `of.rfqId` answers for it (a competitive quote's), and in the same read
   * `of.quote`'s answer for the quote (the competition module's row of it): one snapshot for both.
   */
  async findByQuoteIdWith(quoteId: string, of: { rfqId: CompanionRead; quote: CompanionRead }): Promise<{ rfq: RfqRecord; companion: unknown } | null> {
    const row = await this.db.one<RfqRow & { companion: unknown }>(
      `SELECT ${RFQ_COLUMNS}, (${of.quote('$1')}) AS companion FROM rfqs
        WHERE quote_id = $1 OR id = (${of.rfqId('$1')}) ORDER BY (quote_id = $1) IS TRUE DESC LIMIT 1`,
      [quoteId],
    );
    return row && { rfq: toRfqRecord(row), companion: row.companion };
  }

  /** Competitive RFQs still pending at or after their expires_at (`now`), oldest deadline first (rfqs_expiry_due). */
  async competitiveDue(now: number, limit: number, sql: Sql = this.db): Promise<string[]> {
    const rows = await sql.rows<Row<'rfqs', 'id'>>(
      `SELECT id FROM rfqs WHERE state IN ('pending', 'quoted') AND expiry_deadline <= $1 AND competition IS NOT NULL ORDER BY expiry_deadline, id LIMIT $2`,
      [now, limit],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Raises the maker's quote-nonce high-water mark to `nonce` (a competitive quote, docs/spec/design.md 18),
   * then locks the RFQ's row to the caller's commit and reads it, with the maker's limits row (not
   * locked; null: never had limits): one statement, in that order (the nonce's CTE runs in the
   * one-time filter, before the row is scanned), so a maker's own changes take its rows in one
   * order. null when the nonce is not above the mark (nothing written, no row locked) or there is
   * no such RFQ.
   */
  async lockRaisingNonce(tx: Tx, id: string, makerAccountId: number, nonce: bigint): Promise<{ rfq: RfqRecord; limits: MakerLimitsRow | null } | null> {
    const row = await tx.one<RfqRow & { maker_limits: MakerLimitsRawRow | null }>(
      `WITH raised AS (INSERT INTO maker_nonces (account_id, high_water) VALUES ($2, $3::numeric)
                       ON CONFLICT (account_id) DO UPDATE SET high_water = EXCLUDED.high_water WHERE maker_nonces.high_water < EXCLUDED.high_water
                       RETURNING 1)
       SELECT ${RFQ_COLUMNS}, (SELECT row_to_json(l) FROM (SELECT ${MAKER_LIMITS_COLUMNS.sql} FROM maker_limits ml WHERE ml.account_id = $2) l) AS maker_limits
         FROM rfqs WHERE id = $1 AND EXISTS (SELECT 1 FROM raised) FOR UPDATE OF rfqs`,
      [id, makerAccountId, nonce.toString()],
    );
    return row && { rfq: toRfqRecord(row), limits: row.maker_limits && toMakerLimitsRow(row.maker_limits) };
  }

  /**
   * Stores the taker's `quotes` event of a competitive RFQ (docs/spec/design.md 18) with its
   * account_seq: the RFQ row as moved events store it, plus its live quotes (`live_quotes`, numbers
   * as text), so the event replays as it was sent. The record it carries, with its account_seq.
   * The competition module's write of the change (`also`) and the move between pending and quoted
   * (`move`, with its rfq_events row: the caller holds the row, so it moves) run in the same
   * statement; the event then carries the row as moved.
   */
  async storeQuotesEvent(tx: Tx, rfqId: string, at: number, event: QuotesEvent): Promise<RfqRecord> {
    const params: unknown[] = [rfqId, at];
    const param = (value: unknown) => `$${params.push(value)}`;
    const live = typeof event.live === 'function' ? event.live(param) : `${param(JSON.stringify(event.live))}::jsonb`;
    const companion = companionCtes(event.also, params);
    const moved = event.move
      ? `moved AS (UPDATE rfqs SET state = ${param(event.move.to)}, updated_at = $2::bigint WHERE id = $1 AND state = ${param(event.move.from)} AND competition IS NOT NULL RETURNING *),
         logged AS (INSERT INTO rfq_events (rfq_id, event, state, at) SELECT id, 'quotes', state, $2::bigint FROM moved), `
      : '';
    const row = await tx.one<{ account_seq: string; rfq: RfqRow }>(
      `WITH ${companion}${moved}snap AS (SELECT m.account_id, ${SNAPSHOT} || jsonb_build_object('live_quotes', ${live}) AS rfq FROM ${event.move ? 'moved m' : 'rfqs m WHERE m.id = $1'}),
            seq AS (INSERT INTO account_event_seqs AS s (account_id, last_seq) SELECT account_id, 1 FROM snap
                    ON CONFLICT (account_id) DO UPDATE SET last_seq = s.last_seq + 1 RETURNING account_id, last_seq)
       INSERT INTO account_events (account_id, account_seq, channel, event, rfq, at)
       SELECT seq.account_id, seq.last_seq, 'rfq', 'quotes', snap.rfq, $2::bigint FROM seq, snap RETURNING account_seq, rfq`,
      params,
    );
    // Under the caller's lock on the row a move asked for always happens: no row is a broken caller.
    if (!row) throw new Error(`the quotes event of RFQ ${rfqId} found no row to store (move ${JSON.stringify(event.move)})`);
    return withAccountSeqs(toRfqRecord(row.rfq), { rfq: row.account_seq });
  }

  /**
   * Stores the makers' events of competitive quotes that ended without a fill (`traded_away`,
   * `expired`: `{ rfq_id, quote_id }` under `quote_end`, docs/spec/design.md 18), numbered per
   * account like the moves' events (counter rows upserted in account-id order, locked to commit).
   * Each end with its account_seq, in the order given. `also`: the competition module's write of
   * the ends, run in the same statement (even when there is no event to store).
   */
  async storeQuoteEnds(
    tx: Tx,
    ends: ReadonlyArray<{ accountId: number; event: string; rfqId: string; quoteId: string }>,
    at: number,
    also?: CompanionWrite,
  ): Promise<number[]> {
    if (ends.length === 0 && !also) return [];
    const params: unknown[] = [
      JSON.stringify(ends.map((e, ord) => ({ ord, account_id: e.accountId, event: e.event, rfq_id: e.rfqId, quote_id: e.quoteId }))),
      at,
    ];
    const companion = companionCtes(also, params);
    const rows = await tx.rows<{ ord: number; account_seq: string }>(
      `WITH ${companion}input AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(ord int, account_id bigint, event text, rfq_id text, quote_id text)),
            seqs AS (INSERT INTO account_event_seqs AS s (account_id, last_seq)
                     SELECT account_id, count(*) FROM input GROUP BY account_id ORDER BY account_id
                     ON CONFLICT (account_id) DO UPDATE SET last_seq = s.last_seq + EXCLUDED.last_seq RETURNING account_id, last_seq),
            numbered AS (SELECT i.*, s.last_seq - count(*) OVER (PARTITION BY i.account_id) + row_number() OVER (PARTITION BY i.account_id ORDER BY i.ord) AS account_seq
                           FROM input i JOIN seqs s ON s.account_id = i.account_id),
            stored AS (INSERT INTO account_events (account_id, account_seq, channel, event, rfq, at)
                       SELECT account_id, account_seq, 'rfq_maker', event, jsonb_build_object('quote_end', jsonb_build_object('rfq_id', rfq_id, 'quote_id', quote_id)), $2
                         FROM numbered RETURNING account_id, account_seq)
       SELECT n.ord, n.account_seq::text AS account_seq FROM numbered n ORDER BY n.ord`,
      params,
    );
    return rows.map((r) => Number(r.account_seq));
  }
}
