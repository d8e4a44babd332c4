import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { RfqError } from '../../common/errors/app-error';
import { logger } from '../../common/logging/logger';
import type { RfqRecord } from './domain/rfq-record';
import { notQuotedReason } from './domain/rfq-state';
import { RfqTransitionsService } from './rfq-transitions.service';
import { RfqRepository } from './rfq.repository';
import { CompetitionHooks } from './competition-port';
import type { RfqCaller } from './rfq.service';

/** Result of rfq.cancel (docs/spec/design.md 15). */
export interface CancelResult {
  rfq_id: string;
  state: 'expired';
  cancelled_at: number;
}

/**
 * The taker's withdrawal of its requests (docs/spec/design.md 15): rfq.cancel and rfq.cancel_all. A
 * pending or quoted RFQ moves to expired with `cancelled_at`, by the one conditional statement of
 * RfqTransitionsService.cancel, so a maker's respond or the taker's own accept racing it either moved the
 * RFQ first (the cancel then finds it quoted, and takes it, or accepted, and refuses) or finds it
 * expired. A quote holds nothing on the ledger (locks follow positions, section 6): there is
 * nothing to release but the taker's open-RFQ slot, which the same statement gives back.
 */
@Injectable()
export class RfqCancelService {
  constructor(
    private readonly clock: Clock,
    private readonly store: RfqRepository,
    private readonly transitions: RfqTransitionsService,
    private readonly competition: CompetitionHooks,
  ) {}

  /**
   * RFQ_NOT_FOUND for an RFQ that is not the caller's (or has left the live book); the same result
   * again for one already cancelled; RFQ_STATE_CONFLICT for any other state it has reached.
   */
  async cancel(taker: RfqCaller, rfqId: string): Promise<CancelResult> {
    const moved = await this.transitions.cancel(taker.accountId, rfqId);
    if (moved) {
      logger.event('info', 'rfq cancelled', { rfq_id: rfqId, account_id: taker.accountId }, 'Rfq');
      return cancelResult(moved);
    }
    const rfq = await this.store.findLive(taker.accountId, rfqId, this.clock.now());
    if (!rfq) throw new RfqError('RFQ_NOT_FOUND', `no RFQ ${rfqId} of this account`);
    // A competitive RFQ's quotes end with it, in one transaction (docs/spec/design.md 18).
    const competitive = rfq.competition && (rfq.state === 'pending' || rfq.state === 'quoted') ? await this.competition.port.cancel(taker, rfq) : null;
    if (competitive) {
      logger.event('info', 'rfq cancelled', { rfq_id: rfqId, account_id: taker.accountId }, 'Rfq');
      return cancelResult(competitive);
    }
    if (rfq.cancelledAt !== null) return cancelResult(rfq);
    throw new RfqError('RFQ_STATE_CONFLICT', `the RFQ is ${rfq.state}, not pending or quoted`, { rfqId, reason: notQuotedReason(rfq.state) });
  }

  /**
   * Every pending or quoted RFQ of the caller, oldest first, each by its own conditional move (one
   * row and the account's slot counter per statement, in the order every other mover takes them:
   * no lock order to deadlock on). An RFQ that a respond left quoted is still cancelled; one that
   * an accept or the expiry took first is not listed.
   */
  async cancelAll(taker: RfqCaller): Promise<{ cancelled: string[] }> {
    const cancelled: string[] = [];
    for (const rfqId of await this.store.openToCancel(taker.accountId)) {
      if (await this.transitions.cancel(taker.accountId, rfqId)) cancelled.push(rfqId);
      else if (await this.cancelCompetitive(taker, rfqId)) cancelled.push(rfqId);
    }
    if (cancelled.length > 0) logger.event('info', 'rfqs cancelled', { account_id: taker.accountId, count: cancelled.length }, 'Rfq');
    return { cancelled };
  }

  /** A competitive RFQ of the taker still pending or quoted, cancelled with its quotes (see CompetitionPort.cancel). */
  private async cancelCompetitive(taker: RfqCaller, rfqId: string): Promise<boolean> {
    const rfq = await this.store.findLive(taker.accountId, rfqId, this.clock.now());
    if (!rfq?.competition || (rfq.state !== 'pending' && rfq.state !== 'quoted')) return false;
    return (await this.competition.port.cancel(taker, rfq)) !== null;
  }
}

function cancelResult(rfq: RfqRecord): CancelResult {
  return { rfq_id: rfq.id, state: 'expired', cancelled_at: rfq.cancelledAt! };
}
