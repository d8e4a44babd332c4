import { Injectable } from '@nestjs/common';
import type { Sql, Tx } from '../../common/database/sql';
import type { RfqRecord } from './domain/rfq-record';
import type { RfqState } from './domain/rfq-state';
import { RfqRepository } from './rfq.repository';

/**
 * The RFQ reads other modules ask for (the ledger's accept, fill, revert, sweep and settlement):
 * records and row locks of `rfqs`, whose repository is this module's own. Methods that take a
 * `Sql` run in the caller's transaction.
 */
@Injectable()
export class RfqLookupService {
  constructor(private readonly rfqs: RfqRepository) {}

  findById(id: string, sql?: Sql): Promise<RfqRecord | null> {
    return this.rfqs.findById(id, sql);
  }

  /** The RFQ holding the quote, or null. */
  findByQuoteId(quoteId: string): Promise<RfqRecord | null> {
    return this.rfqs.findByQuoteId(quoteId);
  }

  /** Locks an RFQ's row for the caller's transaction; its state, or null when there is no such RFQ. */
  lockState(tx: Tx, rfqId: string): Promise<RfqState | null> {
    return this.rfqs.lockState(tx, rfqId);
  }

  /** RFQs left accepted or submitting since `updatedBefore` (unix seconds) or earlier, oldest first. */
  stuckInFill(updatedBefore: number, limit: number): Promise<Array<{ id: string; updatedAt: number }>> {
    return this.rfqs.stuckInFill(updatedBefore, limit);
  }

  /** Pending and quoted RFQs on an expiration round. */
  openOfRound(asset: string, expiry: number): Promise<string[]> {
    return this.rfqs.openOfRound(asset, expiry);
  }
}
