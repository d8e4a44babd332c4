import { Injectable } from '@nestjs/common';
import { type RfqFillRow, formatHttp } from '@legwork/protocol';
import type { ReceiptView } from '../journal/domain/receipt';
import type { JsonText } from '../../common/rpc/json-text';
import { JournalService } from '../journal/journal.service';
import { FillRepository } from './fill.repository';
import { type PositionStatus, PositionRepository, type RfqPositionRow } from './position.repository';

export type { PositionStatus, RfqPositionRow } from './position.repository';

/** A row of GET /query/rfq-fills (docs/spec/design.md section 8): the contract's. */
export type { RfqFillRow };

/**
 * The taker's copy of a receipt carries the salt (docs/spec/design.md 16); the maker's is the receipt as
 * signed. A taker's version 1 fill never reverted has no salt: its receipt names the taker itself.
 */
function copyFor(receipt: ReceiptView | undefined, salt: string | undefined): ReceiptView | null {
  if (!receipt) return null;
  return salt ? { ...receipt, taker_salt: salt } : receipt;
}

/** The ledger's read models of the query API: RFQ positions and RFQ fills of one account. */
@Injectable()
export class LedgerReadsService {
  constructor(
    private readonly positionRows: PositionRepository,
    private readonly fillRows: FillRepository,
    private readonly journal: JournalService,
  ) {}

  /** GET /query/rfq-positions' body: non-zero positions by expiry then instrument (PositionRepository.responseBody). */
  positions(accountId: number, status: PositionStatus, limit: number): Promise<JsonText<{ rows: RfqPositionRow[] }>> {
    return this.positionRows.responseBody(accountId, status, limit);
  }

  /** Fills as taker or maker, newest first, after the cursor (a fill id); `next` when more remain. */
  async fills(accountId: number, after: string | null, limit: number): Promise<{ rows: RfqFillRow[]; next: string | null }> {
    const found = await this.fillRows.ofAccount(accountId, after, limit);
    const page = found.slice(0, limit);
    const receipts = await this.receiptsOf(page);
    const rows = page.map((f): RfqFillRow => {
      const role = f.takerAccountId === accountId ? 'taker' : 'maker';
      const salt = role === 'taker' && f.takerSalt ? f.takerSalt.toString('hex') : undefined;
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
        receipt: copyFor(receipts.get(f.fillId)?.fill, salt),
        revert_receipt: copyFor(receipts.get(f.fillId)?.revert, salt),
      };
    });
    return { rows, next: found.length > limit ? page[page.length - 1].fillId : null };
  }

  /**
   * The receipts of a page of fills. A fill or revert committed a moment ago may still have its
   * receipt staged (docs/receipts.md): then the appender is asked to chain what is staged, and the
   * page's receipts are read again, so a committed fill's row always carries its receipt.
   */
  private async receiptsOf(page: ReadonlyArray<{ fillId: string; reverted: boolean }>): Promise<Map<string, { fill?: ReceiptView; revert?: ReceiptView }>> {
    const ids = page.map((f) => f.fillId);
    const receipts = await this.journal.receiptsOf(ids);
    const staged = page.some((f) => !receipts.get(f.fillId)?.fill || (f.reverted && !receipts.get(f.fillId)?.revert));
    if (!staged) return receipts;
    await this.journal.flush();
    return this.journal.receiptsOf(ids);
  }
}
