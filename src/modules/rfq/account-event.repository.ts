import { Injectable } from '@nestjs/common';
import type { Receipt } from '@legwork/protocol';
import { Database } from '../../common/database/database';
import type { Sql, Tx } from '../../common/database/sql';
import type { Narrow, Row } from '../../common/database/table';
import type { AccountEventChannel, ProtectionTrip } from './domain/account-event';
import type { RfqRecord } from './domain/rfq-record';
import { RENDERED_IN_SQL, TAKER_EVENT_DATA } from './event-data.sql';
import { type RfqRow, toRfqRecord } from './rfq-row';

/** A stored event: an RFQ move (its record as moved), or a maker's protection trip (`protection`: its data). */
export type StoredEvent =
  | { accountSeq: number; channel: AccountEventChannel; record: RfqRecord; protection?: undefined; event?: 'quotes' }
  | { accountSeq: number; channel: 'rfq_maker'; record: null; protection: ProtectionTrip }
  | { accountSeq: number; channel: 'rfq_maker'; record: null; protection?: undefined; quoteEnd: QuoteEndEvent }
  | { accountSeq: number; channel: 'rfq'; record: null; protection?: undefined; rendered: string };

/** A page of stored events; `staged`: a `filled` event in it found its receipt not chained yet (docs/receipts.md). */
export interface StoredEventPage {
  events: StoredEvent[];
  staged: boolean;
}

/** A maker's competitive quote that ended without a fill (docs/spec/design.md 18): its `rfq_maker` event. */
interface QuoteEndEvent {
  event: string;
  rfq_id: string;
  quote_id: string;
}

/**
 * The stored account events (`account_events`, `account_event_seqs`, docs/spec/design.md 13): reads and
 * retention. They are written only by the RFQ moves themselves, in the move's own statement
 * (RfqRepository), so an event is stored exactly when its move commits.
 */
@Injectable()
export class AccountEventRepository {
  constructor(private readonly db: Database) {}

  /**
   * The account's latest `account_seq` and its oldest stored one (null when none is stored), in
   * one read: what a subscribe checks `since` against.
   */
  async bounds(accountId: number, sql: Sql = this.db): Promise<{ latest: number; oldest: number | null }> {
    const row = await sql.one<{ latest: string | null; oldest: string | null }>(
      `SELECT (SELECT last_seq FROM account_event_seqs WHERE account_id = $1) AS latest,
              (SELECT account_seq FROM account_events WHERE account_id = $1 ORDER BY account_seq LIMIT 1) AS oldest`,
      [accountId],
    );
    return { latest: Number(row?.latest ?? 0), oldest: row?.oldest == null ? null : Number(row.oldest) };
  }

  /**
   * Stored events of the account with `after < account_seq <= upTo`, in order, at most `limit`
   * (of every channel: a stream counts the other channel's numbers too); a `filled` event's fill
   * carries its receipt, read in the same statement (one read of the replay: `receipts` is the
   * journal's table, joined here rather than asked per event). The taker's events of a seed RFQ
   * come rendered (`rendered`: their data as JSON text, event-data.sql.ts); the others as records.
   */
  async range(accountId: number, after: number, upTo: number, limit: number, sql: Sql = this.db): Promise<StoredEventPage> {
    const rows = await sql.rows<
      Narrow<Row<'account_events', 'account_seq' | 'channel' | 'event'>, { channel: AccountEventChannel }> & {
        rfq: RfqRow | null;
        data: string | null;
        staged: boolean;
        receipt: Receipt | null;
        taker_salt: string | null;
      }
    >(
      `SELECT e.account_seq, e.channel, e.event,
              CASE WHEN ${RENDERED_IN_SQL} THEN NULL ELSE e.rfq END AS rfq,
              CASE WHEN ${RENDERED_IN_SQL} THEN ${TAKER_EVENT_DATA} END AS data,
              e.event = 'filled' AND e.rfq->>'fill_id' IS NOT NULL AND x.journal_seq IS NULL AS staged,
              CASE WHEN x.journal_seq IS NOT NULL AND NOT (${RENDERED_IN_SQL})
                   THEN json_build_object('journal_seq', x.journal_seq, 'kind', x.kind, 'payload', x.payload, 'hash', x.hash, 'key_id', x.key_id, 'signature', x.signature) END AS receipt,
              CASE WHEN NOT (${RENDERED_IN_SQL}) THEN x.taker_salt END AS taker_salt
         FROM account_events e
         LEFT JOIN LATERAL (
              -- base64 from PostgreSQL breaks lines every 76 characters.
              SELECT r.journal_seq, r.kind, translate(encode(r.payload, 'base64'), E'\n', '') AS payload, r.hash, r.key_id, r.signature,
                     (SELECT encode(f.taker_salt, 'hex') FROM fills f WHERE f.id = r.fill_id) AS taker_salt
                FROM receipts r WHERE e.event = 'filled' AND r.fill_id = (e.rfq->>'fill_id')::bigint AND r.kind = 0) x ON true
        WHERE e.account_id = $1 AND e.account_seq > $2 AND e.account_seq <= $3
        ORDER BY e.account_seq LIMIT $4`,
      [accountId, after, upTo, limit],
    );
    const events = rows.map((row): StoredEvent => {
      const accountSeq = Number(row.account_seq);
      if (row.data !== null) return { accountSeq, channel: 'rfq', record: null, rendered: row.data };
      const snapshot = row.rfq!;
      if (row.event === 'protection') return { accountSeq, channel: 'rfq_maker', record: null, protection: snapshot as unknown as ProtectionTrip };
      const end = (snapshot as unknown as { quote_end?: { rfq_id: string; quote_id: string } }).quote_end;
      if (end) return { accountSeq, channel: 'rfq_maker', record: null, quoteEnd: { event: row.event, ...end } };
      const record = toRfqRecord(snapshot);
      if (row.event === 'quotes') return { accountSeq, channel: row.channel, record, event: 'quotes' };
      if (row.receipt && record.fill) record.fill.receipt = row.receipt;
      // The salt goes only into the taker's view (`rfq` channel): rfq-view.ts leaves it out of `rfq_maker`.
      if (row.taker_salt && record.fill) record.fill.takerSalt = row.taker_salt;
      return { accountSeq, channel: row.channel, record };
    });
    return { events, staged: rows.some((row) => row.staged) };
  }

  /**
   * Stores a maker's protection trip as its next `rfq_maker` event (the data in the `rfq` column),
   * numbered like the moves' events: the account's counter row is upserted and stays locked to
   * the caller's commit. The event's account_seq.
   */
  async appendProtection(tx: Tx, accountId: number, trip: ProtectionTrip): Promise<number> {
    const row = await tx.one<Row<'account_events', 'account_seq'>>(
      `WITH seq AS (
         INSERT INTO account_event_seqs AS s (account_id, last_seq) VALUES ($1, 1)
         ON CONFLICT (account_id) DO UPDATE SET last_seq = s.last_seq + 1 RETURNING last_seq)
       INSERT INTO account_events (account_id, account_seq, channel, event, rfq, at)
       SELECT $1, last_seq, 'rfq_maker', 'protection', $2::jsonb, $3 FROM seq RETURNING account_seq`,
      [accountId, JSON.stringify(trip), trip.tripped_at],
    );
    return Number(row!.account_seq);
  }

  /** Deletes up to `limit` events stored before `before` (unix seconds); how many. */
  prune(before: number, limit: number, sql: Sql): Promise<number> {
    return sql.exec(
      `DELETE FROM account_events WHERE (account_id, account_seq) IN (SELECT account_id, account_seq FROM account_events WHERE at < $1 LIMIT $2)`,
      [before, limit],
    );
  }
}
