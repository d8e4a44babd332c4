import { Injectable } from '@nestjs/common';
import type { Sql, Tx } from '../../common/database/sql';

/**
 * Settlement's own statements: the payments (`settlement_payments`). The round's rows it locks
 * and marks settled in the same transaction (`expirations`, `instruments`) are the instruments
 * module's (InstrumentsService.settlement), and the stored index is market data's
 * (MarketDataService.storedIndex); each runs on the settlement's `sql`, so the lock order (round,
 * instruments, index rows, balance rows) that keeps a settlement from deadlocking with fills is
 * the same.
 */
@Injectable()
export class SettlementRepository {
  /**
   * How many payments the round made (a settled round's answer). A round's payments are found by
   * their instruments' round: a read, in one statement, of the instruments module's table.
   */
  async paymentCount(sql: Sql, asset: string, expiry: number): Promise<number> {
    const row = await sql.one<{ n: string }>(
      `SELECT count(*) AS n FROM settlement_payments s JOIN instruments i ON i.symbol = s.instrument WHERE i.asset = $1 AND i.expiry = $2`,
      [asset, expiry],
    );
    return Number(row?.n ?? 0);
  }

  async insertPayment(tx: Tx, p: { instrument: string; accountId: number; quantity: bigint; amount: bigint }): Promise<void> {
    await tx.exec(`INSERT INTO settlement_payments (instrument, account_id, quantity, amount) VALUES ($1, $2, $3, $4)`, [
      p.instrument,
      p.accountId,
      p.quantity.toString(),
      p.amount.toString(),
    ]);
  }
}
