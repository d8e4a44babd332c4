import { Injectable } from '@nestjs/common';
import type { Channel } from '../../common/broadcast/notifier';
import { Database } from '../../common/database/database';
import { sqlRows } from '../../common/database/sql';
import type { RfqRecord } from './domain/rfq-record';
import { makerQuoteEvent, rfqView } from './domain/rfq-view';
import { type RfqRow, toRfqRecord } from './rfq.store';

/** Stored events are kept this long (design.md section 13). */
export const EVENT_RETENTION_SECONDS = 7 * 86400;

/**
 * The RFQ row as JSON with every number as text: `account_id`, prices and nonces are bigints, and
 * JSON numbers would lose them. Booleans, nulls and the legs array stay as they are, so the
 * snapshot reads back through `toRfqRecord` exactly as a row does.
 */
const SNAPSHOT = `(SELECT jsonb_object_agg(e.key, CASE jsonb_typeof(e.value) WHEN 'number' THEN to_jsonb(e.value #>> '{}') ELSE e.value END)
                     FROM jsonb_each(to_jsonb(m)) e)`;

/**
 * CTEs that follow a `moved` CTE (RFQ rows, RETURNING the RFQ columns) and store the events of
 * those moves with their `account_seq` (design.md 13), in the move's own statement: the taker's
 * event on `rfq` for every moved row, and the maker's on `rfq_maker` where `makerHears` (a SQL
 * boolean) and the RFQ holds a quote. The counter rows are upserted in account-id order (two
 * statements numbering the same two accounts never wait on each other crosswise) and stay locked
 * until commit, so the numbers of one account commit in order with no gap. Exposes `stored`.
 */
export function accountEventCtes(makerHears: string, at: string): string {
  return `,
    snap AS (SELECT m.account_id, m.maker_account_id, m.id, m.state, ${SNAPSHOT} AS rfq FROM moved m),
    targets AS (
      SELECT s.account_id, 'rfq'::text AS channel, s.id AS rfq_id, s.state AS event, s.rfq FROM snap s
      UNION ALL
      SELECT s.maker_account_id, 'rfq_maker', s.id, s.state, s.rfq FROM snap s WHERE (${makerHears}) AND s.maker_account_id IS NOT NULL
    ),
    seqs AS (
      INSERT INTO account_event_seqs AS s (account_id, last_seq)
      SELECT account_id, count(*) FROM targets GROUP BY account_id ORDER BY account_id
      ON CONFLICT (account_id) DO UPDATE SET last_seq = s.last_seq + EXCLUDED.last_seq
      RETURNING account_id, last_seq
    ),
    numbered AS (
      SELECT t.account_id, t.channel, t.rfq_id, t.event, t.rfq,
             s.last_seq - count(*) OVER (PARTITION BY t.account_id) + row_number() OVER (PARTITION BY t.account_id ORDER BY t.rfq_id, t.channel) AS account_seq
        FROM targets t JOIN seqs s ON s.account_id = t.account_id
    ),
    stored AS (
      INSERT INTO account_events (account_id, account_seq, channel, event, rfq, at)
      SELECT account_id, account_seq, channel, event, rfq, ${at} FROM numbered
      RETURNING account_seq, channel, rfq->>'id' AS rfq_id
    )`;
}

/** The select-list column that answers the numbers `stored` gave the events of the row `moved`. */
export const ACCOUNT_SEQS_COLUMN = `(SELECT json_object_agg(st.channel, st.account_seq::text) FROM stored st WHERE st.rfq_id = moved.id) AS account_seqs`;

/** Sets `accountSeqs` of a moved record from its ACCOUNT_SEQS_COLUMN value. */
export function withAccountSeqs(record: RfqRecord, value: Record<string, string> | null): RfqRecord {
  if (value) record.accountSeqs = Object.fromEntries(Object.entries(value).map(([channel, seq]) => [channel, Number(seq)]));
  return record;
}

/** Does the maker holding the quote hear a move from `from` to `to`? (design.md 5, Events) */
export function makerHears(from: string, to: string): boolean {
  return from !== 'pending' && ['accepted', 'filled', 'failed', 'expired'].includes(to);
}

/** `params.data` (without `seq`) of an account event: the same live and in a replay. */
export function accountEventData(channel: Channel, record: RfqRecord, accountSeq: number | undefined): Record<string, unknown> | null {
  const seq = accountSeq === undefined ? {} : { account_seq: accountSeq };
  if (channel === 'rfq') return { event: record.state, rfq: rfqView(record), ...seq };
  const event = makerQuoteEvent(record);
  // { seq, event, rfq } like every notification; `rfq` is the maker's view of its quote (design.md 5).
  return event ? { event: record.state, rfq: event, ...seq } : null;
}

export interface StoredEvent {
  accountSeq: number;
  channel: Channel;
  record: RfqRecord;
}

/** Reads of the stored events (writes are the moves' own, through accountEventCtes). */
@Injectable()
export class AccountEventsStore {
  constructor(private readonly db: Database) {}

  /**
   * The account's latest `account_seq` and its oldest stored one (null when none is stored), in
   * one read: what a subscribe checks `since` against.
   */
  async bounds(accountId: number): Promise<{ latest: number; oldest: number | null }> {
    const [row] = await sqlRows<{ latest: string | null; oldest: string | null }>(
      this.db.dataSource,
      `SELECT (SELECT last_seq FROM account_event_seqs WHERE account_id = $1) AS latest,
              (SELECT account_seq FROM account_events WHERE account_id = $1 ORDER BY account_seq LIMIT 1) AS oldest`,
      [accountId],
    );
    return { latest: Number(row.latest ?? 0), oldest: row.oldest === null ? null : Number(row.oldest) };
  }

  /**
   * Stored events of the account with `after < account_seq <= upTo`, in order, at most `limit`
   * (of every channel: a stream counts the other channel's numbers too); a `filled` event's fill
   * carries its receipt, read in the same statement.
   */
  async range(accountId: number, after: number, upTo: number, limit: number): Promise<StoredEvent[]> {
    const rows = await sqlRows<{ account_seq: string; channel: Channel; rfq: RfqRow; receipt: Record<string, unknown> | null }>(
      this.db.dataSource,
      `SELECT e.account_seq, e.channel, e.rfq,
              CASE WHEN e.event = 'filled' THEN (SELECT json_build_object('journal_seq', r.journal_seq, 'kind', r.kind, 'payload', encode(r.payload, 'base64'),
                                                   'hash', r.hash, 'key_id', r.key_id, 'signature', r.signature)
                                                  FROM receipts r WHERE r.fill_id = (e.rfq->>'fill_id')::bigint AND r.kind = 0) END AS receipt
         FROM account_events e
        WHERE e.account_id = $1 AND e.account_seq > $2 AND e.account_seq <= $3
        ORDER BY e.account_seq LIMIT $4`,
      [accountId, after, upTo, limit],
    );
    return rows.map((row) => {
      const record = toRfqRecord(row.rfq);
      // base64 from PostgreSQL breaks lines every 76 characters.
      if (row.receipt && record.fill) record.fill.receipt = { ...row.receipt, payload: String(row.receipt.payload).replace(/\n/g, '') };
      return { accountSeq: Number(row.account_seq), channel: row.channel, record };
    });
  }

  /** Deletes up to `limit` events stored before `before` (unix seconds); how many. */
  async prune(before: number, limit: number): Promise<number> {
    const rows = await sqlRows(
      this.db.dataSource,
      `DELETE FROM account_events WHERE (account_id, account_seq) IN (SELECT account_id, account_seq FROM account_events WHERE at < $1 LIMIT $2) RETURNING 1`,
      [before, limit],
    );
    return rows.length;
  }
}
