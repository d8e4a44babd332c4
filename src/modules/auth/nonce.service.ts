import { randomBytes } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { signInMessage } from '@legwork/protocol';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { Database } from '../../common/database/database';
import { sqlRows } from '../../common/database/sql';
import { AppError } from '../../common/errors/app-error';
import { RateLimiter } from '../../common/rate-limit/rate-limiter';
import { PeriodicSweep } from '../../common/jobs/periodic-sweep';
import { parseWalletParam } from './wallet-param';

export const NONCE_TTL_SECONDS = 300;
export const LIVE_NONCES_PER_WALLET = 3;

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
  /** Expired nonces are deleted on every sweep (design.md section 10: none older than 10 minutes remain). */
  private readonly sweep: PeriodicSweep;

  constructor(
    private readonly db: Database,
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
    if (!(await this.limiter.hit(`nonce:${clientIp}`, this.config.nonceRatePerMinute, 60_000))) {
      throw new AppError('RATE_LIMITED', `at most ${this.config.nonceRatePerMinute} nonce requests per minute`);
    }
    const walletText = parseWalletParam(wallet);
    const nonce = randomBytes(16).toString('hex');
    const now = this.clock.now();
    const expiresAt = now + NONCE_TTL_SECONDS;
    await this.db.dataSource.transaction(async (m) => {
      // One wallet's nonces change one at a time, so the eviction below cannot leave four live.
      await m.query(`SELECT pg_advisory_xact_lock(hashtext('nonce:' || $1))`, [walletText]);
      await m.query(`DELETE FROM auth_nonces WHERE wallet = $1 AND expires_at < $2`, [walletText, now]);
      await m.query(`INSERT INTO auth_nonces (nonce, wallet, expires_at) VALUES ($1, $2, $3)`, [nonce, walletText, expiresAt]);
      await m.query(
        `DELETE FROM auth_nonces WHERE wallet = $1 AND nonce NOT IN
           (SELECT nonce FROM auth_nonces WHERE wallet = $1 ORDER BY created_seq DESC LIMIT ${LIVE_NONCES_PER_WALLET})`,
        [walletText],
      );
    });
    return { wallet: walletText, nonce, expires_at: expiresAt, message: signInMessage(this.config.serviceName, walletText, nonce) };
  }

  /** Uses the nonce up: true when it was live for this wallet. Whatever follows, it is gone. */
  async consume(wallet: string, nonce: string): Promise<boolean> {
    const rows = await sqlRows<{ expires_at: string }>(this.db.dataSource, `DELETE FROM auth_nonces WHERE nonce = $1 AND wallet = $2 RETURNING expires_at`, [
      nonce,
      wallet,
    ]);
    return rows.length === 1 && Number(rows[0].expires_at) >= this.clock.now();
  }

  /** Drops expired nonces (called by the periodic sweep). */
  async purgeExpired(): Promise<void> {
    await this.db.dataSource.query(`DELETE FROM auth_nonces WHERE expires_at < $1`, [this.clock.now()]);
  }
}
