import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Database } from '../../common/database/database';
import { type SqlExecutor, sqlRows } from '../../common/database/sql';
import type { OptionKind } from '../instruments/domain/symbol';
import type { RfqState } from '../rfq/domain/rfq-state';
import type { AccountBook, LedgerRow } from './domain/fill-check';
import type { PositionDelta } from './domain/fold';
import type { AcceptSide } from './domain/funding';
import type { LockPosition } from './domain/lock';

type IsolationLevel = 'READ COMMITTED' | 'REPEATABLE READ' | 'SERIALIZABLE';

/** An open (unsettled) position with its instrument. */
export interface HeldPosition extends LockPosition {
  instrument: string;
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
      `SELECT p.account_id, p.instrument, i.asset, i.expiry, i.strike, i.kind, p.quantity
         FROM positions p JOIN instruments i ON i.symbol = p.instrument
        WHERE p.account_id = ANY($1::bigint[]) AND NOT p.settled AND p.quantity <> 0
        ORDER BY p.account_id, p.instrument`,
      [accountIds.map(String)],
    );
    for (const r of rows) {
      out.get(Number(r.account_id))!.push({
        instrument: r.instrument, asset: r.asset, expiry: Number(r.expiry), strike: BigInt(r.strike), kind: r.kind, quantity: BigInt(r.quantity),
      });
    }
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

  /** Balance rows and open positions of the accounts, read once (one REPEATABLE READ snapshot). */
  frozenBooks(accountIds: readonly number[]): Promise<Map<number, AccountBook>> {
    return this.transaction(async (m) => {
      const balances = await this.balances(m, accountIds);
      const positions = await this.openPositions(m, accountIds);
      return new Map(accountIds.map((id) => [id, { balance: balances.get(id) ?? null, positions: positions.get(id) ?? [] }]));
    }, 'REPEATABLE READ');
  }

  /** Creates the ledger row of an account that has none (the fee account's first fee). */
  async ensureLedgerRow(m: EntityManager, accountId: number): Promise<void> {
    await m.query(`INSERT INTO balances (account_id) VALUES ($1) ON CONFLICT (account_id) DO NOTHING`, [accountId]);
  }

  async setBalance(m: EntityManager, accountId: number, row: LedgerRow): Promise<void> {
    const updated = await sqlRows(m, `UPDATE balances SET total = $2, locked = $3, updated_at = now() WHERE account_id = $1 RETURNING account_id`, [
      accountId, row.total.toString(), row.locked.toString(),
    ]);
    if (updated.length !== 1) throw new Error(`account ${accountId} has no ledger row`);
  }

  /** Adds the deltas to the account's positions (legs of one RFQ are distinct instruments). */
  async foldPositions(m: EntityManager, accountId: number, deltas: readonly PositionDelta[]): Promise<void> {
    if (deltas.length === 0) return;
    await m.query(
      `INSERT INTO positions (account_id, instrument, quantity, updated_at)
       SELECT $1, t.instrument, t.quantity, now() FROM unnest($2::text[], $3::bigint[]) AS t(instrument, quantity)
       ON CONFLICT (account_id, instrument) DO UPDATE SET quantity = positions.quantity + EXCLUDED.quantity, updated_at = now()`,
      [accountId, deltas.map((d) => d.instrument), deltas.map((d) => d.quantity.toString())],
    );
  }

  /** Locks an RFQ's row for the caller's transaction; its state, or null when there is no such RFQ. */
  async lockRfq(m: EntityManager, rfqId: string): Promise<RfqState | null> {
    const rows: Array<{ state: RfqState }> = await m.query(`SELECT state FROM rfqs WHERE id = $1 FOR UPDATE`, [rfqId]);
    return rows[0]?.state ?? null;
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

  async insertAccept(m: EntityManager, a: AcceptRecord): Promise<void> {
    await m.query(
      `INSERT INTO accepts (rfq_id, quote_id, side, fee, max_fee, taker_signature, expires_at, accepted_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [a.rfqId, a.quoteId, a.side, a.fee.toString(), a.maxFee.toString(), a.takerSignature, a.expiresAt, a.acceptedAt],
    );
  }

  async findAccept(sql: SqlExecutor, rfqId: string): Promise<AcceptRecord | null> {
    const rows: any[] = await sql.query(`SELECT rfq_id, quote_id, side, fee, max_fee, taker_signature, expires_at, accepted_at FROM accepts WHERE rfq_id = $1`, [rfqId]);
    if (rows.length === 0) return null;
    const r = rows[0];
    return {
      rfqId: r.rfq_id, quoteId: r.quote_id, side: r.side, fee: BigInt(r.fee), maxFee: BigInt(r.max_fee),
      takerSignature: r.taker_signature, expiresAt: Number(r.expires_at), acceptedAt: Number(r.accepted_at),
    };
  }

  /** Writes the fill and its legs; its id. A second fill of one RFQ violates `fills.rfq_id UNIQUE`. */
  async insertFill(m: EntityManager, f: NewFill): Promise<string> {
    const [row]: Array<{ id: string }> = await m.query(
      `INSERT INTO fills (rfq_id, quote_id, taker_account_id, maker_account_id, fee_account_id, side, price, fee, filled_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
      [f.rfqId, f.quoteId, f.takerAccountId, f.makerAccountId, f.feeAccountId, f.side, f.price.toString(), f.fee.toString(), f.filledAt],
    );
    await m.query(
      `INSERT INTO fill_legs (fill_id, leg_index, instrument, quantity, premium, mark)
       SELECT $1, t.i - 1, t.instrument, t.quantity, t.premium, t.mark
         FROM unnest($2::text[], $3::bigint[], $4::bigint[], $5::bigint[]) WITH ORDINALITY AS t(instrument, quantity, premium, mark, i)`,
      [
        row.id,
        f.legs.map((l) => l.instrument),
        f.legs.map((l) => l.quantity.toString()),
        f.legs.map((l) => l.premium.toString()),
        f.legs.map((l) => l.mark.toString()),
      ],
    );
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
