import { Injectable } from '@nestjs/common';
import { Database } from '../../common/database/database';
import type { Sql } from '../../common/database/sql';
import type { OptionKind } from '../instruments/domain/symbol';

/**
 * Advisory-lock key of an expiration round: the key instruments.service.ts takes for create, pause
 * and resume ("LWIN" << 32 | expiry), so a settlement and a listing of one round never interleave.
 */
const ROUND_LOCK_NAMESPACE = 0x4c57494en << 32n;

/** An expiration round as settlement reads it (locked). */
interface RoundState {
  settled: boolean;
  settlementPrice: bigint | null;
  settledAt: Date | null;
}

/**
 * Settlement's statements: the payments (`settlement_payments`, the ledger's), and the round's
 * rows it locks and marks settled in the same transaction (`expirations`, `instruments`: the
 * instruments module's; `index_prices`: market data's). Those are written here, not through their
 * modules, because a settlement is one transaction whose lock order (round, instruments, index
 * rows, balance rows) is what keeps it from deadlocking with fills; each statement is a typed
 * method, so no SQL text leaves this file.
 */
@Injectable()
export class SettlementRepository {
  constructor(private readonly db: Database) {}

  /** The round's advisory lock, until the transaction ends. */
  async lockRound(sql: Sql, expiry: number): Promise<void> {
    await sql.rows('SELECT pg_advisory_xact_lock($1::bigint)', [(ROUND_LOCK_NAMESPACE | BigInt(expiry)).toString()]);
  }

  /** The round, locked; null when there is no such round. */
  async lockExpiration(sql: Sql, asset: string, expiry: number): Promise<RoundState | null> {
    const row = await sql.one<{ settled: boolean; settlement_price: string | null; settled_at: Date | null }>(
      `SELECT settled, settlement_price, settled_at FROM expirations WHERE asset = $1 AND expiry = $2 FOR UPDATE`,
      [asset, expiry],
    );
    return row && { settled: row.settled, settlementPrice: row.settlement_price === null ? null : BigInt(row.settlement_price), settledAt: row.settled_at };
  }

  /** How many payments the round made. */
  async paymentCount(sql: Sql, asset: string, expiry: number): Promise<number> {
    const row = await sql.one<{ n: string }>(
      `SELECT count(*) AS n FROM settlement_payments s JOIN instruments i ON i.symbol = s.instrument WHERE i.asset = $1 AND i.expiry = $2`,
      [asset, expiry],
    );
    return Number(row?.n ?? 0);
  }

  /** The asset's stored index and its time, or null. */
  async indexOf(sql: Sql, asset: string): Promise<{ price: bigint; updatedAt: Date } | null> {
    const row = await sql.one<{ index_price: string; updated_at: Date }>(`SELECT index_price, updated_at FROM index_prices WHERE asset = $1`, [asset]);
    return row && { price: BigInt(row.index_price), updatedAt: row.updated_at };
  }

  /** The round's instruments, locked (fills share-lock them before balance rows), in symbol order. */
  async lockInstruments(sql: Sql, asset: string, expiry: number): Promise<Array<{ symbol: string; kind: OptionKind; strike: bigint }>> {
    const rows = await sql.rows<{ symbol: string; kind: OptionKind; strike: string }>(
      `SELECT symbol, kind, strike FROM instruments WHERE asset = $1 AND expiry = $2 ORDER BY symbol FOR UPDATE`,
      [asset, expiry],
    );
    return rows.map((r) => ({ symbol: r.symbol, kind: r.kind, strike: BigInt(r.strike) }));
  }

  /**
   * Share-locks the instruments (a settlement of their round waits, and is waited for); the
   * symbols that have settled.
   */
  async settledAmong(sql: Sql, symbols: readonly string[]): Promise<string[]> {
    const rows = await sql.rows<{ symbol: string; settled: boolean }>(`SELECT symbol, settled FROM instruments WHERE symbol = ANY($1::text[]) ORDER BY symbol FOR SHARE`, [symbols]);
    return rows.filter((r) => r.settled).map((r) => r.symbol);
  }

  async insertPayment(sql: Sql, p: { instrument: string; accountId: number; quantity: bigint; amount: bigint }): Promise<void> {
    await sql.exec(`INSERT INTO settlement_payments (instrument, account_id, quantity, amount) VALUES ($1, $2, $3, $4)`, [
      p.instrument,
      p.accountId,
      p.quantity.toString(),
      p.amount.toString(),
    ]);
  }

  /** Marks the round's instruments settled at `price`. */
  async markInstrumentsSettled(sql: Sql, asset: string, expiry: number, price: bigint): Promise<void> {
    await sql.exec(`UPDATE instruments SET settled = true, settlement_price = $3 WHERE asset = $1 AND expiry = $2`, [asset, expiry, price.toString()]);
  }

  /** Marks the round settled at `price`; when. */
  async markRoundSettled(sql: Sql, asset: string, expiry: number, price: bigint): Promise<Date> {
    const row = await sql.one<{ settled_at: Date }>(
      `UPDATE expirations SET settled = true, settlement_price = $3, settled_at = now() WHERE asset = $1 AND expiry = $2 RETURNING settled_at`,
      [asset, expiry, price.toString()],
    );
    if (!row) throw new Error(`no expiration ${expiry} of ${asset}`);
    return row.settled_at;
  }

  /** Unsettled expiration rounds whose expiry has come, earliest first. */
  async dueRounds(now: number, limit: number): Promise<Array<{ asset: string; expiry: number }>> {
    const rows = await this.db.rows<{ asset: string; expiry: string }>(`SELECT asset, expiry FROM expirations WHERE NOT settled AND expiry <= $1 ORDER BY expiry, asset LIMIT $2`, [
      now,
      limit,
    ]);
    return rows.map((r) => ({ asset: r.asset, expiry: Number(r.expiry) }));
  }
}
