import { Injectable } from '@nestjs/common';
import type { RfqState } from './domain/rfq-state';
import { type AdminRfqFilter, type AdminRfqRow, type RfqEventRow, RfqReadsRepository } from './rfq-reads.repository';

export type { AdminRfqFilter, AdminRfqRow, RfqEventRow } from './rfq-reads.repository';

/**
 * The rfq module's read models for the operator console (docs/console.md): what other modules
 * ask instead of naming `rfqs` and `rfq_events`. Exported by RfqModule.
 */
@Injectable()
export class RfqReadsService {
  constructor(private readonly reads: RfqReadsRepository) {}

  /** RFQs by state: every one in `open` states, those in `ended` states from `sinceId` on (ids are time ordered). */
  countByState(open: readonly RfqState[], ended: readonly RfqState[], sinceId: string): Promise<Array<{ state: RfqState; n: number }>> {
    return this.reads.countByState(open, ended, sinceId);
  }

  /** RFQs newest first, optionally of one state and/or one taker, before a cursor. */
  list(filter: AdminRfqFilter): Promise<AdminRfqRow[]> {
    return this.reads.list(filter);
  }

  /** Every state move of one RFQ, in order; null when there is no such RFQ. */
  events(rfqId: string): Promise<RfqEventRow[] | null> {
    return this.reads.events(rfqId);
  }
}
