import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { formatHttp } from '@legwork/protocol';
import { AppError } from '../../common/errors/app-error';
import { JobRunner } from '../../common/jobs/job-runner';
import { QUEUES } from '../../common/jobs/queues';
import { logger } from '../../common/logging/logger';
import { parseAsset, parsePositiveAmount, parseUnixSeconds } from '../instruments/domain/inputs';
import { InstrumentsService } from '../instruments/instruments.service';
import { RfqExpiryService } from '../rfq/rfq-expiry.service';
import { RfqLookupService } from '../rfq/rfq-lookup.service';
import { SettlementTransactionService, StaleIndexError } from './settlement-transaction.service';

export interface SettleExpirationInput {
  asset: unknown;
  expiration: unknown;
  settlement_price?: unknown;
}

export interface SettleExpirationResult {
  asset: string;
  expiration: number;
  settled: true;
  /** HTTP form, 8 decimal places */
  settlement_price: string;
  /** unix seconds */
  settled_at: number;
  /** position rows of the round that paid or received (non-zero quantities) */
  positions: number;
}

/**
 * Settlement of an expiration round (docs/spec/design.md section 7): at its expiry (the delayed job, and
 * the sweep) at the index price of that moment when fresh, or forced by the admin command with
 * an optional price. One transaction: every open position of the round pays or receives (shorts
 * pay floor(|q| * intrinsic), longs share exactly that), positions, instruments and the round are
 * marked settled with the price, and the locks of every account involved are recomputed. After
 * the commit, every instance reloads the round, and its pending and quoted RFQs expire.
 * Idempotent: a settled round is not settled again. The transaction is SettlementTransactionService's,
 * the payments SettlementPaymentsService's.
 */
@Injectable()
export class SettlementService implements OnModuleInit {
  constructor(
    private readonly instruments: InstrumentsService,
    private readonly rfqs: RfqLookupService,
    private readonly rfqExpiry: RfqExpiryService,
    private readonly jobs: JobRunner,
    private readonly clock: Clock,
    private readonly settlements: SettlementTransactionService,
  ) {}

  onModuleInit(): void {
    this.jobs.process(QUEUES.settlement, async ({ asset, expiration }) => {
      await this.settleAtExpiry(asset, expiration);
    });
  }

  /**
   * The job and the sweep: settles the round at its asset's fresh index once its expiry has come.
   * false when it cannot yet (not due, or the index is stale: the sweep tries again).
   */
  async settleAtExpiry(asset: string, expiry: number): Promise<boolean> {
    const early = expiry * 1000 - this.clock.nowMs();
    if (early > 5_000) return false; // another job, or the sweep, settles it when due
    if (early > 0) await new Promise((resolve) => setTimeout(resolve, early));
    try {
      await this.settle(asset, expiry, null);
      return true;
    } catch (error) {
      if (error instanceof StaleIndexError) {
        logger.event('warn', 'settlement waits for a fresh index', { asset, expiry }, 'Ledger');
        return false;
      }
      if (error instanceof AppError && error.code === 'NOT_FOUND') return false;
      throw error;
    }
  }

  /** POST /v1/admin/instruments/settle-expiration: settles now, at `settlement_price` or the fresh index. */
  async settleExpiration(input: SettleExpirationInput): Promise<SettleExpirationResult> {
    const asset = parseAsset(input.asset);
    const expiration = parseUnixSeconds(input.expiration, 'expiration');
    const price =
      input.settlement_price === undefined || input.settlement_price === null
        ? null
        : parsePositiveAmount(input.settlement_price, 'settlement_price', { allowNumber: true });
    try {
      return await this.settle(asset, expiration, price);
    } catch (error) {
      if (error instanceof StaleIndexError) throw new AppError('CONFLICT', `no fresh index price for ${asset}; give settlement_price`);
      throw error;
    }
  }

  private async settle(asset: string, expiry: number, given: bigint | null): Promise<SettleExpirationResult> {
    const outcome = await this.settlements.run(asset, expiry, given);
    // A failed announcement is rethrown once the round's RFQs are expired.
    const announced = outcome.fresh
      ? await this.instruments.changed({ asset, expiry }).then(
          () => null,
          (error: unknown) => ({ error }),
        )
      : null;
    // Pending and quoted RFQs on the round expire (a repeat catches any a crash left behind).
    for (const rfqId of await this.rfqs.openOfRound(asset, expiry)) await this.rfqExpiry.expireNow(rfqId);
    if (announced) throw announced.error;
    return {
      asset,
      expiration: expiry,
      settled: true,
      settlement_price: formatHttp(outcome.price),
      settled_at: Math.floor(new Date(outcome.settledAt).getTime() / 1000),
      positions: outcome.positions,
    };
  }
}
