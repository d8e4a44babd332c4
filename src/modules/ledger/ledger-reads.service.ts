import { Injectable } from '@nestjs/common';
import { Database } from '../../common/database/database';
import { formatHttp } from '../../common/decimal/decimal';
import type { OptionKind } from '../instruments/domain/symbol';
import { averagePrice } from './domain/average-price';
import { orientation } from './domain/fold';
import type { AcceptSide } from './domain/funding';
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
}

interface PositionRow {
  account_id: string;
  instrument: string;
  asset: string;
  strike: string;
  kind: OptionKind;
  expiry: string;
  settled: boolean;
  quantity: string;
  updated_at: Date;
}

interface TradeRow {
  instrument: string;
  taker_account_id: string;
  side: AcceptSide;
  quantity: string;
  premium: string;
}

/** The ledger's read models of the query API: RFQ positions and RFQ fills of one account. */
@Injectable()
export class LedgerReads {
  constructor(
    private readonly db: Database,
    private readonly store: LedgerStore,
  ) {}

  /** Non-zero positions by expiry then instrument, with their average price over the fills that made them. */
  async positions(accountId: number, status: PositionStatus, limit: number): Promise<RfqPositionRow[]> {
    const rows: PositionRow[] = await this.db.dataSource.query(
      `SELECT p.account_id, p.instrument, i.asset, i.strike, i.kind, i.expiry, i.settled, p.quantity, p.updated_at
         FROM positions p JOIN instruments i ON i.symbol = p.instrument
        WHERE p.account_id = $1 AND p.quantity <> 0 AND ($2::text = 'all' OR i.settled = ($2::text = 'settled'))
        ORDER BY i.expiry, p.instrument COLLATE "C"
        LIMIT $3`,
      [accountId, status, limit],
    );
    if (rows.length === 0) return [];
    const trades: TradeRow[] = await this.db.dataSource.query(
      `SELECT l.instrument, f.taker_account_id, f.side, l.quantity, l.premium
         FROM fill_legs l JOIN fills f ON f.id = l.fill_id
        WHERE NOT f.reverted AND (f.taker_account_id = $1 OR f.maker_account_id = $1) AND l.instrument = ANY($2::text[])
        ORDER BY f.id, l.leg_index`,
      [accountId, rows.map((r) => r.instrument)],
    );
    const byInstrument = new Map<string, Array<{ quantity: bigint; paid: bigint }>>();
    for (const t of trades) {
      const sign = orientation(Number(t.taker_account_id) === accountId ? 'taker' : 'maker', t.side);
      const list = byInstrument.get(t.instrument) ?? [];
      list.push({ quantity: sign * BigInt(t.quantity), paid: sign * BigInt(t.premium) });
      byInstrument.set(t.instrument, list);
    }
    return rows.map((r) => {
      const average = averagePrice(byInstrument.get(r.instrument) ?? []);
      return {
        account_id: Number(r.account_id),
        instrument: r.instrument,
        asset: r.asset,
        strike: formatHttp(BigInt(r.strike)),
        kind: r.kind,
        expiry: Number(r.expiry),
        settled: r.settled,
        quantity: formatHttp(BigInt(r.quantity)),
        average_price: average === null ? null : formatHttp(average),
        updated_at: new Date(r.updated_at).toISOString(),
      };
    });
  }

  /** Fills as taker or maker, newest first, after the cursor (a fill id); `next` when more remain. */
  async fills(accountId: number, after: string | null, limit: number): Promise<{ rows: RfqFillRow[]; next: string | null }> {
    const found = await this.store.fillsOf(accountId, after, limit);
    const page = found.slice(0, limit);
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
      };
    });
    return { rows, next: found.length > limit ? page[page.length - 1].fillId : null };
  }
}
