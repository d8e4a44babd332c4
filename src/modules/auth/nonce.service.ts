import { randomBytes } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { signInMessage } from '@legwork/protocol';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { AppError, withoutStack } from '../../common/errors/app-error';
import { RateLimiter } from '../../common/rate-limit/rate-limiter';
import { PeriodicSweep } from '../../common/jobs/periodic-sweep';
import { NonceRepository } from './nonce.repository';
import { parseWalletParam } from './wallet-param';

const NONCE_TTL_SECONDS = 300;
const LIVE_NONCES_PER_WALLET = 3;

export interface NonceChallenge {
  wallet: string;
  nonce: string;
  expires_at: number;
  message: string;
}

/**
 * Sign-in nonces: 32 hex from a CSPRNG, 300 s, single use; a fourth live nonce evicts the oldest;
 * NONCE_RATE_PER_MINUTE requests per client IP, HTTP and WebSocket together.
 */
@Injectable()
export class NonceService implements OnApplicationBootstrap, OnApplicationShutdown {
  /** Expired nonces are deleted on every sweep (docs/spec/design.md section 10: none older than 10 minutes remain). */
  private readonly sweep: PeriodicSweep;

  constructor(
    private readonly nonces: NonceRepository,
    private readonly limiter: RateLimiter,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.sweep = new PeriodicSweep('nonce sweep', config.sweepIntervalMs, () => this.purgeExpired());
  }

  onApplicationBootstrap(): void {
    this.sweep.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.sweep.stop();
  }

  async issue(wallet: unknown, clientIp: string): Promise<NonceChallenge> {
    const wait = await this.limiter.window(`nonce:${clientIp}`, this.config.nonceRatePerMinute, 60_000);
    if (wait > 0) throw withoutStack(() => new AppError('RATE_LIMITED', `at most ${this.config.nonceRatePerMinute} nonce requests per minute`, wait));
    const walletText = parseWalletParam(wallet);
    const nonce = randomBytes(16).toString('hex');
    const now = this.clock.now();
    const expiresAt = now + NONCE_TTL_SECONDS;
    await this.nonces.add(walletText, nonce, expiresAt, now, LIVE_NONCES_PER_WALLET);
    return { wallet: walletText, nonce, expires_at: expiresAt, message: signInMessage(this.config.serviceName, walletText, nonce) };
  }

  /** Uses the nonce up: true when it was live for this wallet. Whatever follows, it is gone. */
  async consume(wallet: string, nonce: string): Promise<boolean> {
    const expiresAt = await this.nonces.take(wallet, nonce);
    return expiresAt !== null && expiresAt >= this.clock.now();
  }

  /** Drops expired nonces (called by the periodic sweep). */
  async purgeExpired(): Promise<void> {
    await this.nonces.purgeExpired(this.clock.now());
  }
}
