import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { RfqError, type RfqErrorCode } from '../../common/errors/app-error';
import { JobRunner } from '../../common/jobs/job-runner';
import { QUEUES, jobIds } from '../../common/jobs/queues';
import { logger } from '../../common/logging/logger';
import type { RfqRecord } from '../rfq/domain/rfq-record';
import { ProtectionTripService } from '../maker-limits/protection-trip.service';
import { RfqLookupService } from '../rfq/rfq-lookup.service';
import { RfqTransitionsService } from '../rfq/rfq-transitions.service';
import { FillTransactionService } from './fill-transaction.service';
import { LegPricingService } from './leg-pricing.service';

/** Attempts of a fill job (docs/spec/design.md section 5: at least 5). Backoff 0.2 s doubling to 10 s: about 23 s in all. */
const FILL_ATTEMPTS = 8;

/**
 * The fill job (queue `rfq-fill`): accepted → submitting, then one transaction that locks the RFQ,
 * share-locks its instruments, locks the taker's, the maker's and the fee account's balance rows
 * in account-id order, re-checks fee and funding on that frozen view, moves the premium and the
 * fee, folds the legs into both accounts' positions, recomputes both locks, writes the fill
 * (`fills.rfq_id` is UNIQUE) and moves submitting → filled, or records the failed check as
 * submitting → failed. Idempotent: a second run finds the RFQ no longer submitting and does nothing.
 * The transaction is FillTransactionService's, its writes FillRecordService's.
 */
@Injectable()
export class FillService implements OnModuleInit {
  constructor(
    private readonly rfqs: RfqLookupService,
    private readonly transitions: RfqTransitionsService,
    private readonly pricing: LegPricingService,
    private readonly jobs: JobRunner,
    private readonly clock: Clock,
    private readonly makerLimits: ProtectionTripService,
    private readonly fills: FillTransactionService,
  ) {}

  onModuleInit(): void {
    this.jobs.process(QUEUES.rfqFill, async ({ rfqId }, context) => {
      await this.fill(rfqId, { final: context.attempt >= FILL_ATTEMPTS });
    });
  }

  /** Enqueues the fill job of an accepted RFQ. A lost job is the sweep's: never throws. */
  async enqueue(rfqId: string): Promise<void> {
    try {
      await this.jobs.enqueue(QUEUES.rfqFill, { rfqId }, { jobId: jobIds.rfqFill(rfqId), attempts: FILL_ATTEMPTS });
    } catch (error) {
      logger.event('warn', 'fill job not enqueued; the sweep will enqueue it', { rfq_id: rfqId, error: String(error) }, 'Ledger');
    }
  }

  /**
   * Fills an accepted or submitting RFQ; anything else is left alone. Stale market data and
   * database faults throw (the job retries) until the `final` attempt, which records the RFQ as
   * failed with RFQ_NOT_READY or RFQ_TX_FAILED instead.
   */
  async fill(rfqId: string, { final }: { final: boolean }): Promise<void> {
    // The usual case first: one statement moves accepted → submitting; else see where it is.
    const rfq = (await this.transitions.move({ rfqId, from: 'accepted', to: 'submitting' })) ?? (await this.rfqs.findById(rfqId));
    if (!rfq || rfq.state !== 'submitting') return;
    try {
      await this.submit(rfq);
    } catch (error) {
      const notReady = error instanceof RfqError && error.code === 'RFQ_NOT_READY';
      logger.event(final ? 'error' : 'warn', 'fill attempt failed', { rfq_id: rfqId, final, error: String(error) }, 'Ledger');
      if (!final) throw error;
      await this.fail(
        rfqId,
        notReady ? 'RFQ_NOT_READY' : 'RFQ_TX_FAILED',
        notReady ? 'market data stayed stale or missing through every fill attempt' : 'the ledger write failed after every attempt',
      );
    }
  }

  private async submit(rfq: RfqRecord): Promise<void> {
    const now = this.clock.now();
    const legs = this.pricing.pricedLegs(rfq.legs, now);
    // The move's events go out when this returns (RfqTransitionsService announces after the COMMIT).
    const announcement = await this.fills.run(rfq, legs, now);
    // Maker protection after fills (docs/spec/design.md section 15): nothing for a maker without a limits row (read
    // in the fill's first statement), else one keyed read unless the maker has protection set.
    if (announcement?.moved.state === 'filled' && announcement.makerLimits !== false) await this.makerLimits.afterFill(announcement.moved);
  }

  /** submitting → failed in a transaction of its own (after the last attempt). */
  private async fail(rfqId: string, error: RfqErrorCode, message: string): Promise<void> {
    const moved = await this.transitions.move({ rfqId, from: 'submitting', to: 'failed', changes: { failure: { error, message } } });
    if (moved) logger.event('warn', 'rfq fill failed', { rfq_id: rfqId, error, message }, 'Ledger');
  }
}
