import { Injectable } from '@nestjs/common';
import { Database } from '../../common/database/database';
import type { Sql, Tx } from '../../common/database/sql';
import type { Row } from '../../common/database/table';
import type { RfqRecord } from './domain/rfq-record';
import type { RfqState } from './domain/rfq-state';
import { SNAPSHOT } from './rfq.repository';
import { RFQ_COLUMNS, type RfqRow, type StoredLiveQuote, toRfqRecord, withAccountSeqs } from './rfq-row';

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

  /** Competitive RFQs still pending at or after their expires_at (`now`), oldest deadline first (rfqs_expiry_due). */
  async competitiveDue(now: number, limit: number, sql: Sql = this.db): Promise<string[]> {
    const rows = await sql.rows<Row<'rfqs', 'id'>>(
      `SELECT id FROM rfqs WHERE state IN ('pending', 'quoted') AND expiry_deadline <= $1 AND competition IS NOT NULL ORDER BY expiry_deadline, id LIMIT $2`,
      [now, limit],
    );
    return rows.map((r) => r.id);
  }

  /** A competitive RFQ's move between pending and quoted (docs/spec/design.md 18), with its rfq_events row; whether it moved. */
  async moveCompetitive(tx: Tx, id: string, from: RfqState, to: RfqState, at: number): Promise<boolean> {
    const row = await tx.one<{ id: string }>(
      `WITH moved AS (UPDATE rfqs SET state = $3, updated_at = $4 WHERE id = $1 AND state = $2 AND competition IS NOT NULL RETURNING id),
            logged AS (INSERT INTO rfq_events (rfq_id, event, state, at) SELECT id, 'quotes', $3, $4::bigint FROM moved)
       SELECT id FROM moved`,
      [id, from, to, at],
    );
    return row !== null;
  }

  /**
   * Raises the maker's quote-nonce high-water mark to `nonce` in the caller's transaction (a
   * competitive quote, docs/spec/design.md 18); false (nothing written) when it is not above it.
   */
  async raiseNonce(tx: Tx, makerAccountId: number, nonce: bigint): Promise<boolean> {
    const n = await tx.exec(
      `INSERT INTO maker_nonces (account_id, high_water) VALUES ($1, $2::numeric)
       ON CONFLICT (account_id) DO UPDATE SET high_water = EXCLUDED.high_water WHERE maker_nonces.high_water < EXCLUDED.high_water`,
      [makerAccountId, nonce.toString()],
    );
    return n > 0;
  }

  /**
   * Stores the taker's `quotes` event of a competitive RFQ (docs/spec/design.md 18) with its
   * account_seq: the RFQ row as moved events store it, plus its live quotes (`live_quotes`, numbers
   * as text), so the event replays as it was sent. The record it carries, with its account_seq.
   */
  async storeQuotesEvent(tx: Tx, rfqId: string, liveQuotes: readonly StoredLiveQuote[], at: number): Promise<RfqRecord> {
    const row = await tx.one<{ account_seq: string; rfq: RfqRow }>(
      `WITH snap AS (SELECT m.account_id, ${SNAPSHOT} || jsonb_build_object('live_quotes', $2::jsonb) AS rfq FROM rfqs m WHERE m.id = $1),
            seq AS (INSERT INTO account_event_seqs AS s (account_id, last_seq) SELECT account_id, 1 FROM snap
                    ON CONFLICT (account_id) DO UPDATE SET last_seq = s.last_seq + 1 RETURNING account_id, last_seq)
       INSERT INTO account_events (account_id, account_seq, channel, event, rfq, at)
       SELECT seq.account_id, seq.last_seq, 'rfq', 'quotes', snap.rfq, $3 FROM seq, snap RETURNING account_seq, rfq`,
      [rfqId, JSON.stringify(liveQuotes), at],
    );
    return withAccountSeqs(toRfqRecord(row!.rfq), { rfq: row!.account_seq });
  }

  /**
   * Stores the makers' events of competitive quotes that ended without a fill (`traded_away`,
   * `expired`: `{ rfq_id, quote_id }` under `quote_end`, docs/spec/design.md 18), numbered per
   * account like the moves' events (counter rows upserted in account-id order, locked to commit).
   * Each end with its account_seq, in the order given.
   */
  async storeQuoteEnds(tx: Tx, ends: ReadonlyArray<{ accountId: number; event: string; rfqId: string; quoteId: string }>, at: number): Promise<number[]> {
    if (ends.length === 0) return [];
    const rows = await tx.rows<{ ord: number; account_seq: string }>(
      `WITH input AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(ord int, account_id bigint, event text, rfq_id text, quote_id text)),
            seqs AS (INSERT INTO account_event_seqs AS s (account_id, last_seq)
                     SELECT account_id, count(*) FROM input GROUP BY account_id ORDER BY account_id
                     ON CONFLICT (account_id) DO UPDATE SET last_seq = s.last_seq + EXCLUDED.last_seq RETURNING account_id, last_seq),
            numbered AS (SELECT i.*, s.last_seq - count(*) OVER (PARTITION BY i.account_id) + row_number() OVER (PARTITION BY i.account_id ORDER BY i.ord) AS account_seq
                           FROM input i JOIN seqs s ON s.account_id = i.account_id),
            stored AS (INSERT INTO account_events (account_id, account_seq, channel, event, rfq, at)
                       SELECT account_id, account_seq, 'rfq_maker', event, jsonb_build_object('quote_end', jsonb_build_object('rfq_id', rfq_id, 'quote_id', quote_id)), $2
                         FROM numbered RETURNING account_id, account_seq)
       SELECT n.ord, n.account_seq::text AS account_seq FROM numbered n ORDER BY n.ord`,
      [JSON.stringify(ends.map((e, ord) => ({ ord, account_id: e.accountId, event: e.event, rfq_id: e.rfqId, quote_id: e.quoteId }))), at],
    );
    return rows.map((r) => Number(r.account_seq));
  }
}
