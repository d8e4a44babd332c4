import { Injectable } from '@nestjs/common';
import type { RfqPositionRow } from '@legwork/protocol';
import { Database } from '../../common/database/database';
import { JsonText } from '../../common/rpc/json-text';
import { httpDecimalSql, isoTimeSql } from '../../common/database/http-format.sql';
import type { Sql, Tx } from '../../common/database/sql';
import type { Narrow, Row } from '../../common/database/table';
import type { OptionKind } from '../instruments/domain/symbol';
import { type PositionCost, type Ratio, roundedAverage } from './domain/average-price';
import type { AccountBook } from './domain/fill-check';
import type { LockPosition } from './domain/lock';
import { Params } from './statement-params';

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

export type PositionStatus = 'open' | 'settled' | 'all';

/** A row of GET /query/rfq-positions (docs/spec/design.md section 8): the contract's. */
export type { RfqPositionRow };

/** An instrument's terms as the ledger reads them with a position or a fill leg (`JOIN instruments i`). */
export type InstrumentTermsRow = Narrow<Row<'instruments', 'asset' | 'expiry' | 'strike' | 'kind'>, { kind: OptionKind }>;

/** A position with its instrument's terms (`positions p JOIN instruments i`). */
type PositionRow = Row<'positions', 'account_id' | 'instrument' | 'quantity' | 'avg_num' | 'avg_den'> & InstrumentTermsRow;

/** A position's account, instrument and quantity (the upsert's RETURNING, heldIn's read). */
type PositionQuantity = Row<'positions', 'account_id' | 'instrument' | 'quantity'>;

/** The key of a position in maps: account and instrument. */
export const positionKey = (accountId: number, instrument: string) => `${accountId} ${instrument}`;

function toHeldPosition(r: PositionRow): HeldPosition {
  return {
    instrument: r.instrument,
    asset: r.asset,
    expiry: Number(r.expiry),
    strike: BigInt(r.strike),
    kind: r.kind,
    quantity: BigInt(r.quantity),
    average: r.avg_num === null || r.avg_den === null ? null : { n: BigInt(r.avg_num), d: BigInt(r.avg_den) },
  };
}

/**
 * The upsert of position rows (one statement for any number of accounts and instruments, also the
 * fill's own statement: FillRepository.record): adds each delta to the quantity, sets the average
 * cost, and answers every row it wrote with its quantity.
 */
export function positionsUpsert(p: Params, writes: readonly PositionWrite[]): string {
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

/** Throws unless the upsert wrote every position with the quantity the caller computed. */
export function checkPositions(
  writes: readonly PositionWrite[],
  written: ReadonlyArray<{ account_id: string | number; instrument: string; quantity: string | number }>,
): void {
  const got = new Map(written.map((r) => [positionKey(Number(r.account_id), r.instrument), BigInt(r.quantity)]));
  for (const w of writes) {
    const quantity = got.get(positionKey(w.accountId, w.instrument));
    if (quantity !== w.position.quantity) {
      throw new Error(
        `position of account ${w.accountId} in ${w.instrument} is ${quantity} after the write, not ${w.position.quantity}: it changed under the ledger's locks`,
      );
    }
  }
}

/**
 * The position rows (`positions`): every read and write of them. Positions are read with their
 * instruments' terms, joined from `instruments` (the instruments module's, read only: a position
 * is priced and locked by those terms, and one read is one snapshot).
 */
@Injectable()
export class PositionRepository {
  constructor(private readonly db: Database) {}

  /** Open (unsettled) non-zero positions of the accounts, with their instruments' terms. */
  async openOf(sql: Sql, accountIds: readonly number[]): Promise<Map<number, HeldPosition[]>> {
    const out = new Map<number, HeldPosition[]>(accountIds.map((id) => [id, []]));
    if (accountIds.length === 0) return out;
    const rows = await sql.rows<PositionRow>(
      `SELECT p.account_id, p.instrument, i.asset, i.expiry, i.strike, i.kind, p.quantity, p.avg_num, p.avg_den
         FROM positions p JOIN instruments i ON i.symbol = p.instrument
        WHERE p.account_id = ANY($1::bigint[]) AND NOT p.settled AND p.quantity <> 0
        ORDER BY p.account_id, p.instrument`,
      [accountIds.map(String)],
    );
    for (const r of rows) out.get(Number(r.account_id))!.push(toHeldPosition(r));
    return out;
  }

  /**
   * The books (balance row, open positions) of the accounts, in one statement (one snapshot, one
   * round trip): the frozen view of rfq.accept's funding checks. Every account asked is in the map.
   */
  async books(accountIds: readonly number[]): Promise<Map<number, AccountBook>> {
    // JSON built with every bigint as text: each element has the types of the row it copies.
    const row = await this.db.one<{ balances: Array<Row<'balances', 'account_id' | 'total' | 'locked'>>; positions: PositionRow[] }>(
      `SELECT (SELECT coalesce(json_agg(json_build_object('account_id', b.account_id::text, 'total', b.total::text, 'locked', b.locked::text)), '[]'::json)
                 FROM balances b WHERE b.account_id = ANY($1::bigint[])) AS balances,
              (SELECT coalesce(json_agg(json_build_object('account_id', p.account_id::text, 'instrument', p.instrument, 'asset', i.asset,
                        'expiry', i.expiry::text, 'strike', i.strike::text, 'kind', i.kind, 'quantity', p.quantity::text,
                        'avg_num', p.avg_num::text, 'avg_den', p.avg_den::text) ORDER BY p.instrument), '[]'::json)
                 FROM positions p JOIN instruments i ON i.symbol = p.instrument
                WHERE p.account_id = ANY($1::bigint[]) AND NOT p.settled AND p.quantity <> 0) AS positions`,
      [[...new Set(accountIds)].map(String)],
    );
    const books = new Map<number, AccountBook>(accountIds.map((id) => [id, { balance: null, positions: [] }]));
    for (const b of row?.balances ?? []) books.get(Number(b.account_id))!.balance = { total: BigInt(b.total), locked: BigInt(b.locked) };
    for (const p of row?.positions ?? []) (books.get(Number(p.account_id))!.positions as HeldPosition[]).push(toHeldPosition(p));
    return books;
  }

  /** Writes position rows (a revert's): quantities by delta, checked, and their average cost. */
  async write(tx: Tx, writes: readonly PositionWrite[]): Promise<void> {
    if (writes.length === 0) return;
    const p = new Params();
    checkPositions(writes, await tx.rows<PositionQuantity>(positionsUpsert(p, writes), p.values));
  }

  /** The non-zero open positions in the instruments (a settling round's), in instrument then account order. */
  async heldIn(sql: Sql, instruments: readonly string[]): Promise<Array<{ accountId: number; instrument: string; quantity: bigint }>> {
    const rows = await sql.rows<PositionQuantity>(
      `SELECT account_id, instrument, quantity FROM positions WHERE instrument = ANY($1::text[]) AND NOT settled AND quantity <> 0 ORDER BY instrument, account_id`,
      [instruments],
    );
    return rows.map((r) => ({ accountId: Number(r.account_id), instrument: r.instrument, quantity: BigInt(r.quantity) }));
  }

  /** Marks a position settled with the amount it paid or received. */
  async settleOne(tx: Tx, accountId: number, instrument: string, amount: bigint): Promise<void> {
    await tx.exec(`UPDATE positions SET settled = true, settlement_amount = $3, updated_at = now() WHERE account_id = $1 AND instrument = $2`, [
      accountId,
      instrument,
      amount.toString(),
    ]);
  }

  /** Marks every remaining position in the instruments settled (the flat ones). */
  async settleRest(tx: Tx, instruments: readonly string[]): Promise<void> {
    await tx.exec(`UPDATE positions SET settled = true, updated_at = now() WHERE instrument = ANY($1::text[]) AND NOT settled`, [instruments]);
  }

  /**
   * Non-zero positions by expiry then instrument, with their average price (stored with the
   * position: no replay of fills), as the JSON text of GET /query/rfq-positions' body. One
   * statement: PostgreSQL writes each row (8-dp decimals, ISO time, ids and times as integers) with
   * `row_to_json` and joins them, so Node neither parses the rows nor serializes the body
   * (bench F1a). Its text is what the route's declared serializer writes for the same rows, key
   * order included (test/e2e/positions-text.e2e-spec.ts).
   */
  async responseBody(accountId: number, status: PositionStatus, limit: number): Promise<JsonText<{ rows: RfqPositionRow[] }>> {
    // One status: a range of positions_by_expiry, in its order. `all`: the first `limit` of each
    // status, merged (a sort of at most 2 * limit rows, whatever the account's history).
    const range = (settled: string) =>
      `SELECT p.account_id, p.instrument, i.asset, ${httpDecimalSql('i.strike')} AS strike, i.kind, p.expiry,
              p.settled, ${httpDecimalSql('p.quantity')} AS quantity, ${httpDecimalSql('p.average_price')} AS average_price,
              ${isoTimeSql('p.updated_at')} AS updated_at
         FROM positions p JOIN instruments i ON i.symbol = p.instrument
        WHERE p.account_id = $1 AND p.quantity <> 0 AND p.settled = ${settled}
        ORDER BY p.expiry, p.instrument COLLATE "C"
        LIMIT $2`;
    const rows =
      status === 'all'
        ? `SELECT * FROM ((${range('false')}) UNION ALL (${range('true')})) u ORDER BY u.expiry, u.instrument COLLATE "C" LIMIT $2`
        : range(status === 'settled' ? 'true' : 'false');
    // The aggregate's own ORDER BY: an aggregate is not bound to its input's order.
    const text = `SELECT '{"rows":[' || coalesce(string_agg(row_to_json(r)::text, ',' ORDER BY r.expiry, r.instrument COLLATE "C"), '') || ']}' AS body
                    FROM (${rows}) r`;
    // An aggregate without GROUP BY: exactly one row, whatever the account holds.
    const [{ body }] = await this.db.rows<{ body: string }>(text, [accountId, limit]);
    return new JsonText<{ rows: RfqPositionRow[] }>(body);
  }
}
