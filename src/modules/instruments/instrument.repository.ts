import { Injectable } from '@nestjs/common';
import { Database } from '../../common/database/database';
import type { Sql, Tx } from '../../common/database/sql';
import { type Narrow, type Row, type RowOf, columnList } from '../../common/database/table';
import type { OptionKind } from './domain/symbol';
import type { Instrument, Round } from './instrument';

const NAMES = ['symbol', 'asset', 'strike', 'kind', 'expiry', 'paused', 'settled', 'settlement_price', 'created_at'] as const;
const COLUMNS = columnList('instruments', NAMES);
type InstrumentRow = Narrow<RowOf<typeof COLUMNS>, { kind: OptionKind }>;
/** COLUMNS of `instruments i`, with the settlement time of its round `expirations e`. */
const JOINED = `${columnList('instruments', NAMES, 'i').sql},
  extract(epoch FROM e.settled_at)::float8 AS settled_epoch`;
/** A row of JOINED: `settled_epoch` in unix seconds, null while the round is open. */
type JoinedRow = InstrumentRow & { settled_epoch: number | null };
const ROUND_JOIN = 'instruments i JOIN expirations e ON e.asset = i.asset AND e.expiry = i.expiry';

/** An instrument from its row; with its round's settlement time when the statement read it (JOINED). */
const toInstrument = (row: InstrumentRow & { settled_epoch?: number | null }): Instrument => ({
  symbol: row.symbol,
  asset: row.asset,
  strike: BigInt(row.strike),
  kind: row.kind,
  expiry: Number(row.expiry),
  paused: row.paused,
  settled: row.settled,
  settlementPrice: row.settlement_price === null ? null : BigInt(row.settlement_price),
  createdAt: Math.floor(new Date(row.created_at).getTime() / 1000),
  ...(row.settled_epoch === undefined ? {} : { settledAt: row.settled_epoch === null ? null : Math.floor(row.settled_epoch) }),
});

/**
 * Advisory-lock key namespace of an expiration round ("LWIN" << 32 | expiry): creates, pauses and
 * resumes at one expiration run one after the other, whatever their asset, so a creation never
 * misses a pause committed beside it (the round is the expiration: docs/decisions.md).
 */
const ROUND_LOCK_NAMESPACE = 0x4c57494en << 32n;

/** An instrument to list: its symbol and terms. */
interface NewInstrument {
  symbol: string;
  strike: bigint;
  kind: OptionKind;
}

/** An expiration round as its settlement reads it (locked). */
export interface RoundSettlementState {
  settled: boolean;
  settlementPrice: bigint | null;
  settledAt: Date | null;
}

/** An instrument's terms, as a settlement pays them. */
export interface InstrumentTerms {
  symbol: string;
  kind: OptionKind;
  strike: bigint;
}

/** The expiration round of an asset on a UTC date, as stored. */
interface StoredExpiration {
  expiry: number;
  settled: boolean;
}

/**
 * The instruments module's statements over `instruments` and `expirations`. Each method runs on
 * the pool, or on the `Sql` of the caller's transaction; the writes of a round run inside
 * `lockRound` of that transaction.
 */
@Injectable()
export class InstrumentRepository {
  constructor(private readonly db: Database) {}

  /** Holds the round's advisory lock until the caller's transaction ends. */
  async lockRound(expiry: number, tx: Tx): Promise<void> {
    await tx.rows('SELECT pg_advisory_xact_lock($1::bigint)', [(ROUND_LOCK_NAMESPACE | BigInt(expiry)).toString()]);
  }

  /** Stores the asset's expiration round; false when the asset has it, or another round that day, already. */
  async insertExpiration(asset: string, expiry: number, utcDate: string, tx: Tx): Promise<boolean> {
    const inserted = await tx.rows(`INSERT INTO expirations (asset, expiry, utc_date) VALUES ($1, $2, $3::date) ON CONFLICT DO NOTHING RETURNING asset`, [
      asset,
      expiry,
      utcDate,
    ]);
    return inserted.length > 0;
  }

  /** The asset's expiration round on the UTC date, or null. */
  async expirationOn(asset: string, utcDate: string, sql: Sql = this.db): Promise<StoredExpiration | null> {
    const row = await sql.one<Row<'expirations', 'expiry' | 'settled'>>(`SELECT expiry, settled FROM expirations WHERE asset = $1 AND utc_date = $2::date`, [
      asset,
      utcDate,
    ]);
    return row && { expiry: Number(row.expiry), settled: row.settled };
  }

  /** Whether any instrument at the expiry is paused (a round is paused as a whole). */
  async roundPaused(expiry: number, sql: Sql = this.db): Promise<boolean> {
    const row = await sql.one<{ paused: boolean }>(`SELECT EXISTS (SELECT 1 FROM instruments WHERE expiry = $1 AND paused) AS paused`, [expiry]);
    return row!.paused;
  }

  /** Lists the instruments of the round that are not listed yet; how many were new. */
  async insertMissing(asset: string, expiry: number, paused: boolean, instruments: readonly NewInstrument[], tx: Tx): Promise<number> {
    const rows = await tx.rows(
      `INSERT INTO instruments (symbol, asset, strike, kind, expiry, paused)
       SELECT t.symbol, $1, t.strike, t.kind, $2, $3
         FROM unnest($4::text[], $5::bigint[], $6::text[]) AS t(symbol, strike, kind)
       ON CONFLICT DO NOTHING RETURNING symbol`,
      [asset, expiry, paused, instruments.map((i) => i.symbol), instruments.map((i) => i.strike.toString()), instruments.map((i) => i.kind)],
    );
    return rows.length;
  }

  /** Sets `paused` on every instrument of the round; how many it holds. */
  setPaused(round: Round, paused: boolean, tx: Tx): Promise<number> {
    return tx.exec(`UPDATE instruments SET paused = $1 WHERE expiry = $2 AND ($3::text IS NULL OR asset = $3::text)`, [paused, round.expiry, round.asset]);
  }

  /**
   * The instruments an instance holds (docs/spec/design.md section 17): those of open rounds and of
   * rounds settled after `heldSince` (unix seconds); every such instrument, or those of one round.
   * The rounds are found on `expirations_unsettled` and `expirations_settled_at`, their instruments
   * on `instruments_expiry`: the rounds settled before are never read.
   */
  async held(round: Round | null, heldSince: number, sql: Sql = this.db): Promise<Instrument[]> {
    const rows =
      round === null
        ? await sql.rows<JoinedRow>(
            `SELECT ${JOINED} FROM ${ROUND_JOIN} WHERE NOT e.settled
             UNION ALL
             SELECT ${JOINED} FROM ${ROUND_JOIN} WHERE e.settled AND e.settled_at > to_timestamp($1)`,
            [heldSince],
          )
        : await sql.rows<JoinedRow>(
            `SELECT ${JOINED} FROM ${ROUND_JOIN}
              WHERE i.expiry = $1 AND ($2::text IS NULL OR i.asset = $2::text) AND (NOT e.settled OR e.settled_at > to_timestamp($3))`,
            [round.expiry, round.asset, heldSince],
          );
    return rows.map(toInstrument);
  }

  /**
   * Instruments of rounds settled at or before `settledBy` (unix seconds: those no instance holds),
   * at most `limit`, for a listing with `include_settled`. In listing order (asset, expiry, strike,
   * kind) read on `instruments_asset_expiry_strike_kind_key`, except with an expiry and no asset:
   * then one expiration's instruments on `instruments_expiry`, in no order (the caller sorts them).
   */
  async settledBefore(filter: { asset?: string; expiry?: number }, settledBy: number, limit: number, sql: Sql = this.db): Promise<Instrument[]> {
    const params: unknown[] = [settledBy, limit];
    const where = ['e.settled', 'e.settled_at <= to_timestamp($1)'];
    if (filter.asset !== undefined) where.push(`i.asset = $${params.push(filter.asset)}`);
    if (filter.expiry !== undefined) where.push(`i.expiry = $${params.push(filter.expiry)}`);
    const order = filter.expiry !== undefined && filter.asset === undefined ? '' : 'ORDER BY i.asset, i.expiry, i.strike, i.kind';
    const rows = await sql.rows<JoinedRow>(`SELECT ${JOINED} FROM ${ROUND_JOIN} WHERE ${where.join(' AND ')} ${order} LIMIT $2`, params);
    return rows.map(toInstrument);
  }

  /** The listed instruments among `symbols`, settled ones included (by primary key). */
  async stored(symbols: readonly string[], sql: Sql = this.db): Promise<Instrument[]> {
    const rows = await sql.rows<InstrumentRow>(`SELECT ${COLUMNS.sql} FROM instruments WHERE symbol = ANY($1::text[])`, [symbols]);
    return rows.map(toInstrument);
  }

  /** Whether any instrument of the asset is listed (settled ones included). */
  async assetListed(asset: string, sql: Sql = this.db): Promise<boolean> {
    const row = await sql.one<{ listed: boolean }>(`SELECT EXISTS (SELECT 1 FROM instruments WHERE asset = $1) AS listed`, [asset]);
    return row!.listed;
  }

  /** symbol → asset of the listed instruments among `symbols`. */
  async assetsOf(symbols: readonly string[], sql: Sql = this.db): Promise<Map<string, string>> {
    const rows = await sql.rows<Row<'instruments', 'symbol' | 'asset'>>(`SELECT symbol, asset FROM instruments WHERE symbol = ANY($1::text[])`, [symbols]);
    return new Map(rows.map((r) => [r.symbol, r.asset]));
  }

  /**
   * The symbols of the asset's (null: every asset's) open instruments, or of those an instance holds (open, or of a
   * round settled after `heldSince`): read through the asset's rounds, never its whole history.
   */
  async symbols(asset: string | null, heldSince: number | null, sql: Sql = this.db): Promise<string[]> {
    const rows = await sql.rows<Row<'instruments', 'symbol'>>(
      `SELECT i.symbol FROM ${ROUND_JOIN} WHERE ($1::text IS NULL OR e.asset = $1::text) AND NOT e.settled AND ($2::float8 IS NOT NULL OR NOT i.settled)
       UNION ALL
       SELECT i.symbol FROM ${ROUND_JOIN}
        WHERE ($1::text IS NULL OR e.asset = $1::text) AND $2::float8 IS NOT NULL AND e.settled AND e.settled_at > to_timestamp($2::float8)`,
      [asset, heldSince],
    );
    return rows.map((r) => r.symbol);
  }

  // The settlement's statements (the ledger's SettlementService runs them in its transaction,
  // through InstrumentsService): the round, then its instruments, are locked before any balance row.

  /** The round, locked until the caller's transaction ends; null when there is no such round. */
  async lockExpiration(asset: string, expiry: number, tx: Tx): Promise<RoundSettlementState | null> {
    const row = await tx.one<Row<'expirations', 'settled' | 'settlement_price' | 'settled_at'>>(
      `SELECT settled, settlement_price, settled_at FROM expirations WHERE asset = $1 AND expiry = $2 FOR UPDATE`,
      [asset, expiry],
    );
    return row && { settled: row.settled, settlementPrice: row.settlement_price === null ? null : BigInt(row.settlement_price), settledAt: row.settled_at };
  }

  /** The round's instruments, locked (fills share-lock them before balance rows), in symbol order. */
  async lockTerms(asset: string, expiry: number, tx: Tx): Promise<InstrumentTerms[]> {
    const rows = await tx.rows<Narrow<Row<'instruments', 'symbol' | 'kind' | 'strike'>, { kind: OptionKind }>>(
      `SELECT symbol, kind, strike FROM instruments WHERE asset = $1 AND expiry = $2 ORDER BY symbol FOR UPDATE`,
      [asset, expiry],
    );
    return rows.map((r) => ({ symbol: r.symbol, kind: r.kind, strike: BigInt(r.strike) }));
  }

  /** Share-locks the instruments (a settlement of their round waits, and is waited for); the symbols that have settled. */
  async settledAmong(symbols: readonly string[], sql: Sql): Promise<string[]> {
    const rows = await sql.rows<Row<'instruments', 'symbol' | 'settled'>>(
      `SELECT symbol, settled FROM instruments WHERE symbol = ANY($1::text[]) ORDER BY symbol FOR SHARE`,
      [symbols],
    );
    return rows.filter((r) => r.settled).map((r) => r.symbol);
  }

  /** Marks the round and its instruments settled at `price`; when the round settled. */
  async markSettled(asset: string, expiry: number, price: bigint, tx: Tx): Promise<Date> {
    await tx.exec(`UPDATE instruments SET settled = true, settlement_price = $3 WHERE asset = $1 AND expiry = $2`, [asset, expiry, price.toString()]);
    const row = await tx.one<Row<'expirations', 'settled_at'>>(
      `UPDATE expirations SET settled = true, settlement_price = $3, settled_at = now() WHERE asset = $1 AND expiry = $2 RETURNING settled_at`,
      [asset, expiry, price.toString()],
    );
    if (!row) throw new Error(`no expiration ${expiry} of ${asset}`);
    // The column is null until a settlement: this statement has just set it.
    if (row.settled_at === null) throw new Error(`expiration ${expiry} of ${asset} answered no settlement time`);
    return row.settled_at;
  }

  /** Unsettled expiration rounds whose expiry has come (unix seconds `now`), earliest first. */
  async dueRounds(now: number, limit: number, sql: Sql = this.db): Promise<Array<{ asset: string; expiry: number }>> {
    const rows = await sql.rows<Row<'expirations', 'asset' | 'expiry'>>(
      `SELECT asset, expiry FROM expirations WHERE NOT settled AND expiry <= $1 ORDER BY expiry, asset LIMIT $2`,
      [now, limit],
    );
    return rows.map((r) => ({ asset: r.asset, expiry: Number(r.expiry) }));
  }
}
