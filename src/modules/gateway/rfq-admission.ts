import { Inject, Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import { ViewVersions } from '../../common/broadcast/view-versions';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { RfqError, withoutStack } from '../../common/errors/app-error';
import { REDIS } from '../../common/infrastructure.module';
import { QueryRateLimit, RfqRateLimit } from '../../common/rate-limit/public-rate-limit';
import { checkAccess, type Principal } from '../../common/access/access';
import type { RegisteredMethod } from './rpc-registry';

/** The read methods that count against the account's bucket of authenticated reads (docs/spec/design.md section 20). */
const QUERY_METHODS: ReadonlySet<string> = new Set(['rfq.get', 'rfq.list', 'rfq.maker.poll', 'rfq.maker.quotes', 'rfq.makers', 'rfq.maker.stats']);

/**
 * Whether an rfq.* call may run (docs/spec/design.md sections 4, 11, 20), before its params are
 * read: the RFQ switch, the caller's role, the views' freshness for writes, the account's buckets.
 */
@Injectable()
export class RfqAdmission {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly views: ViewVersions,
    private readonly rfqLimit: RfqRateLimit,
    private readonly queryLimit: QueryRateLimit,
    @Inject(REDIS) private readonly redis: Redis | null,
  ) {}

  /** RFQ_ENABLED, then who may call (RFQ_WRONG_ROLE), then the views' freshness for writes, then the account's token bucket. */
  async admit({ name, access, declaration }: RegisteredMethod, principal: Principal | null): Promise<void> {
    if (!this.config.rfqEnabled) throw new RfqError('RFQ_NOT_ENABLED', 'RFQ trading is not enabled');
    const denial = checkAccess(access, principal);
    if (denial === 'AUTH_REQUIRED') throw new RfqError('RFQ_WRONG_ROLE', 'sign in with an account first', { reason: 'not_signed_in' });
    if (denial === 'FORBIDDEN') {
      const role = access.kind === 'account' && access.role ? `the ${access.role} role` : 'an account';
      throw new RfqError('RFQ_WRONG_ROLE', `this method needs ${role}`);
    }
    // docs/spec/design.md section 11: never trade on an instrument or market view that could not be confirmed (reads are served).
    if (declaration.mode === 'write' && this.views.stale().length > 0) {
      throw new RfqError('RFQ_NOT_READY', 'this instance could not confirm its instrument and market data for 30 s; retry (another instance may serve you)', {
        reason: 'views_unconfirmed',
      });
    }
    const accountId = principal?.accountId;
    if (accountId == null) return;
    if (QUERY_METHODS.has(name)) await this.admitQuery(accountId);
    // docs/spec/design.md 11: Redis down, rfq.* answers RFQ_NOT_READY. Said here, not left to the
    // bucket's round trip failing: a leased token needs no Redis, and the call would go on.
    if (this.redis && this.redis.status !== 'ready') {
      throw new RfqError('RFQ_NOT_READY', 'this instance has lost Redis; retry (another instance may serve you)', { reason: 'redis_unavailable' });
    }
    // Leased shares of the account's bucket: a call that finds a token here makes no round trip.
    const admitted = this.rfqLimit.admit(String(accountId));
    const wait = typeof admitted === 'number' ? admitted : await admitted;
    if (wait > 0) {
      throw withoutStack(
        () =>
          new RfqError('RFQ_RATE_LIMITED', `at most ${this.config.rfqRatePerSecond} rfq calls per second (burst ${this.config.rfqRateBurst})`, {
            retryAfterMs: wait,
            reason: 'rate_limited',
          }),
      );
    }
  }

  /** A read method: the account's bucket of authenticated reads first (docs/spec/design.md section 20). */
  private async admitQuery(accountId: number): Promise<void> {
    const admitted = this.queryLimit.admit(String(accountId));
    const wait = typeof admitted === 'number' ? admitted : await admitted;
    if (wait === 0) return;
    const { queryRatePerSecond: rate, queryRateBurst: burst } = this.config;
    throw withoutStack(
      () => new RfqError('RFQ_RATE_LIMITED', `at most ${rate} reads per second per account (burst ${burst})`, { retryAfterMs: wait, reason: 'query_rate' }),
    );
  }
}
