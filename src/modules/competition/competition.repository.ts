import { Injectable } from '@nestjs/common';
import { Database } from '../../common/database/database';
import type { Sql, Tx } from '../../common/database/sql';
import { type Narrow, type RowOf, columnList } from '../../common/database/table';
import type { CompetitiveQuotesQuery } from '../rfq/competition-port';
import type { CompetitiveQuote } from '../rfq/domain/rfq-record';
import type { QuoteEnd } from './domain/competition';

const QUOTE = columnList('competition_quotes', [
  'quote_id',
  'rfq_id',
  'maker_account_id',
  'maker_wallet',
  'quote_nonce',
  'bid',
  'ask',
  'issued_at',
  'expires_at',
  'maker_signature',
  'received_at_ms',
  'ended_at_ms',
  'ending',
]);
type QuoteRow = Narrow<RowOf<typeof QUOTE>, { ending: QuoteEnd | null }>;

/** A competitive quote as stored: the quote, its RFQ, and its end (null: live). */
export interface StoredCompetitiveQuote extends CompetitiveQuote {
  rfqId: string;
  endedAtMs: number | null;
  end: QuoteEnd | null;
}

const toQuote = (r: QuoteRow): StoredCompetitiveQuote => ({
  quoteId: r.quote_id,
  rfqId: r.rfq_id,
  makerAccountId: Number(r.maker_account_id),
  makerWallet: r.maker_wallet,
  quoteNonce: BigInt(r.quote_nonce),
  bid: BigInt(r.bid),
  ask: BigInt(r.ask),
  issuedAt: Number(r.issued_at),
  expiresAt: Number(r.expires_at),
  makerSignature: r.maker_signature,
  receivedAtMs: Number(r.received_at_ms),
  endedAtMs: r.ended_at_ms === null ? null : Number(r.ended_at_ms),
  end: r.ending,
});

/** The stored transcript of an RFQ (docs/spec/design.md 18). */
export interface StoredTranscript {
  payload: Buffer;
  hash: string;
  keyId: string;
  signature: string;
}

/**
 * The competition module's tables (docs/spec/design.md 18): `competition_quotes` (every quote of a
 * competitive RFQ, in the order received, with its end), `competition_declines`,
 * `competition_transcripts` and `competition_makers` (the makers' quote counters). Every write of
 * an RFQ's quotes runs in a transaction that holds the RFQ's row (RfqTransitionsService.lock).
 */
@Injectable()
export class CompetitionRepository {
  constructor(private readonly db: Database) {}

  async insert(tx: Tx, rfqId: string, q: CompetitiveQuote): Promise<void> {
    await tx.exec(
      `INSERT INTO competition_quotes (quote_id, rfq_id, maker_account_id, maker_wallet, quote_nonce, bid, ask, issued_at, expires_at, maker_signature, received_at_ms)
       VALUES ($1, $2, $3, $4, $5::numeric, $6, $7, $8, $9, $10, $11)`,
      [
        q.quoteId,
        rfqId,
        q.makerAccountId,
        q.makerWallet,
        q.quoteNonce.toString(),
        q.bid.toString(),
        q.ask.toString(),
        q.issuedAt,
        q.expiresAt,
        q.makerSignature,
        q.receivedAtMs,
      ],
    );
  }

  /** Every quote of the RFQ in the order received, live or ended (competition_quotes_rfq). */
  async allOf(rfqId: string, sql: Sql = this.db): Promise<StoredCompetitiveQuote[]> {
    return (await sql.rows<QuoteRow>(`SELECT ${QUOTE.sql} FROM competition_quotes WHERE rfq_id = $1 ORDER BY id`, [rfqId])).map(toQuote);
  }

  /** The live quotes of these RFQs in the order received (one read for a page of views). */
  async liveOf(rfqIds: readonly string[], sql: Sql = this.db): Promise<StoredCompetitiveQuote[]> {
    if (rfqIds.length === 0) return [];
    const rows = await sql.rows<QuoteRow>(
      `SELECT ${QUOTE.sql} FROM competition_quotes WHERE rfq_id = ANY($1::char(32)[]) AND ending IS NULL ORDER BY rfq_id, id`,
      [rfqIds],
    );
    return rows.map(toQuote);
  }

  async find(quoteId: string, sql: Sql = this.db): Promise<StoredCompetitiveQuote | null> {
    const row = await sql.one<QuoteRow>(`SELECT ${QUOTE.sql} FROM competition_quotes WHERE quote_id = $1`, [quoteId]);
    return row && toQuote(row);
  }

  /** Ends these quotes if still live (`end` at `atMs`); the quotes that ended here. */
  async end(tx: Tx, quoteIds: readonly string[], end: QuoteEnd, atMs: number): Promise<StoredCompetitiveQuote[]> {
    if (quoteIds.length === 0) return [];
    const rows = await tx.rows<QuoteRow>(
      `UPDATE competition_quotes SET ending = $2, ended_at_ms = $3 WHERE quote_id = ANY($1::char(64)[]) AND ending IS NULL RETURNING ${QUOTE.sql}`,
      [quoteIds, end, atMs],
    );
    return rows.map(toQuote);
  }

  /** A maker's live quotes on RFQs of live quotes after `liveAfter` (unix seconds): its limits usage (competition_quotes_maker_live). */
  async makerLive(accountId: number, liveAfter: number, sql: Sql = this.db): Promise<Array<{ id: string; expiresAt: number }>> {
    const rows = await sql.rows<{ rfq_id: string; expires_at: string }>(
      `SELECT rfq_id, expires_at FROM competition_quotes WHERE maker_account_id = $1 AND ending IS NULL AND expires_at > $2`,
      [accountId, liveAfter],
    );
    return rows.map((r) => ({ id: r.rfq_id, expiresAt: Number(r.expires_at) }));
  }

  /**
   * One page of the maker's quotes, newest first by (received_at_ms, quote_id) after the cursor's
   * place, scanned backwards on competition_quotes_maker_quotes (all) or
   * competition_quotes_maker_quotes_live (live: not ended, not past expires_at).
   */
  async makerPage(query: CompetitiveQuotesQuery, sql: Sql = this.db): Promise<StoredCompetitiveQuote[]> {
    const params: unknown[] = [query.makerAccountId];
    const where = ['maker_account_id = $1'];
    if (query.live) where.push(`ending IS NULL AND expires_at > $${params.push(query.now)}`);
    if (query.after) where.push(`(received_at_ms, quote_id) < ($${params.push(query.after.receivedAtMs)}, $${params.push(query.after.quoteId)})`);
    const rows = await sql.rows<QuoteRow>(
      `SELECT ${QUOTE.sql} FROM competition_quotes WHERE ${where.join(' AND ')}
        ORDER BY received_at_ms DESC, quote_id DESC LIMIT $${params.push(query.limit)}`,
      params,
    );
    return rows.map(toQuote);
  }

  /** Every live quote of the maker, oldest first: rfq.maker.cancel_quotes. */
  async makerAllLive(accountId: number, sql: Sql = this.db): Promise<Array<{ quoteId: string; rfqId: string }>> {
    const rows = await sql.rows<{ quote_id: string; rfq_id: string }>(
      `SELECT quote_id, rfq_id FROM competition_quotes WHERE maker_account_id = $1 AND ending IS NULL ORDER BY id`,
      [accountId],
    );
    return rows.map((r) => ({ quoteId: r.quote_id, rfqId: r.rfq_id }));
  }

  /** RFQs with a live quote at or past its expires_at (`now`, unix seconds), earliest first (competition_quotes_due). */
  async due(now: number, limit: number, sql: Sql = this.db): Promise<string[]> {
    const rows = await sql.rows<{ rfq_id: string }>(
      `SELECT DISTINCT rfq_id FROM (SELECT rfq_id FROM competition_quotes WHERE ending IS NULL AND expires_at <= $1 ORDER BY expires_at LIMIT $2) d`,
      [now, limit],
    );
    return rows.map((r) => r.rfq_id);
  }

  /** Raises the maker's quote counter (see CompetitionMakerEntity) in the caller's transaction. */
  async bumpMakers(tx: Tx, accountIds: readonly number[]): Promise<void> {
    if (accountIds.length === 0) return;
    await tx.exec(
      `INSERT INTO competition_makers AS m (account_id, quotes_seq) SELECT id, 1 FROM unnest($1::bigint[]) AS id ORDER BY id
       ON CONFLICT (account_id) DO UPDATE SET quotes_seq = m.quotes_seq + 1`,
      [[...new Set(accountIds)]],
    );
  }

  async makerVersion(accountId: number, sql: Sql = this.db): Promise<string> {
    const row = await sql.one<{ quotes_seq: string }>(`SELECT quotes_seq::text AS quotes_seq FROM competition_makers WHERE account_id = $1`, [accountId]);
    return row?.quotes_seq ?? '';
  }

  /** Records the maker's decline; how many makers of the RFQ have declined. */
  async decline(tx: Tx, rfqId: string, accountId: number, reason: string, at: number): Promise<number> {
    await tx.exec(
      `INSERT INTO competition_declines (rfq_id, maker_account_id, reason, at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (rfq_id, maker_account_id) DO UPDATE SET reason = EXCLUDED.reason, at = EXCLUDED.at`,
      [rfqId, accountId, reason, at],
    );
    const row = await tx.one<{ n: number }>(`SELECT count(*)::int AS n FROM competition_declines WHERE rfq_id = $1`, [rfqId]);
    return row?.n ?? 0;
  }

  async saveTranscript(tx: Tx, rfqId: string, t: StoredTranscript, closedAtMs: number): Promise<void> {
    await tx.exec(
      `INSERT INTO competition_transcripts (rfq_id, payload, hash, key_id, signature, closed_at_ms) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (rfq_id) DO NOTHING`,
      [rfqId, t.payload, t.hash, t.keyId, t.signature, closedAtMs],
    );
  }

  async transcript(rfqId: string, sql: Sql = this.db): Promise<StoredTranscript | null> {
    const row = await sql.one<{ payload: Buffer; hash: string; key_id: string; signature: string }>(
      `SELECT payload, hash, key_id, signature FROM competition_transcripts WHERE rfq_id = $1`,
      [rfqId],
    );
    return row && { payload: row.payload, hash: row.hash, keyId: row.key_id, signature: row.signature };
  }
}
