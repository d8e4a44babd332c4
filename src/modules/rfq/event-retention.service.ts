import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { Database } from '../../common/database/database';
import { PeriodicSweep } from '../../common/jobs/periodic-sweep';
import { AccountEventRepository } from './account-event.repository';
import { EVENT_RETENTION_SECONDS } from './domain/account-event';

/** Events deleted by one statement: a large backlog takes several, so no statement holds long. */
const PRUNE_BATCH = 5_000;

/**
 * Stored account events are kept 7 days (docs/spec/design.md 13): a sweep deletes older ones, at most every
 * minute (no need to chase each second), on every instance (the DELETE is idempotent).
 */
@Injectable()
export class EventRetentionService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly periodic: PeriodicSweep;

  constructor(
    private readonly events: AccountEventRepository,
    private readonly db: Database,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.periodic = new PeriodicSweep('event retention sweep', Math.max(config.sweepIntervalMs, 60_000), async () => void (await this.prune()));
  }

  onApplicationBootstrap(): void {
    this.periodic.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.periodic.stop();
  }

  /** Deletes what is past retention, batch by batch; how many. */
  async prune(): Promise<number> {
    const before = this.clock.now() - EVENT_RETENTION_SECONDS;
    let total = 0;
    for (;;) {
      const n = await this.events.prune(before, PRUNE_BATCH, this.db);
      total += n;
      if (n < PRUNE_BATCH || this.periodic.stopped) return total;
    }
  }
}
