import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { Database } from '../../common/database/database';
import { AppError } from '../../common/errors/app-error';
import { JournalService } from '../journal/journal.service';
import { RevertTransactionService } from './revert-transaction.service';

export interface RevertResult {
  rfq_id: string;
  state: 'failed';
  reverted: true;
}

const RFQ_ID = /^[0-9a-f]{32}$/;

/**
 * POST /v1/admin/rfq/{rfq_id}/revert (docs/spec/design.md section 5): undoes a fill exactly in one
 * transaction (premium, fee, both folds, both locks) and moves filled → failed with
 * RFQ_TX_FAILED and `fill.reverted = true`. Refused (409) when the RFQ is not filled (a reverted
 * one included), when a leg's round has settled, or when undoing would take an account's free
 * balance below zero. The transaction's checks are RevertTransactionService's, its writes RevertUndoService's.
 */
@Injectable()
export class RevertService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly journal: JournalService,
    private readonly reverts: RevertTransactionService,
  ) {}

  async revert(rfqId: string): Promise<RevertResult> {
    if (!RFQ_ID.test(rfqId)) throw new AppError('INVALID_PARAMS', 'rfq_id must be 32 lowercase hex characters');
    const now = this.clock.now();
    // The move filled → failed is announced once this transaction commits (RfqTransitionsService.moveWithin).
    const record = await this.db.tx((tx) => this.reverts.revertWithin(tx, rfqId, now));
    // The revert's receipt is chained after the COMMIT (docs/receipts.md); the admin's answer waits
    // for it, so the fill's rows show `revert_receipt` from then on.
    await this.journal.receiptOf(record.fill!.fillId, 1);
    return { rfq_id: rfqId, state: 'failed', reverted: true };
  }
}
