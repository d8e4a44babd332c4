import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { RfqError, withoutStack } from '../../common/errors/app-error';
import { InMemoryRateLimiter, RateLimiter } from '../../common/rate-limit/rate-limiter';
import type { ReplayTicket } from '../../common/rpc/event-source';

/** Replays of one account running at once, across its connections and the instances (docs/spec/design.md section 20). */
const MAX_REPLAYS_PER_ACCOUNT = 2;
/** A replay's slot frees itself this long after its instance last renewed it (the instance died). */
const SLOT_TTL_MS = 10_000;
const RENEW_MS = 3_000;
/**
 * The retry hint of a refused replay. A running replay of a week of events at the account's budget
 * takes seconds, and its slot would only free itself SLOT_TTL_MS after a crash: half a second is a
 * fair time to look again, not the slot's expiry.
 */
const RETRY_MS = 500;
/** The instance's budget is this many times an account's (docs/spec/design.md section 20). */
const INSTANCE_FACTOR = 4;

/**
 * Who may replay and how fast (docs/spec/design.md section 20): at most MAX_REPLAYS_PER_ACCOUNT
 * replays of one account at once (slots in the RateLimiter: Redis with several instances, renewed
 * while the replay runs), and every replayed event taken from two token buckets: the account's
 * (REPLAY_EVENTS_PER_SECOND, shared by the instances) and this instance's (four times that, in
 * memory: it bounds what this process spends on replays whoever asks). A replay that finds a
 * bucket empty waits for it: it pauses, it does not fail.
 */
@Injectable()
export class ReplayGovernor {
  /** This instance's budget: its own, whatever the deployment (it bounds this process's work). */
  private readonly instance = new InMemoryRateLimiter();
  /** Slots when the shared store cannot be reached (Redis down): this instance limits alone. */
  private readonly alone = new InMemoryRateLimiter();
  private readonly rate: number;

  constructor(
    private readonly limiter: RateLimiter,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.rate = config.replayEventsPerSecond;
  }

  /** A slot for one replay of the account, or RFQ_RATE_LIMITED with `retry_after_ms` when it has two running. */
  async admit(accountId: number): Promise<ReplayTicket> {
    const key = `replay:${accountId}`;
    const holder = randomUUID();
    const hold = () =>
      this.limiter.hold(key, holder, MAX_REPLAYS_PER_ACCOUNT, SLOT_TTL_MS).catch(() => this.alone.hold(key, holder, MAX_REPLAYS_PER_ACCOUNT, SLOT_TTL_MS));
    const wait = await hold();
    if (wait > 0) {
      throw withoutStack(
        () =>
          new RfqError(
            'RFQ_RATE_LIMITED',
            `at most ${MAX_REPLAYS_PER_ACCOUNT} replays (subscribe with since) run at once per account; retry after this one's answer`,
            { reason: 'replay_busy', retryAfterMs: Math.min(wait, RETRY_MS) },
          ),
      );
    }
    const renew = setInterval(() => void hold().catch(() => undefined), RENEW_MS);
    renew.unref?.();
    let released = false;
    return {
      // A lease asked ahead of a replay that ended meanwhile stops waiting for budget it would not use.
      grant: (want) => this.grant(accountId, want, () => released),
      release: () => {
        if (released) return;
        released = true;
        clearInterval(renew);
        void this.limiter.free(key, holder).catch(() => undefined);
        void this.alone.free(key, holder);
      },
    };
  }

  /**
   * Up to `want` events from both budgets, waiting while either is spent; 0 once the replay is
   * `over`. What the instance's bucket gave beyond the account's grant goes back to it: a lease
   * is a page of events, and kept, the part the account could not match would be lost to every
   * other account's replays on this instance.
   */
  private async grant(accountId: number, want: number, over: () => boolean): Promise<number> {
    const burst = this.rate * INSTANCE_FACTOR;
    for (;;) {
      if (over()) return 0;
      const fromInstance = await this.instance.lease('instance', burst, burst, want);
      if (fromInstance < 0) {
        await sleep(-fromInstance);
        continue;
      }
      // The account's bucket is shared by the instances; unreadable (Redis down), the instance's alone bounds the replay.
      const fromAccount = await this.limiter.lease(`replay-budget:${accountId}`, this.rate, this.rate, fromInstance).catch(() => fromInstance);
      this.instance.giveBack('instance', burst, fromInstance - Math.max(0, fromAccount));
      if (fromAccount > 0) return fromAccount;
      await sleep(-fromAccount);
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
