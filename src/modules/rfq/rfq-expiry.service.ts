import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { Database } from '../../common/database/database';
import type { Sql } from '../../common/database/sql';
import { JobRunner } from '../../common/jobs/job-runner';
import { PeriodicSweep } from '../../common/jobs/periodic-sweep';
import { QUEUES, jobIds } from '../../common/jobs/queues';
import { logger } from '../../common/logging/logger';
import { CompetitionHooks } from './competition-port';
import type { RfqRecord } from './domain/rfq-record';
import { RfqTransitionsService } from './rfq-transitions.service';
import { RfqRepository } from './rfq.repository';

/** A job that fires this close before its deadline waits for it instead of leaving it to the sweep. */
const EARLY_WAIT_LIMIT_MS = 5_000;
/**
 * A deadline's job is due this long before the deadline, and waits for it on a local timer: under
 * load, BullMQ's promotion of a delayed job and the worker's pickup came tens to hundreds of
 * milliseconds late (measured as F6 in bench/), and every RFQ of the second was that late with it.
 */
const JOB_LEAD_MS = 500;
/**
 * The expiry statement's connection is taken this long before the deadline and held until it: when
 * fills fill the pool, a statement that queued for a connection at the deadline waited behind them.
 */
const CONNECTION_LEAD_MS = 200;
/** RFQs expired by one statement; a larger backlog takes several. */
const EXPIRY_BATCH = 500;
/** Deadlines this instance has enqueued a job for are remembered this long past them. */
const SCHEDULED_MEMORY_SECONDS = 60;

/** The deadline of an RFQ in its current state (unix seconds), or null when nothing can expire. */
function expiryDeadline(rfq: RfqRecord): number | null {
  // A competitive RFQ's end writes its transcript: the competition module's sweep expires it.
  if (rfq.competition) return null;
  if (rfq.state === 'pending') return rfq.expiresAt;
  if (rfq.state === 'quoted' && rfq.quote) return rfq.quote.expiresAt;
  return null;
}

/**
 * Expiry (docs/spec/design.md section 5): a delayed job at each deadline, and a sweep every
 * SWEEP_INTERVAL_MS from the database that catches any job lost (with Redis, or with the process in
 * the embedded default). Deadlines are whole unix seconds, so there is one job per deadline
 * second (`expire-at-<deadline>`, the same id on every instance), not one per RFQ: it expires
 * every RFQ due by then in one statement (RfqTransitionsService.expireDue), and a burst of quotes that
 * end in the same second costs one job and one UPDATE. A deadline is the instant `expires_at`: at
 * and after it the RFQ or quote is expired. Idempotent: only a still-pending RFQ past its
 * expires_at, or a still-quoted one past its quote's expires_at, moves.
 */
@Injectable()
export class RfqExpiryService implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly periodic: PeriodicSweep;
  /** Deadlines (unix seconds) this instance has enqueued a job for: the next RFQ due then needs no Redis call. */
  private readonly scheduled = new Set<number>();

  constructor(
    private readonly jobs: JobRunner,
    private readonly store: RfqRepository,
    private readonly transitions: RfqTransitionsService,
    private readonly clock: Clock,
    private readonly db: Database,
    private readonly competition: CompetitionHooks,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.periodic = new PeriodicSweep('rfq expiry sweep', config.sweepIntervalMs, () => this.expireDue(this.db));
  }

  onModuleInit(): void {
    this.jobs.process(QUEUES.rfqExpiry, async (data) => {
      if ('deadline' in data) await this.onDue(data.deadline);
      else await this.onDeadline(data.rfqId);
    });
  }

  onApplicationBootstrap(): void {
    this.periodic.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.periodic.stop();
  }

  /**
   * Makes sure a job runs at `deadline` (unix seconds), JOB_LEAD_MS early (it waits for the
   * deadline): enqueued once per deadline second by this instance. A deadline already past (a quote that ended while it was being stored) is expired at
   * once. A lost job is the sweep's: never throws.
   */
  async schedule(deadline: number): Promise<void> {
    const nowMs = this.clock.nowMs();
    if (deadline * 1000 <= nowMs) {
      void this.expireDue(this.db).catch((error) =>
        logger.event('warn', 'expiry failed; the sweep will expire its RFQs', { deadline, error: String(error) }, 'Rfq'),
      );
      return;
    }
    if (this.scheduled.has(deadline)) return;
    this.scheduled.add(deadline);
    if (this.scheduled.size > 256) this.forgetBefore(Math.floor(nowMs / 1000) - SCHEDULED_MEMORY_SECONDS);
    try {
      await this.jobs.enqueue(QUEUES.rfqExpiry, { deadline }, { delayMs: deadline * 1000 - JOB_LEAD_MS - nowMs, jobId: jobIds.rfqExpiry(deadline) });
    } catch (error) {
      this.scheduled.delete(deadline);
      logger.event('warn', 'expiry job not enqueued; the sweep will expire its RFQs', { deadline, error: String(error) }, 'Rfq');
    }
  }

  /**
   * The job of a deadline second (due JOB_LEAD_MS before it): takes a connection CONNECTION_LEAD_MS
   * before the deadline, waits for the deadline, and expires everything due on that connection.
   */
  async onDue(deadline: number): Promise<void> {
    const dueMs = deadline * 1000;
    if (dueMs - this.clock.nowMs() > EARLY_WAIT_LIMIT_MS) return; // fired far too early: the sweep or a later job owns it
    await this.waitUntil(dueMs - CONNECTION_LEAD_MS);
    await this.db.session(async (sql) => {
      await this.waitUntil(dueMs);
      await this.expireDue(sql);
    });
  }

  /** A job of an earlier version, for one RFQ: expire it if its current deadline has come. */
  async onDeadline(rfqId: string): Promise<void> {
    let rfq = await this.store.findById(rfqId);
    if (!rfq) return;
    const deadline = expiryDeadline(rfq);
    if (deadline === null) return;
    const early = deadline * 1000 - this.clock.nowMs();
    if (early > EARLY_WAIT_LIMIT_MS) return; // another job (or the sweep) owns that deadline
    if (early > 0) {
      await this.waitUntil(deadline * 1000);
      rfq = await this.store.findById(rfqId);
      if (!rfq) return;
    }
    await this.expireIfDue(rfq);
  }

  /** Expires every overdue pending or quoted RFQ in the database (the sweep, and every job), in batches; `sql`: the pool or a held connection. */
  async expireDue(sql: Sql): Promise<void> {
    let moved: number;
    do {
      if (this.periodic.stopped) return;
      moved = (await this.transitions.expireDue(this.clock.now(), EXPIRY_BATCH, sql)).length;
      if (moved > 0) logger.event('info', 'rfqs expired', { count: moved }, 'Rfq');
    } while (moved === EXPIRY_BATCH);
  }

  /** Expires every overdue RFQ now; the sweep's pass (SWEEP_INTERVAL_MS). */
  sweep(): Promise<void> {
    return this.periodic.run();
  }

  /**
   * Expires now, deadline or not: an RFQ still pending or quoted when its round settles
   * (docs/spec/design.md section 7). A competitive one ends its competition (its quotes, the
   * transcript) in the competition module's transaction.
   */
  async expireNow(rfqId: string): Promise<RfqRecord | null> {
    const port = this.competition.active;
    if (port && (await this.store.findById(rfqId))?.competition) return port.expireNow(rfqId);
    return (await this.transitions.move({ rfqId, from: 'pending', to: 'expired' })) ?? (await this.transitions.move({ rfqId, from: 'quoted', to: 'expired' }));
  }

  private async expireIfDue(rfq: RfqRecord): Promise<void> {
    const deadline = expiryDeadline(rfq);
    if (deadline === null || this.clock.nowMs() < deadline * 1000) return;
    const moved = await this.transitions.move({ rfqId: rfq.id, from: rfq.state, to: 'expired' });
    if (moved) logger.event('info', 'rfq expired', { rfq_id: rfq.id, from: rfq.state }, 'Rfq');
  }

  /**
   * Resolves once the clock reads `ms` (epoch ms) or later. A timer is measured on the event loop's
   * cached time, so it may end a millisecond before the wall clock gets there: a deadline met a
   * moment early would expire nothing (the statement's `now` is still the second before) and leave
   * the second to the sweep, so it waits again until the clock agrees.
   */
  private async waitUntil(ms: number): Promise<void> {
    for (let left = ms - this.clock.nowMs(); left > 0; left = ms - this.clock.nowMs()) await new Promise((resolve) => setTimeout(resolve, left));
  }

  private forgetBefore(second: number): void {
    for (const deadline of this.scheduled) if (deadline < second) this.scheduled.delete(deadline);
  }
}
