import { Injectable } from '@nestjs/common';
import { formatHttp } from '@legwork/protocol';
import { Database } from '../../common/database/database';
import { httpDecimalSql, isoTimeSql } from '../../common/database/http-format.sql';
import type { OptionKind } from '../instruments/domain/symbol';
import type { AcceptSide } from './domain/funding';
import type { ReceiptView } from '../journal/domain/receipt';
import { JournalStore } from '../journal/journal.store';
import { LedgerStore } from './ledger.store';

export type PositionStatus = 'open' | 'settled' | 'all';

/** A row of GET /query/rfq-positions (design.md section 8). */
export interface RfqPositionRow {
  account_id: number;
  instrument: string;
  asset: string;
  strike: string;
  kind: OptionKind;
  expiry: number;
  settled: boolean;
  quantity: string;
  average_price: string | null;
  updated_at: string;
}

/** A row of GET /query/rfq-fills (design.md section 8). */
export interface RfqFillRow {
  fill_id: string;
  rfq_id: string;
  quote_id: string;
  role: 'taker' | 'maker';
  side: AcceptSide;
  legs: Array<{ instrument: string; quantity: string }>;
  price: string;
  fee: string;
  filled_at: number;
  reverted: boolean;
  receipt: ReceiptView | null;
  revert_receipt: ReceiptView | null;
}


/** The ledger's read models of the query API: RFQ positions and RFQ fills of one account. */
@Injectable()
export class LedgerReads {
  constructor(
    private readonly db: Database,
    private readonly store: LedgerStore,
    private readonly journal: JournalStore,
  ) {}

  /**
   * Non-zero positions by expiry then instrument, with their average price (stored with the
   * position: no replay of fills). One statement whose rows are the response rows: PostgreSQL
   * writes the HTTP forms (8-dp decimals, ISO time) and gives ids and times as numbers (float8:
   * exact below 2^53), so nothing is parsed, formatted or copied here.
   */
  positions(accountId: number, status: PositionStatus, limit: number): Promise<RfqPositionRow[]> {
    return this.db.dataSource.query(
      `SELECT p.account_id::float8 AS account_id, p.instrument, i.asset, ${httpDecimalSql('i.strike')} AS strike, i.kind, i.expiry::float8 AS expiry,
              i.settled, ${httpDecimalSql('p.quantity')} AS quantity, ${httpDecimalSql('p.average_price')} AS average_price,
              ${isoTimeSql('p.updated_at')} AS updated_at
         FROM positions p JOIN instruments i ON i.symbol = p.instrument
        WHERE p.account_id = $1 AND p.quantity <> 0 AND ($2::text = 'all' OR i.settled = ($2::text = 'settled'))
        ORDER BY i.expiry, p.instrument COLLATE "C"
        LIMIT $3`,
      [accountId, status, limit],
    );
  }

  /** Fills as taker or maker, newest first, after the cursor (a fill id); `next` when more remain. */
  async fills(accountId: number, after: string | null, limit: number): Promise<{ rows: RfqFillRow[]; next: string | null }> {
    const found = await this.store.fillsOf(accountId, after, limit);
    const page = found.slice(0, limit);
    const receipts = await this.journal.receiptsOf(page.map((f) => f.fillId));
    const rows = page.map((f): RfqFillRow => {
      const role = f.takerAccountId === accountId ? 'taker' : 'maker';
      return {
        fill_id: f.fillId,
        rfq_id: f.rfqId,
        quote_id: f.quoteId,
        role,
        side: f.side,
        legs: f.legs.map((l) => ({ instrument: l.instrument, quantity: formatHttp(l.quantity) })),
        price: formatHttp(f.price),
        fee: formatHttp(role === 'taker' ? f.fee : 0n),
        filled_at: f.filledAt,
        reverted: f.reverted,
        receipt: receipts.get(f.fillId)?.fill ?? null,
        revert_receipt: receipts.get(f.fillId)?.revert ?? null,
      };
    });
    return { rows, next: found.length > limit ? page[page.length - 1].fillId : null };
  }
}
