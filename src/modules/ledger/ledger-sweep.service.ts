import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { PeriodicSweep } from '../../common/jobs/periodic-sweep';
import { logger } from '../../common/logging/logger';
import { FillService } from './fill.service';
import { InstrumentsService } from '../instruments/instruments.service';
import { RfqLookupService } from '../rfq/rfq-lookup.service';
import { SettlementService } from './settlement.service';

/**
 * An RFQ left accepted or submitting this long gets its fill job again (docs/spec/design.md section 5; a
 * job lost with Redis, or never enqueued because its instance died after the commit). Section
 * 11 wants such a fill done within 10 s, so it is well under the 10 s of section 5.
 */
const STUCK_FILL_SECONDS = 3;
/**
 * … and this long, the sweep runs the fill itself once per pass, beside any job (a fill is
 * idempotent: the move to submitting and the fill's row lock let one of them through). This
 * rescues a fill whose job is held by a dead instance or cannot be enqueued (Redis down). Not a
 * final attempt: a failing check (stale market data) is left to the job's retries.
 */
const RESCUE_FILL_SECONDS = 6;
/**
 * … and this long, the sweep's fill is the final attempt: longer than a job's whole retry
 * schedule (about 23 s), so it only gives up a fill no job will run again.
 */
const ABANDONED_FILL_SECONDS = 60;
/** A due round whose index is stale is tried again this often (docs/spec/design.md section 7). */
const SETTLEMENT_RETRY_MS = 10_000;
const BATCH = 200;

/**
 * The ledger's sweep, every SWEEP_INTERVAL_MS on every instance, from the database: it catches
 * what a lost job or a crash left behind. Fills and settlements are idempotent, so several
 * instances sweeping at once do no harm.
 */
@Injectable()
export class LedgerSweepService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly periodic: PeriodicSweep;
  /** round key → when this instance last tried to settle it (ms) */
  private readonly lastTry = new Map<string, number>();

  constructor(
    private readonly rfqs: RfqLookupService,
    private readonly instruments: InstrumentsService,
    private readonly fills: FillService,
    private readonly settlement: SettlementService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.periodic = new PeriodicSweep('ledger sweep', config.sweepIntervalMs, () => this.sweepOnce());
  }

  onApplicationBootstrap(): void {
    this.periodic.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.periodic.stop();
  }

  sweep(): Promise<void> {
    return this.periodic.run();
  }

  private async sweepOnce(): Promise<void> {
    const now = this.clock.now();
    for (const { id, updatedAt } of await this.rfqs.stuckInFill(now - STUCK_FILL_SECONDS, BATCH)) {
      if (this.periodic.stopped) return;
      if (updatedAt <= now - RESCUE_FILL_SECONDS) {
        const final = updatedAt <= now - ABANDONED_FILL_SECONDS;
        logger.event('warn', 'fill left by its job; the sweep fills it', { rfq_id: id, final }, 'Ledger');
        await this.fills
          .fill(id, { final })
          .catch((error) => logger.event(final ? 'error' : 'warn', 'sweep fill failed', { rfq_id: id, error: String(error) }, 'Ledger'));
      }
      if (updatedAt > now - ABANDONED_FILL_SECONDS) await this.fills.enqueue(id);
    }
    const nowMs = this.clock.nowMs();
    for (const { asset, expiry } of await this.instruments.settlement.dueRounds(now, BATCH)) {
      if (this.periodic.stopped) return;
      const key = `${asset}/${expiry}`;
      if (nowMs - (this.lastTry.get(key) ?? 0) < SETTLEMENT_RETRY_MS) continue;
      this.lastTry.set(key, nowMs);
      const settled = await this.settlement.settleAtExpiry(asset, expiry).catch((error) => {
        logger.event('error', 'sweep settlement failed', { asset, expiry, error: String(error) }, 'Ledger');
        return false;
      });
      if (settled) this.lastTry.delete(key);
    }
  }
}
