import { Injectable } from '@nestjs/common';
import { Database } from '../../common/database/database';

/**
 * The ledger's read-only statements over `fills` for the operator console (docs/console.md).
 * Owned here so that no other module names the table; exported by LedgerModule.
 */
@Injectable()
export class FillReadsRepository {
  constructor(private readonly db: Database) {}

  /** Fills per minute (unix seconds of the minute's start) from `sinceSeconds` on; minutes without fills are absent. */
  async perMinute(sinceSeconds: number): Promise<Map<number, number>> {
    const rows = await this.db.rows<{ minute: string; n: number }>(
      `SELECT (filled_at / 60) * 60 AS minute, count(*)::int AS n FROM fills WHERE filled_at >= $1 GROUP BY 1`,
      [sinceSeconds],
    );
    return new Map(rows.map((r) => [Number(r.minute), r.n]));
  }
}
