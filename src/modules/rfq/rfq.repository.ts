import { Injectable } from '@nestjs/common';
import { Database } from '../../common/database/database';
import { refusalReason, type Sql, type Tx } from '../../common/database/sql';
import type { CompanionRead } from './competition-port';
import { type Column, type Narrow, type Row, column } from '../../common/database/table';
import { MAKER_LIMITS_COLUMNS, type MakerLimitsRawRow, type MakerLimitsRow, toMakerLimitsRow } from '../maker-limits/maker-limits-row';
import { makerHears } from './domain/account-event';
import type { RfqRecord, StoredQuote } from './domain/rfq-record';
import { LIVE_BOOK_SECONDS, type RfqState, canMove, freesSlot, isEnded } from './domain/rfq-state';
import { type AcceptRow, MoveRefused, type NewRfq, type RfqMove } from './rfq-move';
import { type Companion, QUOTES_CHANGED, companionSql } from './rfq-move.sql';
import { type Page, RFQ_COLUMNS, type RfqRow, page, toRfqRecord, withAccountSeqs } from './rfq-row';

type MovedRow = RfqRow & { account_seqs: Record<string, string> | null };

/**
 * The RFQ row as JSON with every number as text: `account_id`, prices and nonces are bigints, and
 * JSON numbers would lose them. Booleans, nulls and the legs array stay as they are, so the
 * snapshot reads back through `toRfqRecord` exactly as a row does.
 */
export const SNAPSHOT = `(SELECT jsonb_object_agg(e.key, CASE jsonb_typeof(e.value) WHEN 'number' THEN to_jsonb(e.value #>> '{}') ELSE e.value END)
                     FROM jsonb_each(to_jsonb(m)) e)`;

/**
 * CTEs that follow the `moved` CTE of a move statement in this file and store the events of those
 * moves with their `account_seq` (docs/spec/design.md 13), in the move's own statement: the taker's event on
 * `rfq` for every moved row, and the maker's on `rfq_maker` where `makerHears` (a SQL boolean) and
 * the RFQ holds a quote. The counter rows are upserted in account-id order (two statements
 * numbering the same two accounts never wait on each other crosswise) and stay locked until
 * commit, so the numbers of one account commit in order with no gap. Exposes `stored`.
 */
function accountEventCtes(makerHearsSql: string, at: string): string {
  return `,
    snap AS (SELECT m.account_id, m.maker_account_id, m.id, m.state, ${SNAPSHOT} AS rfq FROM moved m),
    targets AS (
      SELECT s.account_id, 'rfq'::text AS channel, s.id AS rfq_id, s.state AS event, s.rfq FROM snap s
      UNION ALL
      SELECT s.maker_account_id, 'rfq_maker', s.id, s.state, s.rfq FROM snap s WHERE (${makerHearsSql}) AND s.maker_account_id IS NOT NULL
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
const ACCOUNT_SEQS_COLUMN = `(SELECT json_object_agg(st.channel, st.account_seq::text) FROM stored st WHERE st.rfq_id = moved.id) AS account_seqs`;

/** The SET list of a move, its placeholders appended to `params`. */
function moveSets(move: RfqMove, param: (value: unknown) => string): string[] {
  const sets = ['state = $3', 'updated_at = $4'];
  const set = (name: Column<'rfqs'>, value: unknown) => sets.push(`${column('rfqs', name)} = ${param(value)}`);
  if (isEnded(move.to)) sets.push('ended_at = $4');
  const c = move.changes ?? {};
  if (c.quote) {
    const q = c.quote;
    set('quote_id', q.quoteId);
    set('maker_account_id', q.makerAccountId);
    set('maker_wallet', q.makerWallet);
    set('quote_nonce', q.quoteNonce.toString());
    set('bid', q.bid.toString());
    set('ask', q.ask.toString());
    set('issued_at', q.issuedAt);
    set('quote_expires_at', q.expiresAt);
    set('maker_signature', q.makerSignature);
    set('quote_received_at_ms', q.receivedAtMs ?? move.at * 1000);
  }
  if (c.declineReason) set('decline_reason', c.declineReason);
  if (c.declinedBy !== undefined) set('declined_by', c.declinedBy);
  if (c.acceptedSide) set('accepted_side', c.acceptedSide);
  if (c.failure) {
    set('failure_error', c.failure.error);
    set('failure_message', c.failure.message);
  }
  if (c.fill) {
    set('fill_id', c.fill.fillId);
    set('fill_price', c.fill.price.toString());
    set('fill_fee', c.fill.fee.toString());
    set('filled_at', c.fill.filledAt);
  }
  if (c.fillReverted !== undefined) set('fill_reverted', c.fillReverted);
  return sets;
}

/**
 * The `rfqs` table, its event log `rfq_events` and the makers' nonce high-water marks
 * `maker_nonces`: every read and write of them. RFQ state moves only here, by conditional
 * statements (`UPDATE … WHERE id = $1 AND state = <from>`), each with its event rows in the same
 * statement, so two instances can never both move one RFQ.
 *
 * Three writes of these statements touch other modules' tables, on purpose: the taker's open-RFQ
 * slot (`accounts.open_rfqs`) is taken by the insert and given back by the move that ends the RFQ,
 * and the accept row (`accepts`, the ledger's) is written by the move quoted → accepted. They are
 * the state that moves with the RFQ: in the move's own statement they need no transaction (no
 * BEGIN / COMMIT round trips) and can never disagree with the RFQ's state. They are typed
 * methods here (`insertPending`, `move`, `moveToAccepted`) so no SQL text leaves this file.
 */
@Injectable()
export class RfqRepository {
  constructor(private readonly db: Database) {}

  async findById(id: string, sql: Sql = this.db): Promise<RfqRecord | null> {
    const row = await sql.one<RfqRow>(`SELECT ${RFQ_COLUMNS} FROM rfqs WHERE id = $1`, [id]);
    return row && toRfqRecord(row);
  }

  /**
   * An RFQ and, in the same read, the limits row of a maker answering it (no lock): respond reads
   * both, and one statement costs PostgreSQL a parse, a snapshot and a commit less than two.
   */
  async findWithLimits(rfqId: string, accountId: number): Promise<{ rfq: RfqRecord; limits: MakerLimitsRow | null } | null> {
    const row = await this.db.one<RfqRow & { maker_limits: MakerLimitsRawRow | null }>(
      `SELECT ${RFQ_COLUMNS}, (SELECT row_to_json(l) FROM (SELECT ${MAKER_LIMITS_COLUMNS.sql} FROM maker_limits ml WHERE ml.account_id = $2) l) AS maker_limits FROM rfqs WHERE id = $1`,
      [rfqId, accountId],
    );
    return row && { rfq: toRfqRecord(row), limits: row.maker_limits && toMakerLimitsRow(row.maker_limits) };
  }

  async findByQuoteId(quoteId: string, sql: Sql = this.db, rfqIdOf?: CompanionRead): Promise<RfqRecord | null> {
    const or = rfqIdOf ? ` OR id = (${rfqIdOf('$1')}) ORDER BY (quote_id = $1) IS TRUE DESC LIMIT 1` : '';
    return sql.one<RfqRow>(`SELECT ${RFQ_COLUMNS} FROM rfqs WHERE quote_id = $1${or}`, [quoteId]).then((row) => row && toRfqRecord(row));
  }

  async findByClientRef(accountId: number, clientRef: string, sql: Sql = this.db): Promise<RfqRecord | null> {
    const row = await sql.one<RfqRow>(`SELECT ${RFQ_COLUMNS} FROM rfqs WHERE account_id = $1 AND client_ref = $2`, [accountId, clientRef]);
    return row && toRfqRecord(row);
  }

  /** Locks an RFQ's row for the caller's transaction; its state, or null when there is no such RFQ. */
  async lockState(tx: Tx, rfqId: string): Promise<RfqState | null> {
    return (await tx.one<Narrow<Row<'rfqs', 'state'>, { state: RfqState }>>(`SELECT state FROM rfqs WHERE id = $1 FOR UPDATE`, [rfqId]))?.state ?? null;
  }

  /** In the live book: not ended, or ended less than 24 h ago. */
  async findLive(accountId: number, id: string, now: number): Promise<RfqRecord | null> {
    const row = await this.db.one<RfqRow>(`SELECT ${RFQ_COLUMNS} FROM rfqs WHERE id = $1 AND account_id = $2 AND (ended_at IS NULL OR ended_at > $3)`, [
      id,
      accountId,
      now - LIVE_BOOK_SECONDS,
    ]);
    return row && toRfqRecord(row);
  }

  /** The taker's live book, newest first, after `cursor`. */
  async listLive(accountId: number, q: { states: RfqState[] | null; cursor: string | null; limit: number }, now: number): Promise<Page<RfqRecord>> {
    const rows = await this.db.rows<RfqRow>(
      `SELECT ${RFQ_COLUMNS} FROM rfqs
        WHERE account_id = $1
          AND (ended_at IS NULL OR ended_at > $2)
          AND ($3::text[] IS NULL OR state = ANY($3::text[]))
          AND ($4::char(32) IS NULL OR id < $4::char(32))
        ORDER BY id DESC
        LIMIT $5`,
      [accountId, now - LIVE_BOOK_SECONDS, q.states, q.cursor, q.limit + 1],
    );
    return page(rows, q.limit);
  }

  /**
   * RFQs open to the caller's quotes, oldest first, after `cursor`: pending ones, and competitive
   * ones still quoted (docs/spec/design.md 18), not past expires_at, not the caller's, and of a
   * competition without a panel or with the caller (`wallet`) on it: an RFQ of another panel does
   * not exist for the caller. One read of the partial index rfqs_open_to_quote.
   */
  async listPending(caller: { accountId: number; wallet: string }, q: { cursor: string | null; limit: number }, now: number): Promise<Page<RfqRecord>> {
    const rows = await this.db.rows<RfqRow>(
      `SELECT ${RFQ_COLUMNS} FROM rfqs
        WHERE (state = 'pending' OR (state = 'quoted' AND competition IS NOT NULL))
          AND expires_at > $1
          AND account_id <> $2
          AND (competition IS NULL OR jsonb_typeof(competition->'makers') <> 'array' OR competition->'makers' ? $5)
          AND ($3::char(32) IS NULL OR id > $3::char(32))
        ORDER BY id
        LIMIT $4`,
      [now, caller.accountId, q.cursor, q.limit + 1, caller.wallet],
    );
    return page(rows, q.limit);
  }

  /** RFQs left accepted or submitting since `updatedBefore` (unix seconds) or earlier, oldest first. */
  async stuckInFill(updatedBefore: number, limit: number): Promise<Array<{ id: string; updatedAt: number }>> {
    const rows = await this.db.rows<Row<'rfqs', 'id' | 'updated_at'>>(
      `SELECT id, updated_at FROM rfqs WHERE state IN ('accepted', 'submitting') AND updated_at <= $1 ORDER BY updated_at LIMIT $2`,
      [updatedBefore, limit],
    );
    return rows.map((r) => ({ id: r.id, updatedAt: Number(r.updated_at) }));
  }

  /** Pending and quoted RFQs on a round (they expire when it settles). */
  async openOfRound(asset: string, expiry: number): Promise<string[]> {
    const rows = await this.db.rows<Row<'rfqs', 'id'>>(`SELECT id FROM rfqs WHERE asset = $1 AND expiry = $2 AND state IN ('pending', 'quoted') ORDER BY id`, [
      asset,
      expiry,
    ]);
    return rows.map((r) => r.id);
  }

  /**
   * One statement: takes one of the taker's open-RFQ slots (`accounts.open_rfqs`, raised only below
   * `maxOpen`: concurrent creates queue on the account row and each sees the count the one before
   * left) and inserts the pending RFQ with its event row. null when there is no slot, or when the
   * client_ref is taken (the statement then refuses itself, so the slot is not kept). A
   * competitive RFQ's panel gets its competition_panels rows (the makers directory's stats) here.
   */
  async insertPending(rfq: NewRfq, maxOpen: number): Promise<RfqRecord | null> {
    try {
      const row = await this.db.one<RfqRow>(
        `WITH slot AS (UPDATE accounts SET open_rfqs = open_rfqs + 1 WHERE id = $2 AND open_rfqs < $10 RETURNING id),
              inserted AS (
                INSERT INTO rfqs (id, account_id, client_ref, legs, asset, expiry, state, created_at, updated_at, expires_at, max_quote_expires_at, competition)
                SELECT $1, slot.id, $3, $4::jsonb, $5, $6, 'pending', $7, $7, $8, $9, $11::jsonb FROM slot
                ON CONFLICT (account_id, client_ref) DO NOTHING
                RETURNING ${RFQ_COLUMNS}),
              logged AS (INSERT INTO rfq_events (rfq_id, event, state, at) SELECT id, 'created', 'pending', $7 FROM inserted),
              paneled AS (INSERT INTO competition_panels (maker_account_id, rfq_id)
                SELECT a.id::bigint, inserted.id FROM inserted CROSS JOIN LATERAL jsonb_array_elements_text(
                  CASE WHEN jsonb_typeof(inserted.competition->'accounts') = 'array' THEN inserted.competition->'accounts' ELSE '[]'::jsonb END) AS a(id))
         SELECT inserted.*, CASE WHEN NOT EXISTS (SELECT 1 FROM inserted) THEN legwork_refuse('client_ref taken') END AS refused
           FROM slot LEFT JOIN inserted ON true`,
        [
          rfq.id,
          rfq.accountId,
          rfq.clientRef,
          JSON.stringify(rfq.legs),
          rfq.asset,
          rfq.expiry,
          rfq.createdAt,
          rfq.expiresAt,
          rfq.maxQuoteExpiresAt,
          maxOpen,
          rfq.competition ? JSON.stringify(rfq.competition) : null,
        ],
      );
      return row && toRfqRecord(row);
    } catch (error) {
      if (refusalReason(error) === null) throw error;
      return null;
    }
  }

  /**
   * Moves the RFQ from `from` to `to` (one statement, with its event rows; on `sql`, alone or in the
   * caller's transaction). null when the RFQ was not in `from` or its deadline had come: nothing changed.
   */
  move(sql: Sql, move: RfqMove): Promise<RfqRecord | null> {
    return this.moveWith(sql, move, { kind: 'none' });
  }

  /**
   * pending → quoted, raising the maker's quote-nonce high-water mark to the quote's nonce in the
   * same statement; MoveRefused (nothing changed) when the nonce is not above the mark.
   */
  async moveToQuoted(sql: Sql, move: RfqMove, quote: StoredQuote): Promise<RfqRecord | null> {
    try {
      return await this.moveWith(
        sql,
        { ...move, changes: { ...move.changes, quote } },
        { kind: 'nonce', makerAccountId: quote.makerAccountId, nonce: quote.quoteNonce },
      );
    } catch (error) {
      const reason = refusalReason(error);
      throw reason === null ? error : new MoveRefused(reason);
    }
  }

  /**
   * moveToQuoted of a respond whose limits were checked on what this instance knows (the
   * `guarded` companion): null when nothing moved, because the RFQ did not, or because the maker's
   * limits row or quotes are no longer those the checks saw (nothing changed either way).
   */
  async moveToQuotedIfUnchanged(
    sql: Sql,
    move: RfqMove,
    quote: StoredQuote,
    known: { highWater: bigint | null; limits: MakerLimitsRow },
  ): Promise<RfqRecord | null> {
    const companion: Companion = { kind: 'guarded', makerAccountId: quote.makerAccountId, nonce: quote.quoteNonce, ...known };
    try {
      return await this.moveWith(sql, { ...move, changes: { ...move.changes, quote } }, companion);
    } catch (error) {
      if (refusalReason(error) === QUOTES_CHANGED) return null;
      throw error;
    }
  }

  /** quoted → accepted, writing the accept row (the ledger's `accepts`) in the same statement. */
  moveToAccepted(sql: Sql, move: RfqMove, accept: AcceptRow): Promise<RfqRecord | null> {
    return this.moveWith(sql, { ...move, changes: { ...move.changes, acceptedSide: accept.side } }, { kind: 'accept', accept });
  }

  /**
   * Every pending or quoted RFQ whose deadline has come (at or before `now`, unix seconds) moves to
   * expired: one conditional UPDATE of at most `limit` of them, earliest deadline first, with their
   * event rows and slots, in one statement. A row another mover took first is left alone (the
   * UPDATE re-checks state and deadline on the row it locks). The moved records, by id. `sql`: the
   * pool, or a connection the caller holds.
   */
  async expireDue(now: number, limit: number, sql: Sql): Promise<RfqRecord[]> {
    const rows = await sql.rows<MovedRow>(
      // A competitive RFQ ends in a transaction that writes its transcript: the competition module's sweep.
      `WITH due AS (SELECT id FROM rfqs WHERE state IN ('pending', 'quoted') AND expiry_deadline <= $1 AND competition IS NULL ORDER BY expiry_deadline, id LIMIT $2),
            moved AS (UPDATE rfqs SET state = 'expired', updated_at = $1, ended_at = $1
                       WHERE id IN (SELECT id FROM due) AND state IN ('pending', 'quoted') AND expiry_deadline <= $1
                       RETURNING ${RFQ_COLUMNS}),
            logged AS (INSERT INTO rfq_events (rfq_id, event, state, at) SELECT id, 'expired', 'expired', $1::bigint FROM moved),
            freed AS (UPDATE accounts a SET open_rfqs = a.open_rfqs - n.count
                        FROM (SELECT account_id, count(*) AS count FROM moved GROUP BY account_id) n WHERE a.id = n.account_id)${accountEventCtes('true', '$1::bigint')}
       SELECT moved.*, ${ACCOUNT_SEQS_COLUMN} FROM moved ORDER BY id`,
      [now, limit],
    );
    return rows.map((row) => withAccountSeqs(toRfqRecord(row), row.account_seqs));
  }

  /**
   * The taker's cancel (docs/spec/design.md 15): its RFQ `rfqId`, if still pending or quoted, moves
   * to expired with `cancelled_at` = `at`, with its event rows (`rfq_events` says `cancelled`), its
   * open-RFQ slot given back and its account events, in one conditional statement: a respond or an
   * accept that moved the row first leaves it alone, and one that comes after finds it expired.
   * The moved record, or null when nothing moved (another account's RFQ never moves).
   */
  async cancel(accountId: number, rfqId: string, at: number, sql: Sql, competitive = false): Promise<RfqRecord | null> {
    // A competitive RFQ is cancelled in a transaction that ends its quotes (the competition module's).
    const row = await sql.one<MovedRow>(
      `WITH moved AS (UPDATE rfqs SET state = 'expired', updated_at = $3, ended_at = $3, cancelled_at = $3
                       WHERE id = $2 AND account_id = $1 AND state IN ('pending', 'quoted') AND competition IS ${competitive ? 'NOT ' : ''}NULL
                       RETURNING ${RFQ_COLUMNS}),
            logged AS (INSERT INTO rfq_events (rfq_id, event, state, at) SELECT id, 'cancelled', 'expired', $3::bigint FROM moved),
            freed AS (UPDATE accounts SET open_rfqs = open_rfqs - 1 WHERE id = (SELECT account_id FROM moved))${accountEventCtes('true', '$3::bigint')}
       SELECT moved.*, ${ACCOUNT_SEQS_COLUMN} FROM moved`,
      [accountId, rfqId, at],
    );
    return row && withAccountSeqs(toRfqRecord(row), row.account_seqs);
  }

  /** The ids of the taker's pending and quoted RFQs, oldest first (ids are time ordered). */
  async openToCancel(accountId: number, sql: Sql = this.db): Promise<string[]> {
    const rows = await sql.rows<Row<'rfqs', 'id'>>(`SELECT id FROM rfqs WHERE account_id = $1 AND state IN ('pending', 'quoted') ORDER BY id`, [accountId]);
    return rows.map((r) => r.id);
  }

  /** The maker's quote-nonce high-water mark (null: it never quoted). */
  async nonceHighWater(makerAccountId: number, sql: Sql = this.db): Promise<bigint | null> {
    const row = await sql.one<Row<'maker_nonces', 'high_water'>>(`SELECT high_water::text AS high_water FROM maker_nonces WHERE account_id = $1`, [
      makerAccountId,
    ]);
    return row && BigInt(row.high_water);
  }

  private async moveWith(sql: Sql, move: RfqMove, companion: Companion): Promise<RfqRecord | null> {
    if (!canMove(move.from, move.to)) throw new Error(`an RFQ cannot move from ${move.from} to ${move.to}`);
    const params: unknown[] = [move.rfqId, move.from, move.to, move.at];
    const param = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    const sets = moveSets(move, param);
    const conditions = ['id = $1', 'state = $2'];
    if (move.deadlineAfterMs !== undefined) conditions.push(`expiry_deadline * 1000 > ${param(move.deadlineAfterMs)}::bigint`);
    const { before, condition, cte, refuse } = companionSql(companion, param);
    if (condition) conditions.push(condition);
    // Leaving the open states gives the taker's open-RFQ slot back (accounts.open_rfqs).
    const slot = freesSlot(move.from, move.to) ? `, freed AS (UPDATE accounts SET open_rfqs = open_rfqs - 1 WHERE id = (SELECT account_id FROM moved))` : '';
    // The conditional move and its event row in one statement (one round trip): the INSERT reads
    // the UPDATE's RETURNING, so no event (and no companion row) is written when nothing moved.
    // The account events of the move (docs/spec/design.md 13) are stored, numbered, by the same statement.
    const events = accountEventCtes(makerHears(move.from, move.to) ? 'true' : 'false', '$4::bigint');
    const row = await sql.one<MovedRow>(
      `WITH ${before}moved AS (UPDATE rfqs SET ${sets.join(', ')} WHERE ${conditions.join(' AND ')} RETURNING ${RFQ_COLUMNS}),
            logged AS (INSERT INTO rfq_events (rfq_id, event, state, at) SELECT id, state, state, $4::bigint FROM moved)${slot}${cte}${events}
       SELECT moved.*${refuse}, ${ACCOUNT_SEQS_COLUMN} FROM moved`,
      params,
    );
    return row && withAccountSeqs(toRfqRecord(row), row.account_seqs);
  }
}
