import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { bumpViewVersion } from '../../common/broadcast/view-versions';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { Database } from '../../common/database/database';
import type { Tx } from '../../common/database/sql';
import { formatHttp } from '@legwork/protocol';
import { AppError } from '../../common/errors/app-error';
import { JobRunner } from '../../common/jobs/job-runner';
import { QUEUES } from '../../common/jobs/queues';
import { logger } from '../../common/logging/logger';
import { parseAsset, parsePositiveAmount, parseUnixSeconds } from '../instruments/domain/inputs';
import { INSTRUMENTS_CHANGED, InstrumentsService } from '../instruments/instruments.service';
import { MarketDataService } from '../market-data/market-data.service';
import { RfqExpiryService } from '../rfq/rfq-expiry.service';
import { RfqLookupService } from '../rfq/rfq-lookup.service';
import { BalanceRepository } from './balance.repository';
import { refreshLockGroups, shareIndexPrices } from './collateral.sql';
import { portfolioLock } from './domain/lock';
import { settlementPayments } from './domain/settlement';
import { LegPricingService } from './leg-pricing.service';
import { PositionRepository } from './position.repository';
import { SettlementRepository } from './settlement.repository';

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

/** No fresh index to settle at (the job and the sweep try again; the admin command is told to give a price). */
class StaleIndexError extends Error {}

/** What a settlement did: `fresh` when this call settled the round (not a repeat). */
interface SettleOutcome {
  fresh: boolean;
  price: bigint;
  settledAt: Date;
  positions: number;
}

/**
 * Settlement of an expiration round (docs/spec/design.md section 7): at its expiry (the delayed job, and
 * the sweep) at the index price of that moment when fresh, or forced by the admin command with
 * an optional price. One transaction: every open position of the round pays or receives (shorts
 * pay floor(|q| * intrinsic), longs share exactly that), positions, instruments and the round are
 * marked settled with the price, and the locks of every account involved are recomputed. After
 * the commit, every instance reloads the round, and its pending and quoted RFQs expire.
 * Idempotent: a settled round is not settled again.
 */
@Injectable()
export class SettlementService implements OnModuleInit {
  constructor(
    private readonly db: Database,
    private readonly rounds: SettlementRepository,
    private readonly balanceRows: BalanceRepository,
    private readonly positionRows: PositionRepository,
    private readonly pricing: LegPricingService,
    private readonly instruments: InstrumentsService,
    private readonly market: MarketDataService,
    private readonly rfqs: RfqLookupService,
    private readonly rfqExpiry: RfqExpiryService,
    private readonly jobs: JobRunner,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
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
    const outcome = await this.db.tx((tx) => this.settleWithin(tx, asset, expiry, given));
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

  /** The settlement's transaction: the round locked, then (unless settled already) its payments (`pay`). */
  private async settleWithin(tx: Tx, asset: string, expiry: number, given: bigint | null): Promise<SettleOutcome> {
    await this.instruments.settlement.lockRound(expiry, tx);
    const round = await this.instruments.settlement.lockExpiration(asset, expiry, tx);
    if (!round) throw new AppError('NOT_FOUND', `no expiration ${expiry} of ${asset}`);
    if (round.settled) {
      const stored = round.settlementPrice!;
      if (given !== null && given !== stored) throw new AppError('CONFLICT', `expiration ${expiry} of ${asset} settled at ${formatHttp(stored)} already`);
      return { fresh: false, price: stored, settledAt: round.settledAt!, positions: await this.rounds.paymentCount(tx, asset, expiry) };
    }
    return this.pay(tx, asset, expiry, given ?? (await this.freshIndex(tx, asset)));
  }

  /**
   * Every open position of the round pays or receives; positions, instruments and the round are
   * marked settled at `price`, and the locks of every account involved are recomputed.
   */
  private async pay(tx: Tx, asset: string, expiry: number, price: bigint): Promise<SettleOutcome> {
    // Instruments first (fills share-lock them before balance rows), then the balance rows in account-id order.
    const instruments = await this.instruments.settlement.lockTerms(asset, expiry, tx);
    // Index rows before balance rows, as a fill takes them: the locks below are at these prices (collateral.sql.ts).
    const indexes = await shareIndexPrices(tx);
    const terms = new Map(instruments.map((i) => [i.symbol, i]));
    const symbols = instruments.map((i) => i.symbol);
    const held = await this.positionRows.heldIn(tx, symbols);
    const payments = settlementPayments(
      held.map((p) => ({ ...p, kind: terms.get(p.instrument)!.kind, strike: terms.get(p.instrument)!.strike })),
      price,
    );
    const accounts = [...new Set(payments.map((p) => p.accountId))].sort((a, b) => a - b);
    for (const id of accounts) await this.balanceRows.ensureRow(tx, id);
    const balances = await this.balanceRows.rowsOf(tx, accounts, true);
    for (const p of payments) {
      await this.rounds.insertPayment(tx, p);
      await this.positionRows.settleOne(tx, p.accountId, p.instrument, p.amount);
    }
    await this.positionRows.settleRest(tx, symbols);
    // The round's row is locked since lockExpiration: marking it here or before the bump takes no new lock.
    const settledAt = await this.instruments.settlement.markSettled(asset, expiry, price, tx);
    await bumpViewVersion(tx, INSTRUMENTS_CHANGED);

    // Locks over what stays open (this round's positions are settled now).
    const open = await this.positionRows.openOf(tx, accounts);
    const received = new Map<number, bigint>();
    for (const p of payments) received.set(p.accountId, (received.get(p.accountId) ?? 0n) + p.amount);
    // A short that owes more than its total ends negative: a debt shown as it is (docs/spec/design.md section 12).
    const rows = accounts.map((id) => ({
      accountId: id,
      row: {
        total: balances.get(id)!.total + received.get(id)!,
        locked: portfolioLock(open.get(id)!, { indexByAsset: indexes, lockUpsideBps: this.pricing.params.lockUpsideBps }),
      },
    }));
    if (rows.length > 0) await this.balanceRows.setMany(tx, rows);
    await refreshLockGroups(tx, accounts);
    logger.event('info', 'expiration settled', { asset, expiry, price: price.toString(), positions: payments.length }, 'Ledger');
    return { fresh: true, price, settledAt, positions: payments.length };
  }

  /** The asset's index from the database, if no older than MARKET_DATA_MAX_AGE_SECONDS. */
  private async freshIndex(tx: Tx, asset: string): Promise<bigint> {
    const row = await this.market.storedIndex(asset, tx);
    const age = row ? this.clock.now() - Math.floor(new Date(row.updatedAt).getTime() / 1000) : Infinity;
    if (!row || age > this.config.marketDataMaxAgeSeconds) throw new StaleIndexError(`no fresh index for ${asset}`);
    return row.price;
  }
}
