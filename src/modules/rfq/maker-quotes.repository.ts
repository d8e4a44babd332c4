import { Injectable } from '@nestjs/common';
import { formatRfq, type MakerQuoteState } from '@legwork/protocol';
import { Database } from '../../common/database/database';
import type { Narrow, Row } from '../../common/database/table';
import { seedQuoteState } from './domain/maker-quote-state';
import type { RfqState } from './domain/rfq-state';

/** One item of rfq.maker.quotes (docs/spec/design.md section 19), as the wire carries it. */
export interface MakerQuoteItem {
  quote_id: string;
  rfq_id: string;
  quote_nonce: string;
  bid: string;
  ask: string;
  issued_at: number;
  expires_at: number;
  received_at_ms: number;
  state: MakerQuoteState;
}

/** Which of a maker's quotes: the live ones or all, newest first, after a cursor quote's place. */
export interface MakerQuotesQuery {
  makerAccountId: number;
  live: boolean;
  /** The place of the cursor quote: (received_at_ms, quote_id); null from the newest. */
  after: { receivedAtMs: number; quoteId: string } | null;
  limit: number;
  /** Unix seconds: a quote past its expires_at is not live. */
  now: number;
}

type QuoteDbRow = Narrow<
  Row<'rfqs', 'id' | 'quote_id' | 'quote_nonce' | 'bid' | 'ask' | 'issued_at' | 'quote_expires_at' | 'quote_received_at_ms' | 'state'>,
  { quote_id: string; state: RfqState }
>;

/**
 * A maker's own quotes, read from `rfqs` (the seed quote is held on its RFQ's row) off the keyset
 * indexes of migration 1763800000360, scanned backwards: `rfqs_maker_quotes` for all,
 * `rfqs_maker_quotes_live` for the live ones. Read-only; RfqRepository writes the rows.
 */
@Injectable()
export class MakerQuotesRepository {
  constructor(private readonly db: Database) {}

  /** The place of one of the maker's quotes in its list (the cursor), or null when it is not the maker's or no longer kept. */
  async place(makerAccountId: number, quoteId: string): Promise<{ receivedAtMs: number; quoteId: string } | null> {
    const row = await this.db.one<Row<'rfqs', 'quote_received_at_ms'>>(
      `SELECT quote_received_at_ms FROM rfqs WHERE quote_id = $1 AND maker_account_id = $2 AND competition IS NULL`,
      [quoteId, makerAccountId],
    );
    return row && row.quote_received_at_ms !== null ? { receivedAtMs: Number(row.quote_received_at_ms), quoteId } : null;
  }

  /**
   * One page of the maker's seed quotes, newest first (`limit` rows at most). A competitive RFQ's
   * row holds its accepted quote too: the competition module lists that one (MakerQuotesRpc merges
   * both pages), so it is left out here.
   */
  async page(query: MakerQuotesQuery): Promise<MakerQuoteItem[]> {
    const params: unknown[] = [query.makerAccountId];
    const where = [
      'maker_account_id = $1',
      'competition IS NULL',
      query.live ? `state = 'quoted' AND quote_expires_at > $${params.push(query.now)}` : 'quote_id IS NOT NULL',
    ];
    if (query.after) where.push(`(quote_received_at_ms, quote_id) < ($${params.push(query.after.receivedAtMs)}, $${params.push(query.after.quoteId)})`);
    const rows = await this.db.rows<QuoteDbRow>(
      `SELECT id, quote_id, quote_nonce::text AS quote_nonce, bid, ask, issued_at, quote_expires_at, quote_received_at_ms, state
         FROM rfqs WHERE ${where.join(' AND ')}
        ORDER BY quote_received_at_ms DESC, quote_id DESC LIMIT $${params.push(query.limit)}`,
      params,
    );
    return rows.map((r) => ({
      quote_id: r.quote_id,
      rfq_id: r.id,
      quote_nonce: String(r.quote_nonce),
      bid: formatRfq(BigInt(r.bid!)),
      ask: formatRfq(BigInt(r.ask!)),
      issued_at: Number(r.issued_at),
      expires_at: Number(r.quote_expires_at),
      received_at_ms: Number(r.quote_received_at_ms),
      state: seedQuoteState(r.state, Number(r.quote_expires_at), query.now),
    }));
  }

  /** The states of these RFQs (by primary key, one read): what an accepted competitive quote's state follows. */
  async rfqStates(rfqIds: readonly string[]): Promise<Map<string, RfqState>> {
    if (rfqIds.length === 0) return new Map();
    const rows = await this.db.rows<{ id: string; state: RfqState }>(`SELECT id, state FROM rfqs WHERE id = ANY($1::char(32)[])`, [[...new Set(rfqIds)]]);
    return new Map(rows.map((r) => [r.id, r.state]));
  }
}
