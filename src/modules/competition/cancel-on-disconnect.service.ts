import { Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { PeriodicSweep } from '../../common/jobs/periodic-sweep';
import { logger } from '../../common/logging/logger';
import { Presence } from '../../common/presence/presence';
import { MakerQuotesService } from './maker-quotes.service';
import { disconnectedMakers } from './domain/cancel-on-disconnect';
import { MakerProfileRepository } from './maker-profile.repository';

/** How often the check runs on each instance. */
const CHECK_INTERVAL_MS = 1000;

/**
 * Cancel on disconnect (docs/spec/design.md 19): every second on every instance, the makers with
 * the flag and a live competitive quote whose presence (common/presence) is older than the grace
 * have their live competitive quotes cancelled, as rfq.maker.cancel_quotes would (events to the
 * takers, limits freed, RFQs back to pending). Idempotent: two instances cancelling the same
 * maker each end only what is still live under its RFQ's row.
 */
@Injectable()
export class CancelOnDisconnectService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly periodic = new PeriodicSweep('cancel on disconnect', CHECK_INTERVAL_MS, async () => {
    await this.check();
  });
  /** When this instance started watching each maker (the grace of a maker without a presence record). */
  private readonly watchedSince = new Map<number, number>();

  constructor(
    private readonly clock: Clock,
    private readonly presence: Presence,
    private readonly profiles: MakerProfileRepository,
    private readonly makerQuotes: MakerQuotesService,
  ) {}

  onApplicationBootstrap(): void {
    this.periodic.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.periodic.stop();
  }

  /** One pass; the makers whose quotes it cancelled. */
  async check(): Promise<number[]> {
    const watched = await this.profiles.watched();
    const nowMs = this.clock.nowMs();
    const ids = new Set(watched.map((m) => m.accountId));
    for (const id of this.watchedSince.keys()) if (!ids.has(id)) this.watchedSince.delete(id);
    for (const id of ids) if (!this.watchedSince.has(id)) this.watchedSince.set(id, nowMs);
    if (watched.length === 0) return [];
    const seen = await this.presence.lastSeen([...ids]);
    const gone = new Set(
      disconnectedMakers(
        this.clock.nowMs(),
        watched.map((m) => ({ accountId: m.accountId, lastSeenMs: seen.get(m.accountId), watchedSinceMs: this.watchedSince.get(m.accountId)! })),
      ),
    );
    for (const maker of watched.filter((m) => gone.has(m.accountId))) {
      if (this.periodic.stopped) break;
      const { cancelled } = await this.makerQuotes
        .cancelQuotes(maker)
        .catch(
          (error) => (
            logger.event('warn', 'quotes not cancelled on disconnect', { maker_account_id: maker.accountId, error: String(error) }, 'Competition'),
            { cancelled: [] }
          ),
        );
      if (cancelled.length > 0)
        logger.event('info', 'quotes cancelled on disconnect', { maker_account_id: maker.accountId, quote_ids: cancelled }, 'Competition');
    }
    return [...gone];
  }
}
