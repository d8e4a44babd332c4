import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { Broadcaster } from '../../common/broadcast/broadcaster';
import { ViewSync } from '../../common/broadcast/view-sync';
import { ViewVersions, bumpViewVersion } from '../../common/broadcast/view-versions';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { Database } from '../../common/database/database';
import type { Sql, Tx } from '../../common/database/sql';
import { MAX_LEGS, type MethodResult, formatHttp, formatRfq, signingDomain, toHex } from '@legwork/protocol';
import { AppError, RfqError } from '../../common/errors/app-error';
import { logger } from '../../common/logging/logger';
import { invalid } from '../instruments/domain/inputs';
import type { Instrument, InstrumentFilter, InstrumentRecord } from '../instruments/instrument';
import { InstrumentsService } from '../instruments/instruments.service';
import { markPrice } from './domain/black76';
import { type Greeks, greeks } from './domain/greeks';
import { type MarketDataInput, type MarketUpdate, type Stamped, isFresh, parseMarketUpdate } from './domain/market-update';
import { type IndexPriceAge, MarketDataRepository } from './market-data.repository';

/** Broadcast topic: an asset's index or IVs changed in the database; every instance reloads them. */
const MARKET_DATA_CHANGED = 'market-data.changed';

/** docs/spec/design.md section 4: fixed by the payload layouts and the quote rules. */
const PAYLOAD_VERSIONS = { quote: 1, accept: 1 } as const;
const MAX_QUOTE_LIFETIME_SECONDS = 3600;

export interface MarketDataResult {
  asset: string;
  /** HTTP form, 8 decimal places */
  index_price: string;
  /** unix seconds: server time of receipt */
  updated_at: number;
  /** how many instrument IVs were set */
  instruments: number;
}

export interface IndexQuote {
  asset: string;
  /** micro-units */
  price: bigint;
  /** unix seconds */
  updatedAt: number;
}

/** Marks and index prices of a set of legs, all fresh, read once. */
export interface FreshMarket {
  /** asset → index price, micro-units */
  index: Map<string, bigint>;
  /** symbol → mark price, micro-units */
  marks: Map<string, bigint>;
}

/**
 * Work that must commit with an index update, inside its transaction (given the update's `Sql`):
 * the ledger's live collateral registers one (docs/spec/design.md section 12). Registered rather than
 * imported so market data does not depend on the ledger, which depends on it.
 */
export type IndexWrittenHook = (tx: Tx, asset: string) => Promise<void>;

export type InstrumentMarketRecord = InstrumentRecord & { mark_price: string | null; iv: string | null };

/**
 * Index prices and implied volatilities (docs/spec/design.md section 6): written by the admin market-data
 * command, cached per instance (reloaded on every `market-data.changed` broadcast), and turned
 * into Black-76 marks. `requireFresh` is the gate of accept and fill.
 */
/** The result of `public/get_market_config` (docs/spec/design.md section 4), as its declaration states it. */
export type MarketConfig = MethodResult<'public/get_market_config'>;

@Injectable()
export class MarketDataService implements OnModuleInit, OnModuleDestroy {
  private indexes = new Map<string, Stamped>();
  private ivs = new Map<string, Stamped>();
  /** marketConfig(), built once per change of the index prices. */
  private config$: MarketConfig | null = null;
  /** greeksAt(), kept for the second it was computed in until the data changes. */
  private greeks$: { at: number; table: ReadonlyMap<string, Greeks> } | null = null;
  private readonly sync: ViewSync<string>;
  /** Hex of SHA-256(SERVICE_NAME): fixed for the process, computed once. */
  private readonly quoteDomainHex: string;
  private readonly indexHooks: IndexWrittenHook[] = [];

  constructor(
    private readonly db: Database,
    private readonly repository: MarketDataRepository,
    broadcaster: Broadcaster,
    private readonly clock: Clock,
    private readonly instruments: InstrumentsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    versions: ViewVersions,
  ) {
    this.quoteDomainHex = toHex(signingDomain(config.serviceName));
    this.sync = new ViewSync(
      broadcaster,
      MARKET_DATA_CHANGED,
      (asset) => this.load(asset),
      (payload) => {
        const asset = (payload as { asset?: unknown } | null)?.asset;
        return typeof asset === 'string' ? asset : null;
      },
      versions,
    );
  }

  /** Runs `hook` inside every index update's transaction, after the update's own writes. */
  onIndexWritten(hook: IndexWrittenHook): void {
    this.indexHooks.push(hook);
  }

  onModuleInit(): Promise<void> {
    // The instruments' sweep drops rounds settled 7 days ago from their view: their IVs go too.
    this.instruments.onEvicted((symbols) => {
      for (const symbol of symbols) this.ivs.delete(symbol);
      this.greeks$ = null;
    });
    return this.sync.start();
  }

  onModuleDestroy(): void {
    this.sync.stop();
  }

  /**
   * POST /v1/admin/market-data: the asset's index price, and a flat `iv` for every open instrument
   * of the asset and/or per-symbol `ivs`, stamped with the server time of receipt, in one transaction.
   */
  async update(input: MarketDataInput): Promise<MarketDataResult> {
    const receivedMs = this.clock.nowMs();
    const u = parseMarketUpdate(input);
    const at = new Date(receivedMs);
    const written = await this.db.tx(async (sql) => {
      const touched = await this.write(u, at, sql);
      // Live collateral (docs/spec/design.md section 12): every lock on the asset follows the new index before this commits.
      for (const hook of this.indexHooks) await hook(sql, u.asset);
      return { touched, version: await bumpViewVersion(sql, MARKET_DATA_CHANGED) };
    });
    await this.sync.refresh(u.asset).catch(() => undefined); // logged; retried by the sync
    try {
      await this.sync.publish({ asset: u.asset }, written.version);
    } catch (error) {
      logger.event('error', 'market data change not announced', { asset: u.asset, error: String(error) }, 'MarketData');
      throw new AppError('UNAVAILABLE', 'the market data is saved but could not be announced to every instance; repeat the command');
    }
    return { asset: u.asset, index_price: formatHttp(u.indexPrice), updated_at: Math.floor(receivedMs / 1000), instruments: written.touched };
  }

  /** Checks the update against the listed instruments and writes it; how many instruments' IVs it set. */
  private async write(u: MarketUpdate, at: Date, tx: Tx): Promise<number> {
    if (!(await this.instruments.assetListed(u.asset, tx))) throw new AppError('NOT_FOUND', `no instruments are listed for ${u.asset}`);
    const symbols = [...u.ivs.keys()];
    if (symbols.length > 0) {
      const assetOf = await this.instruments.assetsOf(symbols, tx);
      for (const symbol of symbols) {
        const asset = assetOf.get(symbol);
        if (asset === undefined) throw invalid(`ivs.${symbol}: no such instrument`);
        if (asset !== u.asset) throw invalid(`ivs.${symbol}: not an instrument of ${u.asset}`);
      }
    }
    await this.repository.upsertIndex(u.asset, u.indexPrice, at, tx);
    const touched = new Set<string>();
    if (u.iv !== null) {
      const flat = u.iv;
      const open = await this.instruments.symbolsOf(u.asset, true, tx);
      for (const symbol of await this.repository.upsertIvs(new Map(open.map((s) => [s, flat])), at, tx)) touched.add(symbol);
    }
    // Per-symbol IVs after the flat one: a symbol given both ends with its own.
    for (const symbol of await this.repository.upsertIvs(u.ivs, at, tx)) touched.add(symbol);
    return touched.size;
  }

  /**
   * The asset's index price as stored now (not this instance's view), in the caller's transaction:
   * the price a settlement takes when none is given. Null when none was ever set.
   */
  storedIndex(asset: string, sql?: Sql): Promise<{ price: bigint; updatedAt: Date } | null> {
    return this.repository.indexOf(asset, sql);
  }

  /** Every asset's index price in the HTTP output forms, by asset, read from the database (the console). */
  indexAges(): Promise<IndexPriceAge[]> {
    return this.repository.indexAges();
  }

  /** The asset's latest index price, fresh or not; null when none was ever set. */
  index(asset: string): IndexQuote | null {
    const s = this.indexes.get(asset);
    return s ? { asset, price: s.value, updatedAt: s.updatedAt } : null;
  }

  /** Every asset with an index price, by asset. */
  indexPrices(): IndexQuote[] {
    return [...this.indexes.keys()].sort().map((asset) => this.index(asset)!);
  }

  /** The instrument's latest IV (micro-units, 800000 = 80 %), fresh or not; null when none. */
  iv(symbol: string): Stamped | null {
    return this.ivs.get(symbol) ?? null;
  }

  /** Black-76 mark on the latest index and IV, fresh or not; null when the instrument, index or IV is missing. */
  mark(symbol: string, nowSeconds: number): bigint | null {
    const instrument = this.instruments.get(symbol);
    return instrument ? this.markOf(instrument, this.ivs.get(symbol), nowSeconds) : null;
  }

  private markOf(instrument: Instrument, iv: Stamped | undefined, nowSeconds: number): bigint | null {
    const index = this.indexes.get(instrument.asset);
    if (!index || !iv) return null;
    return markPrice({ index: index.value, strike: instrument.strike, kind: instrument.kind, iv: iv.value, secondsToExpiry: instrument.expiry - nowSeconds });
  }

  /**
   * Delta and vega per contract (docs/spec/design.md section 15) of every unsettled instrument with
   * an index and an IV, fresh or not, at `nowSeconds`: each computed once, and the table reused by
   * every caller within the same second until the data changes (the makers' limits read it per
   * respond and per rfq.maker.get_limits).
   */
  greeksAt(nowSeconds: number): ReadonlyMap<string, Greeks> {
    if (this.greeks$?.at === nowSeconds) return this.greeks$.table;
    const table = new Map<string, Greeks>();
    for (const [symbol, iv] of this.ivs) {
      const instrument = this.instruments.get(symbol);
      const index = instrument && !instrument.settled ? this.indexes.get(instrument.asset) : undefined;
      if (!instrument || !index) continue;
      table.set(
        symbol,
        greeks({ index: index.value, strike: instrument.strike, kind: instrument.kind, iv: iv.value, secondsToExpiry: instrument.expiry - nowSeconds }),
      );
    }
    this.greeks$ = { at: nowSeconds, table };
    return table;
  }

  /**
   * Index and marks of the legs, or RFQ_NOT_READY (retryable) when any leg's instrument, index or
   * IV is missing or older than MARKET_DATA_MAX_AGE_SECONDS. The message does not say which.
   */
  requireFresh(symbols: readonly string[], nowSeconds: number): FreshMarket {
    const maxAge = this.config.marketDataMaxAgeSeconds;
    const index = new Map<string, bigint>();
    const marks = new Map<string, bigint>();
    for (const symbol of symbols) {
      const instrument = this.instruments.get(symbol);
      const price = instrument ? this.indexes.get(instrument.asset) : undefined;
      const iv = this.ivs.get(symbol);
      if (!instrument || !isFresh(price, nowSeconds, maxAge) || !isFresh(iv, nowSeconds, maxAge)) {
        throw new RfqError('RFQ_NOT_READY', 'market data is stale or missing; retry shortly');
      }
      index.set(instrument.asset, price.value);
      marks.set(
        symbol,
        markPrice({ index: price.value, strike: instrument.strike, kind: instrument.kind, iv: iv.value, secondsToExpiry: instrument.expiry - nowSeconds }),
      );
    }
    return { index, marks };
  }

  /**
   * `public/get_instruments`: the instrument records with their mark and IV (RFQ form, or null).
   * With `includeSettled`, the instruments of rounds settled before the 7-day line come from the
   * database, and so do their IVs (section 17: this instance does not hold them).
   */
  async instrumentsWithMarks(filter: InstrumentFilter, nowSeconds: number): Promise<InstrumentMarketRecord[]> {
    const listed = await this.instruments.listed(filter);
    const stored = listed.filter((i) => this.instruments.get(i.symbol) !== i).map((i) => i.symbol);
    const storedIvs = stored.length > 0 ? await this.repository.ivs(stored) : null;
    return listed.map((i) => {
      const iv = storedIvs?.get(i.symbol) ?? this.ivs.get(i.symbol);
      const mark = this.markOf(i, iv, nowSeconds);
      return { ...this.instruments.record(i), mark_price: mark === null ? null : formatRfq(mark), iv: iv ? formatRfq(iv.value) : null };
    });
  }

  /**
   * `public/get_market_config` (docs/spec/design.md section 4). The same frozen object until an index price
   * changes (it is the most frequent public read: clients poll it for the index prices).
   */
  marketConfig(): Readonly<MarketConfig> {
    this.config$ ??= Object.freeze(this.buildMarketConfig());
    return this.config$;
  }

  private buildMarketConfig(): MarketConfig {
    const c = this.config;
    return {
      service_name: c.serviceName,
      quote_domain: this.quoteDomainHex,
      settlement_currency: 'USDC',
      decimals: 6,
      payload_versions: { ...PAYLOAD_VERSIONS },
      assets: this.indexPrices().map((q) => ({ asset: q.asset, index_price: formatRfq(q.price), index_updated_at: q.updatedAt })),
      rfq: {
        enabled: c.rfqEnabled,
        max_legs: MAX_LEGS,
        max_open_rfqs: c.maxOpenRfqs,
        rfq_ttl_seconds: c.rfqTtlSeconds,
        max_quote_lifetime_seconds: MAX_QUOTE_LIFETIME_SECONDS,
        taker_fee_bps: c.takerFeeBps,
        trade_fee_cap_bps: c.tradeFeeCapBps,
        taker_fee_tolerance_bps: c.takerFeeToleranceBps,
        market_data_max_age_seconds: c.marketDataMaxAgeSeconds,
      },
    };
  }

  private async load(asset: string | null): Promise<void> {
    const indexes = await this.repository.indexes(asset);
    // The IVs of the instruments an instance holds (open or settled within 7 days: section 17), not of every one ever listed.
    const ivs = await this.repository.ivs(await this.instruments.symbolsOf(asset, false));
    // Applied in one synchronous step; rows are never deleted, so setting them is the whole change.
    this.config$ = null;
    this.greeks$ = null;
    if (asset === null) {
      this.indexes = indexes;
      this.ivs = ivs;
      return;
    }
    for (const [key, value] of indexes) this.indexes.set(key, value);
    for (const [key, value] of ivs) this.ivs.set(key, value);
  }
}
