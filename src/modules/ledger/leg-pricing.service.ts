import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { RfqError } from '../../common/errors/app-error';
import { InstrumentsService } from '../instruments/instruments.service';
import { MarketDataService } from '../market-data/market-data.service';
import { resolveLegs } from '../rfq/domain/rfq-legs';
import type { RfqLeg } from '../rfq/domain/rfq-record';
import type { RiskParams } from './domain/fill-check';
import type { FundingLeg } from './domain/funding';
import type { LockPosition } from './domain/lock';

/** A leg of an RFQ with its instrument's terms and fresh market data (taker-buy orientation). */
export interface PricedLeg extends FundingLeg {
  instrument: string;
}

const notReady = () => new RfqError('RFQ_NOT_READY', 'market data is stale or missing; retry shortly');

/**
 * Prices legs for accept, fill, revert and settlement: legs at fresh marks, index prices
 * for locks, and the configured fee and lock parameters (docs/spec/design.md section 6).
 */
@Injectable()
export class LegPricingService {
  readonly params: RiskParams;

  constructor(
    private readonly instruments: InstrumentsService,
    private readonly market: MarketDataService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.params = {
      takerFeeBps: config.takerFeeBps,
      tradeFeeCapBps: config.tradeFeeCapBps,
      takerFeeToleranceBps: config.takerFeeToleranceBps,
      lockUpsideBps: config.lockUpsideBps,
    };
  }

  /**
   * rfq.accept: every leg tradable (RFQ_INVALID_INSTRUMENT naming the leg; a paused one
   * retryable), then priced at fresh marks (RFQ_NOT_READY).
   */
  tradableLegs(legs: readonly RfqLeg[], now: number): PricedLeg[] {
    resolveLegs(legs, (symbol) => this.instruments.get(symbol), now);
    return this.pricedLegs(legs, now);
  }

  /** The legs at fresh marks, whatever their instruments' state (the fill); RFQ_NOT_READY when stale. */
  pricedLegs(legs: readonly RfqLeg[], now: number): PricedLeg[] {
    const fresh = this.market.requireFresh(
      legs.map((l) => l.instrument),
      now,
    );
    return legs.map((l) => {
      const instrument = this.instruments.get(l.instrument);
      if (!instrument) throw notReady(); // requireFresh refuses an unknown symbol first
      return {
        instrument: l.instrument,
        asset: instrument.asset,
        expiry: instrument.expiry,
        strike: instrument.strike,
        kind: instrument.kind,
        quantity: l.quantity,
        index: fresh.index.get(instrument.asset)!,
        mark: fresh.marks.get(l.instrument)!,
      };
    });
  }

  /**
   * The index price of every asset the positions hold, for their locks. `fresh`: each must be no
   * older than MARKET_DATA_MAX_AGE_SECONDS, else RFQ_NOT_READY (docs/spec/interface.md 7.2: "a stale or
   * missing … spot … for the account's RFQ positions"). Otherwise the latest, stale or not (an
   * asset with none stresses to its highest strike).
   */
  indexFor(positions: Iterable<Pick<LockPosition, 'asset'>>, now: number, fresh: boolean): Map<string, bigint> {
    const index = new Map<string, bigint>();
    for (const { asset } of positions) {
      if (index.has(asset)) continue;
      const quote = this.market.index(asset);
      if (fresh && (!quote || now - quote.updatedAt > this.config.marketDataMaxAgeSeconds)) throw notReady();
      if (quote) index.set(asset, quote.price);
    }
    return index;
  }
}
