import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { JobRunner } from '../../common/jobs/job-runner';
import { PeriodicSweep } from '../../common/jobs/periodic-sweep';
import { QUEUES, jobIds } from '../../common/jobs/queues';
import { logger } from '../../common/logging/logger';
import type { RfqRecord } from './domain/rfq-record';
import { RfqTransitions } from './rfq-transitions';
import { RfqStore } from './rfq.store';

/** A job that fires this close before its deadline waits for it instead of leaving it to the sweep. */
const EARLY_WAIT_LIMIT_MS = 5_000;
const SWEEP_BATCH = 500;

/** The deadline of an RFQ in its current state (unix seconds), or null when nothing can expire. */
export function expiryDeadline(rfq: RfqRecord): number | null {
  if (rfq.state === 'pending') return rfq.expiresAt;
  if (rfq.state === 'quoted' && rfq.quote) return rfq.quote.expiresAt;
  return null;
}

/**
 * Expiry (design.md section 5): a delayed job at each deadline (the RFQ's expires_at, then the
 * quote's), and a sweep every SWEEP_INTERVAL_MS from the database that catches any job lost (with
 * Redis, or with the process in the embedded default). A deadline is the instant `expires_at`
 * (unix seconds): at and after it the RFQ or quote is expired. Idempotent: only a still-pending
 * RFQ past its expires_at, or a still-quoted one past its quote's expires_at, moves.
 */
@Injectable()
export class RfqExpiry implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly periodic: PeriodicSweep;

  constructor(
    private readonly jobs: JobRunner,
    private readonly store: RfqStore,
    private readonly transitions: RfqTransitions,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.periodic = new PeriodicSweep('rfq expiry sweep', config.sweepIntervalMs, () => this.sweepOnce());
  }

  onModuleInit(): void {
    this.jobs.process(QUEUES.rfqExpiry, async ({ rfqId }) => {
      await this.onDeadline(rfqId);
    });
  }

  onApplicationBootstrap(): void {
    this.periodic.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.periodic.stop();
  }

  /** Enqueues the expiry job at `deadline` (unix seconds). A lost job is the sweep's: never throws. */
  async schedule(rfqId: string, deadline: number): Promise<void> {
    try {
      await this.jobs.enqueue(QUEUES.rfqExpiry, { rfqId }, { delayMs: deadline * 1000 - this.clock.nowMs(), jobId: jobIds.rfqExpiry(rfqId, deadline) });
    } catch (error) {
      logger.event('warn', 'expiry job not enqueued; the sweep will expire it', { rfq_id: rfqId, error: String(error) }, 'Rfq');
    }
  }

  /** The job: expire the RFQ if its current deadline has come (waiting a moment when it fired early). */
  async onDeadline(rfqId: string): Promise<void> {
    let rfq = await this.store.findById(rfqId);
    if (!rfq) return;
    const deadline = expiryDeadline(rfq);
    if (deadline === null) return;
    const early = deadline * 1000 - this.clock.nowMs();
    if (early > EARLY_WAIT_LIMIT_MS) return; // another job (or the sweep) owns that deadline
    if (early > 0) {
      await new Promise((resolve) => setTimeout(resolve, early));
      rfq = await this.store.findById(rfqId);
      if (!rfq) return;
    }
    await this.expireIfDue(rfq);
  }

  /** Expires every overdue pending or quoted RFQ in the database. */
  sweep(): Promise<void> {
    return this.periodic.run();
  }

  private async sweepOnce(): Promise<void> {
    const overdue = await this.store.overdue(this.clock.now(), SWEEP_BATCH);
    for (const { id } of overdue) {
      if (this.periodic.stopped) return;
      const rfq = await this.store.findById(id);
      if (rfq) await this.expireIfDue(rfq);
    }
  }

  /** Expires now, deadline or not: an RFQ still pending or quoted when its round settles (design.md section 7). */
  async expireNow(rfqId: string): Promise<RfqRecord | null> {
    return (await this.transitions.move({ rfqId, from: 'pending', to: 'expired' })) ?? (await this.transitions.move({ rfqId, from: 'quoted', to: 'expired' }));
  }

  private async expireIfDue(rfq: RfqRecord): Promise<void> {
    const deadline = expiryDeadline(rfq);
    if (deadline === null || this.clock.nowMs() < deadline * 1000) return;
    const moved = await this.transitions.move({ rfqId: rfq.id, from: rfq.state, to: 'expired' });
    if (moved) logger.event('info', 'rfq expired', { rfq_id: rfq.id, from: rfq.state }, 'Rfq');
  }
}
