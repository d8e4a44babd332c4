import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { Database } from '../../common/database/database';
import { PeriodicSweep } from '../../common/jobs/periodic-sweep';
import { logger } from '../../common/logging/logger';
import { RfqTransitionsService } from '../rfq/rfq-transitions.service';
import { CompetitionCloseService } from './competition-close.service';
import { CompetitionRepository } from './competition.repository';

/** RFQs taken per pass of each kind. */
const BATCH = 500;

/**
 * Time in competitive RFQs (docs/spec/design.md 18), every SWEEP_INTERVAL_MS on every instance: a
 * live quote ends `expired` at its own expires_at (its maker told; the RFQ back to pending, or
 * expired past its own expires_at, when it was the last); a competitive RFQ still pending at its
 * expires_at expires, with its transcript. Each RFQ in its own transaction holding its row, so a
 * respond, a cancel or an accept racing it is decided by the row lock and the re-check under it.
 */
@Injectable()
export class CompetitionExpiryService implements OnApplicationBootstrap {
  private readonly periodic: PeriodicSweep;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly quotes: CompetitionRepository,
    private readonly close: CompetitionCloseService,
    private readonly transitions: RfqTransitionsService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.periodic = new PeriodicSweep('competition expiry sweep', config.sweepIntervalMs, () => this.sweep());
  }

  onApplicationBootstrap(): void {
    this.periodic.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.periodic.stop();
  }

  /** One pass: the quotes due, then the pending RFQs due. */
  async sweep(): Promise<void> {
    const now = Math.floor(this.clock.nowMs() / 1000);
    for (const rfqId of await this.quotes.due(now, BATCH)) {
      if (this.periodic.stopped) return;
      await this.expireQuotes(rfqId).catch((error) =>
        logger.event('warn', 'competitive quotes not expired', { rfq_id: rfqId, error: String(error) }, 'Competition'),
      );
    }
    for (const rfqId of await this.transitions.competitiveDue(now, BATCH)) {
      if (this.periodic.stopped) return;
      await this.expireRfq(rfqId).catch((error) => logger.event('warn', 'competitive RFQ not expired', { rfq_id: rfqId, error: String(error) }, 'Competition'));
    }
  }

  /** The RFQ's live quotes at or past their expires_at end `expired`, their makers told; then the RFQ's move, if any. */
  async expireQuotes(rfqId: string): Promise<void> {
    const nowMs = this.clock.nowMs();
    await this.db.tx(async (tx) => {
      const locked = await this.transitions.lock(tx, rfqId);
      if (!locked) return;
      const due = (await this.quotes.liveOf([rfqId], tx)).filter((q) => q.expiresAt * 1000 <= nowMs);
      const ended = await this.quotes.end(
        tx,
        due.map((q) => q.quoteId),
        'expired',
        nowMs,
      );
      if (ended.length === 0) return;
      await this.close.tellEnded(tx, ended, 'expired', nowMs);
      if (locked.state === 'pending' || locked.state === 'quoted') await this.close.changed(tx, locked, nowMs);
    });
  }

  /** A competitive RFQ pending at its expires_at: expired, with its transcript. */
  async expireRfq(rfqId: string): Promise<void> {
    const nowMs = this.clock.nowMs();
    await this.db.tx(async (tx) => {
      const locked = await this.transitions.lock(tx, rfqId);
      if (!locked || locked.state !== 'pending' || locked.expiresAt * 1000 > nowMs) return;
      await this.close.end(tx, locked, nowMs, { to: 'expired' }, new Set());
    });
  }
}
