import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { AppError, withoutStack } from '../../common/errors/app-error';
import { RateLimiter } from '../../common/rate-limit/rate-limiter';

/** How long an address refused by the shared limiter is refused here without asking Redis again. */
const LOCAL_REFUSAL_MS = 1000;
const MAX_REFUSED = 10_000;

/**
 * AUTH_RATE_PER_MINUTE sign-in attempts per client IP, any outcome: public/auth,
 * public/session_resume and POST /v1/auth/session together (docs/spec/design.md section 10). An address
 * over the limit is refused in this process for a second before the shared counter is asked
 * again: a flood of attempts costs no Redis round trip per frame.
 */
@Injectable()
export class AuthAttemptsService {
  /** Refused addresses: refused here until `until`, told to come back at `retryAt` (ms). */
  private readonly refused = new Map<string, { until: number; retryAt: number }>();

  constructor(
    private readonly limiter: RateLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Counts one attempt from `clientIp`, or RATE_LIMITED. */
  async admit(clientIp: string): Promise<void> {
    const refusal = this.refused.get(clientIp);
    if (refusal !== undefined) {
      const now = Date.now();
      if (refusal.until > now) throw this.limited(refusal.retryAt - now);
      this.refused.delete(clientIp);
    }
    const wait = await this.limiter.window(`auth:${clientIp}`, this.config.authRatePerMinute, 60_000);
    if (wait === 0) return;
    if (this.refused.size >= MAX_REFUSED) this.refused.clear();
    const now = Date.now();
    this.refused.set(clientIp, { until: now + Math.min(wait, LOCAL_REFUSAL_MS), retryAt: now + wait });
    throw this.limited(wait);
  }

  private limited(retryAfterMs: number): AppError {
    return withoutStack(() => new AppError('RATE_LIMITED', `at most ${this.config.authRatePerMinute} sign-in attempts per minute`, retryAfterMs));
  }
}
