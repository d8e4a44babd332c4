import { Injectable } from '@nestjs/common';
import type { Sql, Tx } from '../../common/database/sql';
import type { CompanionRead } from './competition-port';
import type { RfqRecord } from './domain/rfq-record';
import type { RfqState } from './domain/rfq-state';
import { RfqRepository } from './rfq.repository';
import { RfqCompetitionRepository } from './rfq-competition.repository';

/**
 * The RFQ reads other modules ask for (the ledger's accept, fill, revert, sweep and settlement):
 * records and row locks of `rfqs`, whose repository is this module's own. Methods that take a
 * `Sql` run in the caller's transaction.
 */
@Injectable()
export class RfqLookupService {
  constructor(
    private readonly rfqs: RfqRepository,
    private readonly competitive: RfqCompetitionRepository,
  ) {}

  findById(id: string, sql?: Sql): Promise<RfqRecord | null> {
    return this.rfqs.findById(id, sql);
  }

  /**
   * The RFQ holding the quote, or null. `orOf`: else the RFQ whose id this read of another
   * module's table answers for the quote (a competitive quote's RFQ), in the same statement.
   */
  findByQuoteId(quoteId: string, orOf?: CompanionRead): Promise<RfqRecord | null> {
    return this.rfqs.findByQuoteId(quoteId, undefined, orOf);
  }

  /**
   * findByQuoteId with `of.rfqId` as `orOf`, and in the same read `of.quote`'s answer for the quote
   * (another module's row of it, e.g. the competitive quote an accept names); null: no RFQ.
   */
  findByQuoteIdWith(quoteId: string, of: { rfqId: CompanionRead; quote: CompanionRead }): Promise<{ rfq: RfqRecord; companion: unknown } | null> {
    return this.competitive.findByQuoteIdWith(quoteId, of);
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
