import { Injectable } from '@nestjs/common';
import { Database } from '../../common/database/database';
import type { Sql, Tx } from '../../common/database/sql';
import { type Maybe, type Narrow, type Row, type RowOf, columnList } from '../../common/database/table';
import type { OptionKind } from '../instruments/domain/symbol';
import type { RfqState } from '../rfq/domain/rfq-state';
import { type BalanceWrite, balancesUpdate, checkBalances } from './balance.repository';
import { INDEX_SHARE, parseIndexShare } from './collateral.sql';
import { FLAT, type PositionCost, addTrade } from './domain/average-price';
import { orientation } from './domain/fold';
import type { AcceptSide } from './domain/funding';
import { type InstrumentTermsRow, type PositionWrite, checkPositions, positionKey, positionsUpsert } from './position.repository';
import { Params } from './statement-params';

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
  /** The fill's taker salt (docs/spec/design.md 16); null for a fill whose receipt is version 1. */
  takerSalt: Buffer | null;
  legs: FillLegRecord[];
}

export type NewFill = Omit<FillRecord, 'fillId' | 'reverted' | 'legs' | 'takerSalt'> & {
  legs: Array<Pick<FillLegRecord, 'instrument' | 'quantity' | 'premium' | 'mark'>>;
  /** The salt its receipt commits to the taker with (FillService draws it). */
  takerSalt?: Buffer | null;
};

/** What the fill's first read locks and answers (FillRepository.lockForFill). */
interface FillLocks {
  state: RfqState;
  accept: AcceptRecord | null;
  /** the symbols among the legs' that have settled */
  settled: string[];
  /** every index price, share-locked */
  indexes: Map<string, bigint>;
  /** whether the quote's maker has a limits row (else the fill has no protection to update after it) */
  makerLimits: boolean;
}

const ACCEPT_NAMES = ['rfq_id', 'quote_id', 'side', 'fee', 'max_fee', 'taker_signature', 'expires_at', 'accepted_at'] as const;
const ACCEPT = columnList('accepts', ACCEPT_NAMES);
/** ACCEPT of `accepts a`, the outer side of the fill's first read. */
const JOINED_ACCEPT = columnList('accepts', ACCEPT_NAMES, 'a');
type AcceptRow = Narrow<RowOf<typeof ACCEPT>, { side: AcceptSide }>;

/** Whether the accepts side of `rfqs LEFT JOIN accepts` matched: its key is set only then, and every column with it. */
const accepted = <R extends Maybe<AcceptRow>>(row: R): row is R & AcceptRow => row.rfq_id !== null;

const FILL = columnList('fills', [
  'id',
  'rfq_id',
  'quote_id',
  'taker_account_id',
  'maker_account_id',
  'fee_account_id',
  'side',
  'price',
  'fee',
  'filled_at',
  'reverted',
  'taker_salt',
]);
type FillRow = Narrow<RowOf<typeof FILL>, { side: AcceptSide }>;

/** A leg with its instrument's terms (`fill_legs l JOIN instruments i`). */
type FillLegRow = Row<'fill_legs', 'fill_id' | 'instrument' | 'quantity' | 'premium' | 'mark'> & InstrumentTermsRow;

const toAccept = (r: AcceptRow): AcceptRecord => ({
  rfqId: r.rfq_id,
  quoteId: r.quote_id,
  side: r.side,
  fee: BigInt(r.fee),
  maxFee: BigInt(r.max_fee),
  takerSignature: r.taker_signature,
  expiresAt: Number(r.expires_at),
  acceptedAt: Number(r.accepted_at),
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
  takerSalt: row.taker_salt === null ? null : Buffer.from(row.taker_salt),
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

/** The cursor of a first page: above every fill id (bigint's maximum). */
const NO_CURSOR = '9223372036854775807';

/**
 * The fill ledger's history: `accepts` (read here; its row is written by the move quoted →
 * accepted, RfqTransitionsService.moveToAccepted), `fills` and `fill_legs`. A fill's write is one
 * statement over fills, legs, positions and balance rows (`record`).
 */
@Injectable()
export class FillRepository {
  constructor(private readonly db: Database) {}

  /** The RFQ's accept as stored, or null when it was never accepted. */
  async acceptOf(rfqId: string, sql: Sql = this.db): Promise<AcceptRecord | null> {
    const row = await sql.one<AcceptRow>(`SELECT ${ACCEPT.sql} FROM accepts WHERE rfq_id = $1`, [rfqId]);
    return row && toAccept(row);
  }

  /**
   * The fill's first read, one round trip: locks the RFQ's row (its state), reads its accept (null
   * when it has none), share-locks its instruments (the symbols that have settled) and every index
   * price row (the locks are computed at those prices: collateral.sql.ts). Null when there is no
   * such RFQ. It reads other modules' tables (`rfqs`, `instruments`, `index_prices`) on purpose:
   * the fill takes its locks in one fixed order, in one statement, inside the transaction that
   * holds them (a round trip per lock would lengthen every fill's hold on those rows); and whether
   * the maker has a `maker_limits` row, so that a fill of a maker without limits reads it no more.
   */
  async lockForFill(tx: Tx, rfqId: string, symbols: readonly string[]): Promise<FillLocks | null> {
    const row = await tx.one<
      Narrow<Row<'rfqs', 'state'>, { state: RfqState }> & Maybe<AcceptRow> & { settled: string[] | string; indexes: unknown; maker_limits: boolean }
    >(
      `SELECT r.state, ${JOINED_ACCEPT.sql},
              EXISTS (SELECT 1 FROM maker_limits ml WHERE ml.account_id = r.maker_account_id) AS maker_limits,
              (SELECT coalesce(array_agg(i.symbol ORDER BY i.symbol) FILTER (WHERE i.settled), '{}')
                 FROM (SELECT symbol, settled FROM instruments WHERE symbol = ANY($2::text[]) ORDER BY symbol FOR SHARE) i) AS settled,
              ${INDEX_SHARE} AS indexes
         FROM rfqs r LEFT JOIN accepts a ON a.rfq_id = r.id
        WHERE r.id = $1
          FOR UPDATE OF r`,
      [rfqId, symbols],
    );
    if (!row) return null;
    const settled = Array.isArray(row.settled) ? row.settled : String(row.settled).replace(/[{}]/g, '').split(',').filter(Boolean);
    const accept = accepted(row) ? toAccept(row) : null;
    return { state: row.state, accept, settled, indexes: parseIndexShare(row.indexes), makerLimits: row.maker_limits };
  }

  /**
   * Everything a fill writes to the ledger, in one statement: the fill and its legs, the position
   * rows of both accounts (checked: each ends at the quantity computed), and the balance rows
   * (taker, maker, fee account). Its id. A second fill of one RFQ violates `fills.rfq_id UNIQUE`.
   */
  async record(tx: Tx, f: NewFill, positions: readonly PositionWrite[], balances: readonly BalanceWrite[]): Promise<string> {
    const p = new Params();
    const row = await tx.one<
      Row<'fills', 'id'> & { legs: string; balances: string; positions: Array<{ account_id: number; instrument: string; quantity: string | number }> }
    >(
      `WITH fill AS (
         INSERT INTO fills (rfq_id, quote_id, taker_account_id, maker_account_id, fee_account_id, side, price, fee, filled_at, taker_salt)
         VALUES (${p.add(f.rfqId)}, ${p.add(f.quoteId)}, ${p.add(f.takerAccountId)}, ${p.add(f.makerAccountId)}, ${p.add(f.feeAccountId)}, ${p.add(f.side)},
                 ${p.add(f.price.toString())}, ${p.add(f.fee.toString())}, ${p.add(f.filledAt)}, ${p.add(f.takerSalt ?? null)})
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
    if (!row) throw new Error('the fill statement answered no row');
    if (Number(row.legs) !== f.legs.length) throw new Error(`${row.legs} fill legs written of ${f.legs.length}`);
    checkPositions(positions, row.positions);
    checkBalances(balances, Number(row.balances));
    return String(row.id);
  }

  async findByRfq(sql: Sql, rfqId: string): Promise<FillRecord | null> {
    const row = await sql.one<FillRow>(`SELECT ${FILL.sql} FROM fills WHERE rfq_id = $1`, [rfqId]);
    if (!row) return null;
    return toFill(row, (await this.legsOf(sql, [row.id])).get(String(row.id)) ?? []);
  }

  /**
   * Marks the fill reverted; throws when it is already. A fill whose receipt is version 1 has no
   * salt: it takes `takerSalt`, which its revert's (version 2) receipt commits with.
   */
  async markReverted(tx: Tx, fillId: string, at: number, takerSalt: Buffer | null = null): Promise<void> {
    const updated = await tx.exec(`UPDATE fills SET reverted = true, reverted_at = $2, taker_salt = coalesce(taker_salt, $3) WHERE id = $1 AND NOT reverted`, [
      fillId,
      at,
      takerSalt,
    ]);
    if (updated !== 1) throw new Error(`fill ${fillId} is reverted already`);
  }

  /** Fill legs by fill id, in leg order, with their instruments' terms. */
  async legsOf(sql: Sql, fillIds: readonly string[]): Promise<Map<string, FillLegRecord[]>> {
    const out = new Map<string, FillLegRecord[]>();
    if (fillIds.length === 0) return out;
    const rows = await sql.rows<FillLegRow>(
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

  /**
   * An account's fills as taker or maker, newest first, below `before` (a fill id); one more than
   * `limit` when more remain. Each side is read on its own index (fills_taker, fills_maker) from
   * the cursor down, at most a page each, and the two pages are merged: with one OR predicate
   * the planner walked the primary key past every other account's fills, or sorted all of this
   * account's, so a page cost more as the exchange got older.
   */
  async ofAccount(accountId: number, before: string | null, limit: number): Promise<FillRecord[]> {
    const rows = await this.db.rows<FillRow>(
      `SELECT ${FILL.sql} FROM (
         (SELECT ${FILL.sql} FROM fills WHERE taker_account_id = $1 AND id < $2::bigint ORDER BY id DESC LIMIT $3)
         UNION ALL
         (SELECT ${FILL.sql} FROM fills WHERE maker_account_id = $1 AND taker_account_id <> $1 AND id < $2::bigint ORDER BY id DESC LIMIT $3)
       ) page ORDER BY id DESC LIMIT $3`,
      [accountId, before ?? NO_CURSOR, limit + 1],
    );
    const legs = await this.legsOf(
      this.db,
      rows.map((r) => String(r.id)),
    );
    return rows.map((r) => toFill(r, legs.get(String(r.id)) ?? []));
  }

  /**
   * The positions of the accounts in the instruments as the fills that are not reverted make them,
   * replayed in fill order (a revert's new averages). Absent: flat.
   */
  async replayPositions(sql: Sql, accountIds: readonly number[], instruments: readonly string[]): Promise<Map<string, PositionCost>> {
    const trades = await sql.rows<
      Row<'fill_legs', 'instrument' | 'quantity' | 'premium'> &
        Narrow<Row<'fills', 'side'>, { side: AcceptSide }> & { account_id: string; role: 'taker' | 'maker' }
    >(
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
}
