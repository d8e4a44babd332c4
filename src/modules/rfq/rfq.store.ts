import { Injectable } from '@nestjs/common';
import { parseRfqSigned } from '@legwork/protocol';
import { Database } from '../../common/database/database';
import { type SqlExecutor, sqlRows } from '../../common/database/sql';
import type { RfqErrorCode } from '../../common/errors/app-error';
import type { DeclineReason, RfqLeg, RfqRecord, Side, StoredLeg } from './domain/rfq-record';
import { LIVE_BOOK_SECONDS, type RfqState } from './domain/rfq-state';

export interface RfqRow {
  id: string;
  account_id: string;
  client_ref: string;
  legs: StoredLeg[];
  asset: string;
  expiry: string;
  state: RfqState;
  created_at: string;
  updated_at: string;
  expires_at: string;
  max_quote_expires_at: string;
  quote_id: string | null;
  maker_account_id: string | null;
  maker_wallet: string | null;
  quote_nonce: string | null;
  bid: string | null;
  ask: string | null;
  issued_at: string | null;
  quote_expires_at: string | null;
  maker_signature: string | null;
  decline_reason: DeclineReason | null;
  declined_by: string | null;
  accepted_side: Side | null;
  failure_error: string | null;
  failure_message: string | null;
  fill_id: string | null;
  fill_price: string | null;
  fill_fee: string | null;
  filled_at: string | null;
  fill_reverted: boolean;
  ended_at: string | null;
}

export const RFQ_COLUMNS = `id, account_id, client_ref, legs, asset, expiry, state, created_at, updated_at, expires_at,
  max_quote_expires_at, quote_id, maker_account_id, maker_wallet, quote_nonce, bid, ask, issued_at, quote_expires_at,
  maker_signature, decline_reason, declined_by, accepted_side, failure_error, failure_message, fill_id, fill_price,
  fill_fee, filled_at, fill_reverted, ended_at`;

/** RFQ_COLUMNS of the table aliased `r`. */
const QUALIFIED_RFQ_COLUMNS = RFQ_COLUMNS.split(',').map((c) => `r.${c.trim()}`).join(', ');

const num = (v: string | null): number | null => (v === null ? null : Number(v));

export function toRfqRecord(row: RfqRow): RfqRecord {
  const legs: RfqLeg[] = row.legs.map((leg) => ({ instrument: leg.instrument, quantity: parseRfqSigned(leg.quantity) }));
  return {
    id: row.id,
    accountId: Number(row.account_id),
    clientRef: row.client_ref,
    legs,
    asset: row.asset,
    expiry: Number(row.expiry),
    state: row.state,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    expiresAt: Number(row.expires_at),
    maxQuoteExpiresAt: Number(row.max_quote_expires_at),
    quote:
      row.quote_id === null
        ? null
        : {
            quoteId: row.quote_id,
            makerAccountId: Number(row.maker_account_id),
            makerWallet: row.maker_wallet!,
            quoteNonce: BigInt(row.quote_nonce!),
            bid: BigInt(row.bid!),
            ask: BigInt(row.ask!),
            issuedAt: Number(row.issued_at),
            expiresAt: Number(row.quote_expires_at),
            makerSignature: row.maker_signature!,
          },
    declineReason: row.decline_reason,
    declinedBy: num(row.declined_by),
    acceptedSide: row.accepted_side,
    failure: row.failure_error === null ? null : { error: row.failure_error as RfqErrorCode, message: row.failure_message ?? '' },
    fill:
      row.fill_id === null
        ? null
        : { fillId: String(row.fill_id), price: BigInt(row.fill_price!), fee: BigInt(row.fill_fee!), filledAt: Number(row.filled_at), reverted: row.fill_reverted },
    endedAt: num(row.ended_at),
  };
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

function page(rows: RfqRow[], limit: number): Page<RfqRecord> {
  const items = rows.slice(0, limit).map(toRfqRecord);
  return { items, nextCursor: rows.length > limit ? items[items.length - 1].id : null };
}

/** The reads of the rfqs table (writes belong to RfqService.create and RfqTransitions). */
@Injectable()
export class RfqStore {
  constructor(private readonly db: Database) {}

  async findById(id: string, sql: SqlExecutor = this.db.dataSource): Promise<RfqRecord | null> {
    const rows = await sqlRows<RfqRow>(sql, `SELECT ${RFQ_COLUMNS} FROM rfqs WHERE id = $1`, [id]);
    return rows.length ? toRfqRecord(rows[0]) : null;
  }

  async findByQuoteId(quoteId: string, sql: SqlExecutor = this.db.dataSource): Promise<RfqRecord | null> {
    const rows = await sqlRows<RfqRow>(sql, `SELECT ${RFQ_COLUMNS} FROM rfqs WHERE quote_id = $1`, [quoteId]);
    return rows.length ? toRfqRecord(rows[0]) : null;
  }

  async findByClientRef(accountId: number, clientRef: string, sql: SqlExecutor = this.db.dataSource): Promise<RfqRecord | null> {
    const rows = await sqlRows<RfqRow>(sql, `SELECT ${RFQ_COLUMNS} FROM rfqs WHERE account_id = $1 AND client_ref = $2`, [accountId, clientRef]);
    return rows.length ? toRfqRecord(rows[0]) : null;
  }

  /**
   * Locks the taker's account row (its creates queue behind it) and answers its RFQ of this
   * client_ref, if any, in one round trip. An RFQ of this client_ref committed while waiting for
   * the lock is not seen here (the read is as of the statement's start): the insert finds it.
   */
  async lockTakerWithClientRef(m: SqlExecutor, accountId: number, clientRef: string): Promise<RfqRecord | null> {
    const rows = await sqlRows<RfqRow>(
      m,
      `SELECT ${QUALIFIED_RFQ_COLUMNS} FROM accounts a LEFT JOIN rfqs r ON r.account_id = a.id AND r.client_ref = $2
        WHERE a.id = $1
          FOR NO KEY UPDATE OF a`,
      [accountId, clientRef],
    );
    return rows.length && rows[0].id !== null ? toRfqRecord(rows[0]) : null;
  }

  /**
   * Raises the maker's quote-nonce high-water mark to `nonce` if it is above it (durable: the
   * mark survives restarts and Redis). An `alongside` statement of the move pending → quoted,
   * required (`unlessAlongside`): it returns a row only when the mark rose.
   */
  raiseNonce(makerAccountId: number, nonce: bigint): (param: (value: unknown) => string) => string {
    return (param) =>
      `INSERT INTO maker_nonces (account_id, high_water) SELECT ${param(makerAccountId)}, ${param(nonce.toString())}::numeric FROM moved
       ON CONFLICT (account_id) DO UPDATE SET high_water = EXCLUDED.high_water
       WHERE maker_nonces.high_water < EXCLUDED.high_water
       RETURNING high_water`;
  }

  /** In the live book: not ended, or ended less than 24 h ago. */
  async findLive(accountId: number, id: string, now: number): Promise<RfqRecord | null> {
    const rows = await sqlRows<RfqRow>(
      this.db.dataSource,
      `SELECT ${RFQ_COLUMNS} FROM rfqs WHERE id = $1 AND account_id = $2 AND (ended_at IS NULL OR ended_at > $3)`,
      [id, accountId, now - LIVE_BOOK_SECONDS],
    );
    return rows.length ? toRfqRecord(rows[0]) : null;
  }

  /** The taker's live book, newest first, after `cursor`. */
  async listLive(accountId: number, q: { states: RfqState[] | null; cursor: string | null; limit: number }, now: number): Promise<Page<RfqRecord>> {
    const rows = await sqlRows<RfqRow>(
      this.db.dataSource,
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

  /** Pending RFQs not past expires_at and not the caller's, oldest first, after `cursor`. */
  async listPending(exceptAccountId: number, q: { cursor: string | null; limit: number }, now: number): Promise<Page<RfqRecord>> {
    const rows = await sqlRows<RfqRow>(
      this.db.dataSource,
      `SELECT ${RFQ_COLUMNS} FROM rfqs
        WHERE state = 'pending'
          AND expires_at > $1
          AND account_id <> $2
          AND ($3::char(32) IS NULL OR id > $3::char(32))
        ORDER BY id
        LIMIT $4`,
      [now, exceptAccountId, q.cursor, q.limit + 1],
    );
    return page(rows, q.limit);
  }

  /** Pending or quoted RFQs whose deadline is at or before `now`, earliest first. */
  async overdue(now: number, limit: number): Promise<Array<{ id: string; state: RfqState }>> {
    return sqlRows(
      this.db.dataSource,
      `SELECT id, state FROM rfqs WHERE state IN ('pending', 'quoted') AND expiry_deadline <= $1 ORDER BY expiry_deadline LIMIT $2`,
      [now, limit],
    );
  }
}
