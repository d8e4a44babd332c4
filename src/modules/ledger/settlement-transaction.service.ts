import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { Database } from '../../common/database/database';
import type { Tx } from '../../common/database/sql';
import { formatHttp } from '@legwork/protocol';
import { AppError } from '../../common/errors/app-error';
import { InstrumentsService } from '../instruments/instruments.service';
import { MarketDataService } from '../market-data/market-data.service';
import { SettlementPaymentsService } from './settlement-payments.service';
import { SettlementRepository } from './settlement.repository';

/** No fresh index to settle at (the job and the sweep try again; the admin command is told to give a price). */
export class StaleIndexError extends Error {}

/** What a settlement did: `fresh` when this call settled the round (not a repeat). */
export interface SettleOutcome {
  fresh: boolean;
  price: bigint;
  settledAt: Date;
  positions: number;
}

/**
 * The settlement's transaction (settlement.service.ts has the whole): the round locked, a repeat
 * answered from what is stored, else the price (given, or the fresh index) and the payments.
 */
@Injectable()
export class SettlementTransactionService {
  constructor(
    private readonly db: Database,
    private readonly rounds: SettlementRepository,
    private readonly instruments: InstrumentsService,
    private readonly market: MarketDataService,
    private readonly clock: Clock,
    private readonly payments: SettlementPaymentsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Settles the round in one transaction; StaleIndexError without a price and a fresh index. */
  run(asset: string, expiry: number, given: bigint | null): Promise<SettleOutcome> {
    return this.db.tx((tx) => this.settleWithin(tx, asset, expiry, given));
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
    return this.payments.pay(tx, asset, expiry, given ?? (await this.freshIndex(tx, asset)));
  }

  /** The asset's index from the database, if no older than MARKET_DATA_MAX_AGE_SECONDS. */
  private async freshIndex(tx: Tx, asset: string): Promise<bigint> {
    const row = await this.market.storedIndex(asset, tx);
    const age = row ? this.clock.now() - Math.floor(new Date(row.updatedAt).getTime() / 1000) : Infinity;
    if (!row || age > this.config.marketDataMaxAgeSeconds) throw new StaleIndexError(`no fresh index for ${asset}`);
    return row.price;
  }
}
