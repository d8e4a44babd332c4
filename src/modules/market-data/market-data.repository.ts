import { Injectable } from '@nestjs/common';
import { Database } from '../../common/database/database';
import { httpDecimalSql, isoTimeSql } from '../../common/database/http-format.sql';
import type { Sql, Tx } from '../../common/database/sql';
import type { Row } from '../../common/database/table';
import type { Stamped } from './domain/market-update';

/** A stored value under the aliases `key` (asset or symbol) and `value` (index price or IV), with its time. */
type Keyed = { key: string; value: string };
type IndexRow = Keyed & Row<'index_prices', 'updated_at'>;
type IvRow = Keyed & Row<'instrument_ivs', 'updated_at'>;

const stamp = (row: IndexRow | IvRow): Stamped => ({ value: BigInt(row.value), updatedAt: Math.floor(new Date(row.updated_at).getTime() / 1000) });

/** An index price in the HTTP output forms, with the unix time of its update (the console's read). */
export type IndexPriceAge = Row<'index_prices', 'asset'> & {
  /** HTTP form, 8 decimal places */
  index_price: string;
  /** ISO 8601 */
  updated_at: string;
  /** unix seconds, fractional */
  epoch: number;
};

/**
 * The market-data module's statements over `index_prices` and `instrument_ivs`. A write received
 * earlier never replaces one received later (several instances, one table): every upsert keeps
 * the row with the later `updated_at`.
 */
@Injectable()
export class MarketDataRepository {
  constructor(private readonly db: Database) {}

  async upsertIndex(asset: string, price: bigint, at: Date, tx: Tx): Promise<void> {
    await tx.exec(
      `INSERT INTO index_prices (asset, index_price, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (asset) DO UPDATE SET index_price = EXCLUDED.index_price, updated_at = EXCLUDED.updated_at
       WHERE index_prices.updated_at <= EXCLUDED.updated_at`,
      [asset, price.toString(), at],
    );
  }

  /** Sets the IV of each symbol (a listed instrument); the symbols whose row took the new value. */
  async upsertIvs(ivs: ReadonlyMap<string, bigint>, at: Date, tx: Tx): Promise<string[]> {
    if (ivs.size === 0) return [];
    const symbols = [...ivs.keys()];
    const rows = await tx.rows<Row<'instrument_ivs', 'symbol'>>(
      `INSERT INTO instrument_ivs (symbol, iv, updated_at) SELECT t.symbol, t.iv, $3 FROM unnest($1::text[], $2::bigint[]) AS t(symbol, iv)
       ON CONFLICT (symbol) DO UPDATE SET iv = EXCLUDED.iv, updated_at = EXCLUDED.updated_at
       WHERE instrument_ivs.updated_at <= EXCLUDED.updated_at RETURNING symbol`,
      [symbols, symbols.map((s) => ivs.get(s)!.toString()), at],
    );
    return rows.map((r) => r.symbol);
  }

  /** asset → index price: every asset's, or one asset's. */
  async indexes(asset: string | null, sql: Sql = this.db): Promise<Map<string, Stamped>> {
    const rows = await sql.rows<IndexRow>(
      `SELECT asset AS key, index_price AS value, updated_at FROM index_prices WHERE $1::text IS NULL OR asset = $1::text`,
      [asset],
    );
    return new Map(rows.map((r) => [r.key, stamp(r)]));
  }

  /** The asset's stored index price and its time, or null (read in the caller's transaction: the settlement's price). */
  async indexOf(asset: string, sql: Sql = this.db): Promise<{ price: bigint; updatedAt: Date } | null> {
    const row = await sql.one<Row<'index_prices', 'index_price' | 'updated_at'>>(`SELECT index_price, updated_at FROM index_prices WHERE asset = $1`, [asset]);
    return row && { price: BigInt(row.index_price), updatedAt: row.updated_at };
  }

  /** symbol → IV: every instrument's, or those of `symbols` only. */
  async ivs(symbols: readonly string[] | null, sql: Sql = this.db): Promise<Map<string, Stamped>> {
    const rows = await sql.rows<IvRow>(
      `SELECT symbol AS key, iv AS value, updated_at FROM instrument_ivs WHERE $1::text[] IS NULL OR symbol = ANY($1::text[])`,
      [symbols],
    );
    return new Map(rows.map((r) => [r.key, stamp(r)]));
  }

  /** Every asset's index price in the HTTP output forms, by asset (formatted by PostgreSQL). */
  indexAges(sql: Sql = this.db): Promise<IndexPriceAge[]> {
    return sql.rows<IndexPriceAge>(
      `SELECT asset, ${httpDecimalSql('index_price')} AS index_price, ${isoTimeSql('updated_at')} AS updated_at, extract(epoch FROM updated_at)::float8 AS epoch
         FROM index_prices ORDER BY asset`,
    );
  }
}
