import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Database } from '../../common/database/database';
import { type SqlExecutor, sqlRows } from '../../common/database/sql';
import type { OptionKind } from '../instruments/domain/symbol';
import type { RfqRecord } from '../rfq/domain/rfq-record';
import type { RfqState } from '../rfq/domain/rfq-state';
import { RFQ_COLUMNS, type RfqRow, toRfqRecord } from '../rfq/rfq.store';
import { INDEX_SHARE, parseIndexShare } from './collateral.sql';
import { FLAT, type PositionCost, type Ratio, addTrade, roundedAverage } from './domain/average-price';
import type { AccountBook, LedgerRow } from './domain/fill-check';
import { orientation } from './domain/fold';
import type { AcceptSide } from './domain/funding';
import type { LockPosition } from './domain/lock';

type IsolationLevel = 'READ COMMITTED' | 'REPEATABLE READ' | 'SERIALIZABLE';

/** An open (unsettled) position with its instrument and its exact average cost. */
export interface HeldPosition extends LockPosition {
  instrument: string;
  /** null when flat */
  average: Ratio | null;
}

/**
 * A position row as a fill or a revert leaves it: `delta` is added to the stored quantity, which
 * must then be `position.quantity` (the write fails otherwise: the row changed under the
 * caller's locks), and the average cost is set to `position.average`.
 */
export interface PositionWrite {
  accountId: number;
  instrument: string;
  delta: bigint;
  position: PositionCost;
}

/** The accept of an RFQ as stored: the side and the max_fee frozen at accept. */
export interface AcceptRecord {
  rfqId: string;
  quoteId: string;
  side: AcceptSide;
  fee: bigint;
  maxFee: bigint;
  takerSignature: string;
  expiresAt: number;
  acceptedAt: number;
}

export interface FillLegRecord {
  instrument: string;
  asset: string;
  expiry: number;
  strike: bigint;
  kind: OptionKind;
  /** taker-buy orientation */
  quantity: bigint;
  /** the leg's share of the price, taker-buy orientation */
  premium: bigint;
  mark: bigint;
}

export interface FillRecord {
  fillId: string;
  rfqId: string;
  quoteId: string;
  takerAccountId: number;
  makerAccountId: number;
  feeAccountId: number;
  side: AcceptSide;
  price: bigint;
  fee: bigint;
  filledAt: number;
  reverted: boolean;
  legs: FillLegRecord[];
}

export type NewFill = Omit<FillRecord, 'fillId' | 'reverted' | 'legs'> & { legs: Array<Pick<FillLegRecord, 'instrument' | 'quantity' | 'premium' | 'mark'>> };

interface PositionRow {
  account_id: string;
  instrument: string;
  asset: string;
  expiry: string;
  strike: string;
  kind: OptionKind;
  quantity: string;
  avg_num: string | null;
  avg_den: string | null;
}

interface BalanceRow {
  account_id: string;
  total: string;
  locked: string;
}

interface FillRow {
  id: string;
  rfq_id: string;
  quote_id: string;
  taker_account_id: string;
  maker_account_id: string;
  fee_account_id: string;
  side: AcceptSide;
  price: string;
  fee: string;
  filled_at: string;
  reverted: boolean;
}

interface FillLegRow {
  fill_id: string;
  instrument: string;
  asset: string;
  expiry: string;
  strike: string;
  kind: OptionKind;
  quantity: string;
  premium: string;
  mark: string;
}

/**
 * Advisory-lock key of an expiration round: the key instruments.service.ts takes for create, pause
 * and resume ("LWIN" << 32 | expiry), so a settlement and a listing of one round never interleave.
 */
const ROUND_LOCK_NAMESPACE = 0x4c57494en << 32n;

const toAccept = (r: any): AcceptRecord => ({
  rfqId: r.rfq_id, quoteId: r.quote_id, side: r.side, fee: BigInt(r.fee), maxFee: BigInt(r.max_fee),
  takerSignature: r.taker_signature, expiresAt: Number(r.expires_at), acceptedAt: Number(r.accepted_at),
});

const toFill = (row: FillRow, legs: FillLegRecord[]): FillRecord => ({
  fillId: String(row.id),
  rfqId: row.rfq_id,
  quoteId: row.quote_id,
  takerAccountId: Number(row.taker_account_id),
  makerAccountId: Number(row.maker_account_id),
  feeAccountId: Number(row.fee_account_id),
  side: row.side,
  price: BigInt(row.price),
  fee: BigInt(row.fee),
  filledAt: Number(row.filled_at),
  reverted: row.reverted,
  legs,
});

const toFillLeg = (row: FillLegRow): FillLegRecord => ({
  instrument: row.instrument,
  asset: row.asset,
  expiry: Number(row.expiry),
  strike: BigInt(row.strike),
  kind: row.kind,
  quantity: BigInt(row.quantity),
  premium: BigInt(row.premium),
  mark: BigInt(row.mark),
});

const FILL_COLUMNS = 'id, rfq_id, quote_id, taker_account_id, maker_account_id, fee_account_id, side, price, fee, filled_at, reverted';

/** A position row of a book as JSON (every number as text: exact). */
type BookPositionJson = PositionRow;
type BookBalanceJson = { account_id: string; total: string; locked: string };

function toHeldPosition(r: PositionRow): HeldPosition {
  return {
    instrument: r.instrument, asset: r.asset, expiry: Number(r.expiry), strike: BigInt(r.strike), kind: r.kind, quantity: BigInt(r.quantity),
    average: r.avg_num === null || r.avg_den === null ? null : { n: BigInt(r.avg_num), d: BigInt(r.avg_den) },
  };
}

/** The key of a position in maps: account and instrument. */
export const positionKey = (accountId: number, instrument: string) => `${accountId} ${instrument}`;

/** Positional parameters of one statement: `add(value)` appends a value and answers its `$n`. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * The upsert of position rows (one statement for any number of accounts and instruments): adds each
 * delta to the quantity, sets the average cost, and answers every row it wrote with its quantity.
 */
function positionsUpsert(p: Params, writes: readonly PositionWrite[]): string {
  const average = (w: PositionWrite) => (w.position.quantity === 0n ? null : w.position.average);
  return `INSERT INTO positions (account_id, instrument, quantity, avg_num, avg_den, average_price, updated_at)
    SELECT v.account_id, v.instrument, v.delta, v.n, v.d, v.price, now()
      FROM unnest(${p.add(writes.map((w) => String(w.accountId)))}::bigint[], ${p.add(writes.map((w) => w.instrument))}::text[],
                  ${p.add(writes.map((w) => w.delta.toString()))}::bigint[], ${p.add(writes.map((w) => average(w)?.n.toString() ?? null))}::numeric[],
                  ${p.add(writes.map((w) => average(w)?.d.toString() ?? null))}::numeric[], ${p.add(writes.map((w) => roundedAverage(w.position)?.toString() ?? null))}::bigint[])
           AS v(account_id, instrument, delta, n, d, price)
    ON CONFLICT (account_id, instrument) DO UPDATE
       SET quantity = positions.quantity + EXCLUDED.quantity, avg_num = EXCLUDED.avg_num, avg_den = EXCLUDED.avg_den,
           average_price = EXCLUDED.average_price, updated_at = now()
    RETURNING account_id, instrument, quantity`;
}

/** Sets `total` and `locked` of the accounts' balance rows (one statement); answers the ids it updated. */
function balancesUpdate(p: Params, rows: ReadonlyArray<{ accountId: number; row: LedgerRow }>): string {
  return `UPDATE balances b SET total = v.total, locked = v.locked, updated_at = now()
      FROM unnest(${p.add(rows.map((r) => String(r.accountId)))}::bigint[], ${p.add(rows.map((r) => r.row.total.toString()))}::bigint[],
                  ${p.add(rows.map((r) => r.row.locked.toString()))}::bigint[]) AS v(account_id, total, locked)
     WHERE b.account_id = v.account_id
    RETURNING b.account_id`;
}

/** Throws unless the upsert wrote every position with the quantity the caller computed. */
function checkPositions(writes: readonly PositionWrite[], written: ReadonlyArray<{ account_id: string | number; instrument: string; quantity: string | number }>): void {
  const got = new Map(written.map((r) => [positionKey(Number(r.account_id), r.instrument), BigInt(r.quantity)]));
  for (const w of writes) {
    const quantity = got.get(positionKey(w.accountId, w.instrument));
    if (quantity !== w.position.quantity) {
      throw new Error(`position of account ${w.accountId} in ${w.instrument} is ${quantity} after the write, not ${w.position.quantity}: it changed under the ledger's locks`);
    }
  }
}

function checkBalances(rows: ReadonlyArray<{ accountId: number }>, updated: number): void {
  if (updated !== new Set(rows.map((r) => r.accountId)).size) throw new Error(`${updated} balance rows updated of ${rows.length}: an account has no ledger row`);
}

/** The SQL of the fill ledger: accepts, fills, positions, balance rows. Writers pass their transaction's manager. */
@Injectable()
export class LedgerStore {
  constructor(private readonly db: Database) {}

  transaction<T>(run: (m: EntityManager) => Promise<T>, isolation?: IsolationLevel): Promise<T> {
    return isolation ? this.db.dataSource.transaction(isolation, run) : this.db.dataSource.transaction(run);
  }

  get sql(): SqlExecutor {
    return this.db.dataSource;
  }

  /** Open (unsettled) non-zero positions of the accounts, with their instruments' terms. */
  async openPositions(sql: SqlExecutor, accountIds: readonly number[]): Promise<Map<number, HeldPosition[]>> {
    const out = new Map<number, HeldPosition[]>(accountIds.map((id) => [id, []]));
    if (accountIds.length === 0) return out;
    const rows: PositionRow[] = await sql.query(
      `SELECT p.account_id, p.instrument, i.asset, i.expiry, i.strike, i.kind, p.quantity, p.avg_num, p.avg_den
         FROM positions p JOIN instruments i ON i.symbol = p.instrument
        WHERE p.account_id = ANY($1::bigint[]) AND NOT p.settled AND p.quantity <> 0
        ORDER BY p.account_id, p.instrument`,
      [accountIds.map(String)],
    );
    for (const r of rows) out.get(Number(r.account_id))!.push(toHeldPosition(r));
    return out;
  }

  /** Ledger rows of the accounts (absent: never anchored); `forUpdate` locks them in account-id order. */
  async balances(sql: SqlExecutor, accountIds: readonly number[], forUpdate = false): Promise<Map<number, LedgerRow>> {
    const rows: BalanceRow[] = await sql.query(
      `SELECT account_id, total, locked FROM balances WHERE account_id = ANY($1::bigint[]) ORDER BY account_id${forUpdate ? ' FOR UPDATE' : ''}`,
      [[...new Set(accountIds)].map(String)],
    );
    return new Map(rows.map((r) => [Number(r.account_id), { total: BigInt(r.total), locked: BigInt(r.locked) }]));
  }

  /**
   * rfq.accept's read, one statement (so one snapshot, and one round trip): the RFQ holding the
   * quote, and the books (balance row, open positions) of its taker and its maker, frozen for the
   * funding view. Null when no RFQ holds that quote.
   */
  async quoteWithBooks(quoteId: string): Promise<{ rfq: RfqRecord; books: Map<number, AccountBook> } | null> {
    const rows: Array<RfqRow & { balances: BookBalanceJson[]; positions: BookPositionJson[] }> = await this.sql.query(
      `WITH r AS (SELECT ${RFQ_COLUMNS} FROM rfqs WHERE quote_id = $1)
       SELECT r.*,
              (SELECT coalesce(json_agg(json_build_object('account_id', b.account_id::text, 'total', b.total::text, 'locked', b.locked::text)), '[]'::json)
                 FROM balances b WHERE b.account_id IN (r.account_id, r.maker_account_id)) AS balances,
              (SELECT coalesce(json_agg(json_build_object('account_id', p.account_id::text, 'instrument', p.instrument, 'asset', i.asset,
                        'expiry', i.expiry::text, 'strike', i.strike::text, 'kind', i.kind, 'quantity', p.quantity::text,
                        'avg_num', p.avg_num::text, 'avg_den', p.avg_den::text) ORDER BY p.instrument), '[]'::json)
                 FROM positions p JOIN instruments i ON i.symbol = p.instrument
                WHERE p.account_id IN (r.account_id, r.maker_account_id) AND NOT p.settled AND p.quantity <> 0) AS positions
         FROM r`,
      [quoteId],
    );
    if (rows.length === 0) return null;
    const rfq = toRfqRecord(rows[0]);
    const books = new Map<number, AccountBook>([rfq.accountId, rfq.quote?.makerAccountId ?? rfq.accountId].map((id) => [id, { balance: null, positions: [] }]));
    for (const b of rows[0].balances) books.get(Number(b.account_id))!.balance = { total: BigInt(b.total), locked: BigInt(b.locked) };
    for (const p of rows[0].positions) (books.get(Number(p.account_id))!.positions as HeldPosition[]).push(toHeldPosition(p));
    return { rfq, books };
  }

  /** Creates the ledger row of an account that has none (the fee account's first fee). */
  async ensureLedgerRow(m: EntityManager, accountId: number): Promise<void> {
    await m.query(`INSERT INTO balances (account_id) VALUES ($1) ON CONFLICT (account_id) DO NOTHING`, [accountId]);
  }

  /**
   * Adds a fill's fee to the fee account's total, making its ledger row with the first fee. Locks
   * that row, which every fill writes: the fill transaction calls it last (fill.service.ts).
   */
  async creditFee(m: EntityManager, accountId: number, amount: bigint): Promise<void> {
    await m.query(
      `INSERT INTO balances (account_id, total) VALUES ($1, $2)
       ON CONFLICT (account_id) DO UPDATE SET total = balances.total + EXCLUDED.total, updated_at = now()`,
      [accountId, amount.toString()],
    );
  }

  async setBalance(m: EntityManager, accountId: number, row: LedgerRow): Promise<void> {
    const updated = await sqlRows(m, `UPDATE balances SET total = $2, locked = $3, updated_at = now() WHERE account_id = $1 RETURNING account_id`, [
      accountId, row.total.toString(), row.locked.toString(),
    ]);
    if (updated.length !== 1) throw new Error(`account ${accountId} has no ledger row`);
  }

  /** Writes position rows (a revert's): quantities by delta, checked, and their average cost. */
  async writePositions(m: EntityManager, writes: readonly PositionWrite[]): Promise<void> {
    if (writes.length === 0) return;
    const p = new Params();
    checkPositions(writes, await sqlRows(m, positionsUpsert(p, writes), p.values));
  }

  /** Sets `total` and `locked` of several accounts' balance rows in one statement. */
  async setBalances(m: EntityManager, rows: ReadonlyArray<{ accountId: number; row: LedgerRow }>): Promise<void> {
    const p = new Params();
    checkBalances(rows, (await sqlRows(m, balancesUpdate(p, rows), p.values)).length);
  }

  /**
   * The positions of the accounts in the instruments as the fills that are not reverted make them,
   * replayed in fill order (a revert's new averages). Absent: flat.
   */
  async replayPositions(sql: SqlExecutor, accountIds: readonly number[], instruments: readonly string[]): Promise<Map<string, PositionCost>> {
    const trades: Array<{ account_id: string; instrument: string; role: 'taker' | 'maker'; side: AcceptSide; quantity: string; premium: string }> = await sql.query(
      `SELECT t.account_id, l.instrument, t.role, f.side, l.quantity, l.premium
         FROM fills f
         JOIN fill_legs l ON l.fill_id = f.id
         CROSS JOIN LATERAL (VALUES (f.taker_account_id, 'taker'), (f.maker_account_id, 'maker')) AS t(account_id, role)
        WHERE NOT f.reverted AND t.account_id = ANY($1::bigint[]) AND l.instrument = ANY($2::text[])
        ORDER BY f.id`,
      [accountIds.map(String), instruments],
    );
    const out = new Map<string, PositionCost>();
    for (const t of trades) {
      const key = positionKey(Number(t.account_id), t.instrument);
      const sign = orientation(t.role, t.side);
      out.set(key, addTrade(out.get(key) ?? FLAT, { quantity: sign * BigInt(t.quantity), paid: sign * BigInt(t.premium) }));
    }
    return out;
  }

  /** Locks an RFQ's row for the caller's transaction; its state, or null when there is no such RFQ. */
  async lockRfq(m: EntityManager, rfqId: string): Promise<RfqState | null> {
    const rows: Array<{ state: RfqState }> = await m.query(`SELECT state FROM rfqs WHERE id = $1 FOR UPDATE`, [rfqId]);
    return rows[0]?.state ?? null;
  }

  /**
   * The fill's first read, one round trip: locks the RFQ's row (its state), reads its accept (null
   * when it has none), and share-locks its instruments as `settledAmong` does (the symbols that
   * have settled), and share-locks every index price row (the locks are computed at those
   * prices: collateral.sql.ts). Null when there is no such RFQ.
   */
  async lockForFill(m: EntityManager, rfqId: string, symbols: readonly string[]): Promise<{ state: RfqState; accept: AcceptRecord | null; settled: string[]; indexes: Map<string, bigint> } | null> {
    const rows: any[] = await m.query(
      `SELECT r.state, a.rfq_id, a.quote_id, a.side, a.fee, a.max_fee, a.taker_signature, a.expires_at, a.accepted_at,
              (SELECT coalesce(array_agg(i.symbol ORDER BY i.symbol) FILTER (WHERE i.settled), '{}')
                 FROM (SELECT symbol, settled FROM instruments WHERE symbol = ANY($2::text[]) ORDER BY symbol FOR SHARE) i) AS settled,
              ${INDEX_SHARE} AS indexes
         FROM rfqs r LEFT JOIN accepts a ON a.rfq_id = r.id
        WHERE r.id = $1
          FOR UPDATE OF r`,
      [rfqId, symbols],
    );
    if (rows.length === 0) return null;
    const settled: string[] = Array.isArray(rows[0].settled) ? rows[0].settled : String(rows[0].settled).replace(/[{}]/g, '').split(',').filter(Boolean);
    return { state: rows[0].state, accept: rows[0].rfq_id === null ? null : toAccept(rows[0]), settled, indexes: parseIndexShare(rows[0].indexes) };
  }

  /**
   * Share-locks the instruments (a settlement of their round waits, and is waited for); the
   * symbols that have settled.
   */
  async settledAmong(m: EntityManager, symbols: readonly string[]): Promise<string[]> {
    const rows: Array<{ symbol: string; settled: boolean }> = await m.query(
      `SELECT symbol, settled FROM instruments WHERE symbol = ANY($1::text[]) ORDER BY symbol FOR SHARE`,
      [symbols],
    );
    return rows.filter((r) => r.settled).map((r) => r.symbol);
  }

  async lockRound(m: EntityManager, expiry: number): Promise<void> {
    await m.query('SELECT pg_advisory_xact_lock($1::bigint)', [(ROUND_LOCK_NAMESPACE | BigInt(expiry)).toString()]);
  }

  /** The accept row, written with the move quoted → accepted (an `alongside` statement of that move: `moved` is the RFQ). */
  acceptRow(a: Omit<AcceptRecord, 'rfqId'>): (param: (value: unknown) => string) => string {
    return (param) =>
      `INSERT INTO accepts (rfq_id, quote_id, side, fee, max_fee, taker_signature, expires_at, accepted_at)
       SELECT id, ${param(a.quoteId)}, ${param(a.side)}, ${param(a.fee.toString())}, ${param(a.maxFee.toString())}, ${param(a.takerSignature)},
              ${param(a.expiresAt)}, ${param(a.acceptedAt)} FROM moved`;
  }

  async findAccept(sql: SqlExecutor, rfqId: string): Promise<AcceptRecord | null> {
    const rows: any[] = await sql.query(`SELECT rfq_id, quote_id, side, fee, max_fee, taker_signature, expires_at, accepted_at FROM accepts WHERE rfq_id = $1`, [rfqId]);
    return rows.length === 0 ? null : toAccept(rows[0]);
  }

  /**
   * Everything a fill writes to the ledger, in one statement: the fill and its legs, the position
   * rows of both accounts (checked: each ends at the quantity computed), and the balance rows
   * (taker, maker, fee account). Its id. A second fill of one RFQ violates `fills.rfq_id UNIQUE`.
   */
  async recordFill(m: EntityManager, f: NewFill, positions: readonly PositionWrite[], balances: ReadonlyArray<{ accountId: number; row: LedgerRow }>): Promise<string> {
    const p = new Params();
    const [row]: Array<{ id: string; legs: string; balances: string; positions: Array<{ account_id: number; instrument: string; quantity: string | number }> }> = await m.query(
      `WITH fill AS (
         INSERT INTO fills (rfq_id, quote_id, taker_account_id, maker_account_id, fee_account_id, side, price, fee, filled_at)
         VALUES (${p.add(f.rfqId)}, ${p.add(f.quoteId)}, ${p.add(f.takerAccountId)}, ${p.add(f.makerAccountId)}, ${p.add(f.feeAccountId)}, ${p.add(f.side)},
                 ${p.add(f.price.toString())}, ${p.add(f.fee.toString())}, ${p.add(f.filledAt)})
         RETURNING id
       ), legs AS (
         INSERT INTO fill_legs (fill_id, leg_index, instrument, quantity, premium, mark)
         SELECT fill.id, t.i - 1, t.instrument, t.quantity, t.premium, t.mark
           FROM fill, unnest(${p.add(f.legs.map((l) => l.instrument))}::text[], ${p.add(f.legs.map((l) => l.quantity.toString()))}::bigint[],
                             ${p.add(f.legs.map((l) => l.premium.toString()))}::bigint[], ${p.add(f.legs.map((l) => l.mark.toString()))}::bigint[])
                WITH ORDINALITY AS t(instrument, quantity, premium, mark, i)
         RETURNING fill_id
       ), written AS (${positionsUpsert(p, positions)}
       ), balanced AS (${balancesUpdate(p, balances)})
       SELECT (SELECT id FROM fill) AS id, (SELECT count(*) FROM legs) AS legs, (SELECT count(*) FROM balanced) AS balances,
              (SELECT coalesce(json_agg(json_build_object('account_id', account_id, 'instrument', instrument, 'quantity', quantity::text)), '[]'::json) FROM written) AS positions`,
      p.values,
    );
    if (Number(row.legs) !== f.legs.length) throw new Error(`${row.legs} fill legs written of ${f.legs.length}`);
    checkPositions(positions, row.positions);
    checkBalances(balances, Number(row.balances));
    return String(row.id);
  }

  async findFill(sql: SqlExecutor, rfqId: string): Promise<FillRecord | null> {
    const rows: FillRow[] = await sql.query(`SELECT ${FILL_COLUMNS} FROM fills WHERE rfq_id = $1`, [rfqId]);
    if (rows.length === 0) return null;
    return toFill(rows[0], (await this.fillLegs(sql, [rows[0].id])).get(String(rows[0].id)) ?? []);
  }

  async markReverted(m: EntityManager, fillId: string, at: number): Promise<void> {
    const rows = await sqlRows(m, `UPDATE fills SET reverted = true, reverted_at = $2 WHERE id = $1 AND NOT reverted RETURNING id`, [fillId, at]);
    if (rows.length !== 1) throw new Error(`fill ${fillId} is reverted already`);
  }

  /** Fill legs by fill id, in leg order, with their instruments' terms. */
  async fillLegs(sql: SqlExecutor, fillIds: readonly string[]): Promise<Map<string, FillLegRecord[]>> {
    const out = new Map<string, FillLegRecord[]>();
    if (fillIds.length === 0) return out;
    const rows: FillLegRow[] = await sql.query(
      `SELECT l.fill_id, l.instrument, i.asset, i.expiry, i.strike, i.kind, l.quantity, l.premium, l.mark
         FROM fill_legs l JOIN instruments i ON i.symbol = l.instrument
        WHERE l.fill_id = ANY($1::bigint[]) ORDER BY l.fill_id, l.leg_index`,
      [fillIds],
    );
    for (const r of rows) {
      const key = String(r.fill_id);
      const list = out.get(key) ?? [];
      list.push(toFillLeg(r));
      out.set(key, list);
    }
    return out;
  }

  /** An account's fills as taker or maker, newest first, below `before` (a fill id); one more than `limit` when more remain. */
  async fillsOf(accountId: number, before: string | null, limit: number): Promise<FillRecord[]> {
    const rows: FillRow[] = await this.sql.query(
      `SELECT ${FILL_COLUMNS} FROM fills
        WHERE (taker_account_id = $1 OR maker_account_id = $1) AND ($2::bigint IS NULL OR id < $2::bigint)
        ORDER BY id DESC LIMIT $3`,
      [accountId, before, limit + 1],
    );
    const legs = await this.fillLegs(this.sql, rows.map((r) => String(r.id)));
    return rows.map((r) => toFill(r, legs.get(String(r.id)) ?? []));
  }

  /** RFQs left accepted or submitting since `updatedBefore` (unix seconds) or earlier, oldest first. */
  async stuckFills(updatedBefore: number, limit: number): Promise<Array<{ id: string; updatedAt: number }>> {
    const rows: Array<{ id: string; updated_at: string }> = await this.sql.query(
      `SELECT id, updated_at FROM rfqs WHERE state IN ('accepted', 'submitting') AND updated_at <= $1 ORDER BY updated_at LIMIT $2`,
      [updatedBefore, limit],
    );
    return rows.map((r) => ({ id: r.id, updatedAt: Number(r.updated_at) }));
  }

  /** Unsettled expiration rounds whose expiry has come, earliest first. */
  async dueRounds(now: number, limit: number): Promise<Array<{ asset: string; expiry: number }>> {
    const rows: Array<{ asset: string; expiry: string }> = await this.sql.query(
      `SELECT asset, expiry FROM expirations WHERE NOT settled AND expiry <= $1 ORDER BY expiry, asset LIMIT $2`,
      [now, limit],
    );
    return rows.map((r) => ({ asset: r.asset, expiry: Number(r.expiry) }));
  }

  /** Pending and quoted RFQs on a round (they expire when it settles). */
  async openRfqsOfRound(asset: string, expiry: number): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.sql.query(
      `SELECT id FROM rfqs WHERE asset = $1 AND expiry = $2 AND state IN ('pending', 'quoted') ORDER BY id`,
      [asset, expiry],
    );
    return rows.map((r) => r.id);
  }
}
