import { Injectable } from '@nestjs/common';
import { Database } from '../../common/database/database';
import type { Sql, Tx } from '../../common/database/sql';
import { type Narrow, type RowOf, columnList } from '../../common/database/table';
import type { CompanionValue, CompanionWrite, CompetitiveQuotesQuery } from '../rfq/competition-port';
import type { CompetitiveQuote } from '../rfq/domain/rfq-record';
import { type QuoteEnd, storedLive } from './domain/competition';

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

/**
 * The quote's insert, its values numbered by `p`; `after`: a CTE of the same statement it reads, so
 * that it runs once that one has run to its end.
 */
function insertSql(p: (value: unknown) => string, rfqId: string, q: CompetitiveQuote, after?: string): string {
  const values = `${p(q.quoteId)}::text, ${p(rfqId)}::text, ${p(q.makerAccountId)}::bigint, ${p(q.makerWallet)}::text, ${p(q.quoteNonce.toString())}::numeric,
    ${p(q.bid.toString())}::bigint, ${p(q.ask.toString())}::bigint, ${p(q.issuedAt)}::bigint, ${p(q.expiresAt)}::bigint, ${p(q.makerSignature)}::text, ${p(q.receivedAtMs)}::bigint`;
  return `INSERT INTO competition_quotes (quote_id, rfq_id, maker_account_id, maker_wallet, quote_nonce, bid, ask, issued_at, expires_at, maker_signature, received_at_ms)
    ${after ? `SELECT ${values} FROM (SELECT count(*) FROM ${after}) a` : `VALUES (${values})`}`;
}

/** A live quote of `competition_quotes` as a stored `quotes` event carries it (StoredLiveQuote: every number as text). */
const LIVE_JSON = `jsonb_build_object('quote_id', quote_id, 'maker_account_id', maker_account_id::text, 'maker_wallet', maker_wallet,
  'quote_nonce', quote_nonce::text, 'bid', bid::text, 'ask', ask::text, 'issued_at', issued_at::text, 'expires_at', expires_at::text,
  'maker_signature', maker_signature, 'received_at_ms', received_at_ms::text)`;

/** The stored transcript of an RFQ (docs/spec/design.md 18). */
export interface StoredTranscript {
  payload: Buffer;
  hash: string;
  keyId: string;
  signature: string;
}

/** A maker's competitive quotes' version (makerVersion) as a scalar subquery on `$1`, NULL when none. */
export const MAKER_VERSION_SQL = '(SELECT quotes_seq::text FROM competition_makers WHERE account_id = $1)';

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
    const params: unknown[] = [];
    await tx.exec(
      insertSql((value) => `$${params.push(value)}`, rfqId, q),
      params,
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

  /**
   * A respond's change of the RFQ's quotes, to run in the statement that stores the taker's
   * `quotes` event, under the RFQ's row locked by an earlier statement of its transaction (so the
   * statement sees every quote committed before the lock): the maker's live quote there ends
   * `replaced` (at `atMs`), then `q` is inserted (after it: one live quote per maker and RFQ); and
   * the live quotes after the change as the event stores them (StoredLiveQuote), in the order
   * received: those live before the statement but the maker's, then `q` (a statement does not see
   * its own CTEs' changes).
   */
  joinWith(rfqId: string, q: CompetitiveQuote, atMs: number): { write: CompanionWrite; live: CompanionValue } {
    const write: CompanionWrite = (p) => [
      `UPDATE competition_quotes SET ending = 'replaced', ended_at_ms = ${p(atMs)} WHERE rfq_id = ${p(rfqId)} AND maker_account_id = ${p(q.makerAccountId)} AND ending IS NULL RETURNING 1`,
      insertSql(p, rfqId, q, 'companion0'),
    ];
    const live: CompanionValue = (p) =>
      `(SELECT coalesce(jsonb_agg(${LIVE_JSON} ORDER BY id), '[]'::jsonb) FROM competition_quotes
         WHERE rfq_id = ${p(rfqId)} AND ending IS NULL AND maker_account_id <> ${p(q.makerAccountId)}) || ${p(JSON.stringify([storedLive(q)]))}::jsonb`;
    return { write, live };
  }

  /** The id of the quote's RFQ, as a subquery of the rfq module's read (see CompanionRead). */
  rfqIdOf(param: string): string {
    return `SELECT rfq_id FROM competition_quotes WHERE quote_id = ${param}`;
  }

  /** The quote as JSON (numbers as text; null: none), as a subquery of the rfq module's read (see CompanionRead); `fromJson` reads it. */
  quoteJsonOf(param: string): string {
    return `SELECT ${LIVE_JSON} || jsonb_build_object('rfq_id', rfq_id, 'ended_at_ms', ended_at_ms::text, 'ending', ending) FROM competition_quotes WHERE quote_id = ${param}`;
  }

  /** A quote read by `quoteJsonOf` (null: none). */
  fromJson(json: unknown): StoredCompetitiveQuote | null {
    return json ? toQuote(json as QuoteRow) : null;
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

  /**
   * The accept's writes on the RFQ's quotes, to run as CTEs of the statement that stores the
   * makers' `traded_away` events (one round trip): `won` ends `accepted`, the other live quotes of
   * `quoteIds` `traded_away` (all at `atMs`), and the transcript `t` is stored, closed at `atMs`.
   */
  endWonWith(rfqId: string, won: string, quoteIds: readonly string[], atMs: number, t: StoredTranscript): CompanionWrite {
    return (p) => {
      const at = p(atMs);
      return [
        `INSERT INTO competition_transcripts (rfq_id, payload, hash, key_id, signature, closed_at_ms)
         VALUES (${p(rfqId)}, ${p(t.payload)}, ${p(t.hash)}, ${p(t.keyId)}, ${p(t.signature)}, ${at}::bigint) ON CONFLICT (rfq_id) DO NOTHING`,
        `UPDATE competition_quotes SET ending = CASE WHEN quote_id = ${p(won)} THEN 'accepted' ELSE 'traded_away' END, ended_at_ms = ${at}::bigint
          WHERE quote_id = ANY(${p(quoteIds)}::char(64)[]) AND ending IS NULL`,
      ];
    };
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
    const row = await sql.one<{ quotes_seq: string | null }>(`SELECT ${MAKER_VERSION_SQL} AS quotes_seq`, [accountId]);
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
