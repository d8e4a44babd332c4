import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { Broadcaster } from '../../common/broadcast/broadcaster';
import { ViewSync } from '../../common/broadcast/view-sync';
import { ViewVersions, bumpViewVersion } from '../../common/broadcast/view-versions';
import { Clock } from '../../common/clock';
import { Database } from '../../common/database/database';
import type { Sql, Tx } from '../../common/database/sql';
import { AppError } from '../../common/errors/app-error';
import { JobRunner } from '../../common/jobs/job-runner';
import { QUEUES, jobIds } from '../../common/jobs/queues';
import { logger } from '../../common/logging/logger';
import { parseUnixSeconds } from './domain/inputs';
import { type CreateInstrumentsInput, planListing } from './domain/listing';
import {
  type Instrument,
  type InstrumentFilter,
  type InstrumentRecord,
  type Round,
  compareInstruments,
  heldSince,
  inRound,
  instrumentRecord,
} from './instrument';
import { InstrumentListing } from './instrument-listing';
import { type InstrumentTerms, InstrumentRepository, type RoundSettlementState } from './instrument.repository';

/** Broadcast topic: the instruments of a round changed in the database; every instance reloads them. */
export const INSTRUMENTS_CHANGED = 'instruments.changed';

export interface CreateInstrumentsResult {
  asset: string;
  expiration: number;
  created: number;
}

/** A round to pause or resume, as its route's declaration checked it (an integer; an asset name). */
export interface PauseInput {
  expiration: number;
  /** Absent or null: every asset at the expiration. */
  asset?: string | null;
}

export interface PauseResult {
  expiration: number;
  asset: string | null;
  paused: boolean;
  /** How many instruments the round holds (all of them now carry `paused`). */
  instruments: number;
}

/** How often an instance drops the rounds that crossed the 7-day line from its view (section 17). */
const SWEEP_EVERY_MS = 10 * 60_000;

/**
 * At most this many instruments of rounds settled before the 7-day line per listing with
 * `include_settled` (read from the database in listing order; docs/decisions.md): a listing's cost
 * is bounded, whatever the exchange's age. A client reads older rounds one `expiry` at a time.
 */
const OLD_SETTLED_LISTING_LIMIT = 10_000;

/** Two lists in listing order merged into one, in one pass. */
function mergeSorted(a: readonly Instrument[], b: readonly Instrument[]): Instrument[] {
  const out: Instrument[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(compareInstruments(a[i], b[j]) <= 0 ? a[i++] : b[j++]);
  while (i < a.length) out.push(a[i++]);
  while (j < b.length) out.push(b[j++]);
  return out;
}

/** The round a broadcast names; anything unreadable reloads everything. */
function roundOf(payload: unknown): Round | null {
  const { asset, expiry } = (payload ?? {}) as Partial<Round>;
  return typeof expiry === 'number' ? { asset: typeof asset === 'string' ? asset : null, expiry } : null;
}

/**
 * Owns instruments: create-instruments, pause and resume of expiration rounds, and the in-memory
 * view every instance keeps in step with the database (written first, then announced through the
 * broadcaster; every instance, the writer included, reloads the round it hears about).
 */
@Injectable()
export class InstrumentsService implements OnModuleInit, OnModuleDestroy {
  private view = new Map<string, Instrument>();
  /** The view sorted and indexed for listings: built on the first listing after the view changed, not per call. */
  private listing: InstrumentListing | null = null;
  private readonly sync: ViewSync<Round>;
  private sweepTimer: NodeJS.Timeout | null = null;
  private readonly evictedListeners: Array<(symbols: readonly string[]) => void> = [];

  constructor(
    private readonly db: Database,
    private readonly repository: InstrumentRepository,
    broadcaster: Broadcaster,
    private readonly jobs: JobRunner,
    private readonly clock: Clock,
    versions: ViewVersions,
  ) {
    this.sync = new ViewSync(broadcaster, INSTRUMENTS_CHANGED, (round) => this.load(round), roundOf, versions);
  }

  /**
   * Listen first, then load everything: no change can fall between the load and the listening.
   * Then sweep the view every SWEEP_EVERY_MS: a round that crosses the 7-day line leaves it.
   */
  async onModuleInit(): Promise<void> {
    await this.sync.start();
    this.sweepTimer = setInterval(() => this.sweep(), SWEEP_EVERY_MS);
    this.sweepTimer.unref?.();
  }

  onModuleDestroy(): void {
    this.sync.stop();
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = null;
  }

  /**
   * The in-memory view: the listed instrument of an open round or of one settled within the last
   * 7 days (docs/spec/design.md section 17), or undefined (unknown, or settled before: stored()
   * reads those). Synchronous, no I/O.
   */
  get(symbol: string): Instrument | undefined {
    return this.view.get(symbol);
  }

  /**
   * Instruments of the view, ordered by asset, expiry, strike, kind (call before put). The lists
   * are made once per change of the view and shared: a call costs what it returns, not a sort of
   * every instrument ever listed (docs/spec/design.md section 16). Never change what it returns.
   */
  list(filter: InstrumentFilter = {}): readonly Instrument[] {
    this.listing ??= new InstrumentListing(this.view.values());
    return this.listing.list(filter);
  }

  /** The wire records of list(filter), shared like the list (the HTTP route sends them as they are). */
  records(filter: InstrumentFilter = {}): readonly InstrumentRecord[] {
    this.listing ??= new InstrumentListing(this.view.values());
    return this.listing.records(filter);
  }

  /** The wire record of a listed instrument, made once per instrument of the view. */
  record(instrument: Instrument): InstrumentRecord {
    return this.listing?.record(instrument) ?? instrumentRecord(instrument);
  }

  /**
   * The listing of GET /v1/instruments and public/get_instruments. Without `includeSettled`, the
   * view's shared list. With it, the view's (open and recently settled) merged in listing order
   * with the older settled instruments read from the database (at most OLD_SETTLED_LISTING_LIMIT).
   */
  async listed(filter: InstrumentFilter): Promise<readonly Instrument[]> {
    const held = this.list(filter);
    if (!filter.includeSettled) return held;
    const older = await this.repository.settledBefore(filter, heldSince(this.clock.now()), OLD_SETTLED_LISTING_LIMIT);
    if (older.length === 0) return held;
    // With an expiry and no asset the rows come in no order: one expiration's, sorted here.
    if (filter.expiry !== undefined && filter.asset === undefined) older.sort(compareInstruments);
    const read = new Set(older.map((i) => i.symbol));
    // The view may still hold a round that crossed the line since its last sweep: listed once.
    return mergeSorted(
      older,
      held.filter((i) => !read.has(i.symbol)),
    );
  }

  /** The wire records of listed(filter): the view's shared ones without `includeSettled`. */
  async listedRecords(filter: InstrumentFilter): Promise<readonly InstrumentRecord[]> {
    if (!filter.includeSettled) return this.records(filter);
    return (await this.listed(filter)).map((i) => (this.view.get(i.symbol) === i ? this.record(i) : instrumentRecord(i)));
  }

  /**
   * The listed instruments among `symbols`, from the view or, for those it does not hold (a round
   * settled before the 7-day line), from the database by primary key: rfq.create's refusal of a leg
   * tells a settled instrument apart from an unknown one.
   */
  async stored(symbols: readonly string[]): Promise<Map<string, Instrument>> {
    const found = new Map<string, Instrument>();
    for (const symbol of symbols) {
      const held = this.view.get(symbol);
      if (held) found.set(symbol, held);
    }
    const missing = symbols.filter((s) => !found.has(s));
    if (missing.length > 0) for (const i of await this.repository.stored(missing)) found.set(i.symbol, i);
    return found;
  }

  /** Calls `listener` with the symbols every sweep drops from the view (market data drops their IVs). */
  onEvicted(listener: (symbols: readonly string[]) => void): void {
    this.evictedListeners.push(listener);
  }

  /**
   * Drops from the view the instruments of rounds settled before the 7-day line (docs/spec/design.md
   * section 17): they crossed it since they were loaded. A walk of the view, which holds recent
   * rounds only; no I/O. How many it dropped.
   */
  sweep(nowSeconds: number = this.clock.now()): number {
    const since = heldSince(nowSeconds);
    const dropped: string[] = [];
    for (const [symbol, i] of this.view) {
      if (i.settledAt != null && i.settledAt <= since) dropped.push(symbol);
    }
    if (dropped.length === 0) return 0;
    for (const symbol of dropped) this.view.delete(symbol);
    this.listing = null;
    for (const listener of this.evictedListeners) listener(dropped);
    logger.event('info', 'settled rounds left the view', { instruments: dropped.length }, 'Instruments');
    return dropped.length;
  }

  /**
   * POST /v1/admin/create-instruments (docs/spec/design.md section 2): lists the strikes (given, or the grid
   * around the spot) as calls and puts; existing ones are skipped, so `created` counts new ones only.
   * New instruments of a paused round are paused. Schedules the settlement of the expiration.
   */
  async create(input: CreateInstrumentsInput): Promise<CreateInstrumentsResult> {
    const now = this.clock.now();
    const listing = planListing(input, now);
    const { asset, expiration } = listing;
    const written = await this.db.tx(async (sql) => {
      await this.repository.lockRound(expiration, sql);
      if (!(await this.repository.insertExpiration(asset, expiration, listing.utcDate, sql))) {
        const existing = await this.repository.expirationOn(asset, listing.utcDate, sql);
        if (existing && existing.expiry !== expiration) {
          throw new AppError('CONFLICT', `${asset} already has an expiration on ${listing.utcDate}: ${existing.expiry}`);
        }
        if (existing?.settled) throw new AppError('CONFLICT', `expiration ${expiration} of ${asset} is settled`);
      }
      const paused = await this.repository.roundPaused(expiration, sql);
      const created = await this.repository.insertMissing(asset, expiration, paused, listing.instruments, sql);
      const version = created > 0 ? await bumpViewVersion(sql, INSTRUMENTS_CHANGED) : null;
      return { created, version };
    });
    await this.announce({ asset, expiry: expiration }, written.version, () =>
      this.jobs.enqueue(QUEUES.settlement, { asset, expiration }, { delayMs: (expiration - now) * 1000, jobId: jobIds.settlement(asset, expiration) }),
    );
    return { asset, expiration, created: written.created };
  }

  /** POST /v1/admin/instruments/pause-by-expiration: every instrument at the expiration (of the asset, when given). */
  pauseByExpiration(input: PauseInput): Promise<PauseResult> {
    return this.setPaused(input, true);
  }

  /** POST /v1/admin/instruments/resume-by-expiration: undoes the pause. */
  resumeByExpiration(input: PauseInput): Promise<PauseResult> {
    return this.setPaused(input, false);
  }

  /**
   * Call after any other write to the instruments of a round (settlement): reloads this instance's
   * view of the round, then tells every instance to reload it. Throws UNAVAILABLE when the
   * announcement cannot be published (the write stands; announcing again is safe).
   */
  changed(round: Round): Promise<void> {
    return this.announce(round, null);
  }

  /**
   * `version`: the one the change's transaction bumped to (null: unknown). `alsoDo` (a job to
   * enqueue) runs beside the publication; either failing is UNAVAILABLE.
   */
  private async announce(round: Round, version: bigint | null, alsoDo?: () => Promise<void>): Promise<void> {
    await this.sync.refresh(round).catch(() => undefined); // logged; retried by the sync
    const results = await Promise.allSettled([alsoDo?.(), this.sync.publish(round, version)]);
    const failure = results.find((r) => r.status === 'rejected');
    if (failure) {
      logger.event('error', 'instruments change not announced', { ...round, error: String(failure.reason) }, 'Instruments');
      throw new AppError('UNAVAILABLE', 'the change is saved but could not be announced to every instance; repeat the command');
    }
  }

  private async setPaused(input: PauseInput, paused: boolean): Promise<PauseResult> {
    // The route's declaration checked the type; the range (a two-digit year in symbols) is the domain's rule.
    const expiration = parseUnixSeconds(input.expiration, 'expiration');
    const asset = input.asset ?? null;
    const { instruments, version } = await this.db.tx(async (sql) => {
      await this.repository.lockRound(expiration, sql);
      const count = await this.repository.setPaused({ expiry: expiration, asset }, paused, sql);
      return { instruments: count, version: await bumpViewVersion(sql, INSTRUMENTS_CHANGED) };
    });
    logger.event('info', paused ? 'round paused' : 'round resumed', { expiration, asset, instruments }, 'Instruments');
    await this.announce({ asset, expiry: expiration }, version);
    return { expiration, asset, paused, instruments };
  }

  /** Loads the held instruments (open, or settled within 7 days) of the round, or all of them. */
  private async load(round: Round | null): Promise<void> {
    const instruments = await this.repository.held(round, heldSince(this.clock.now()));
    this.listing = null;
    if (round === null) {
      this.view = new Map(instruments.map((i) => [i.symbol, i]));
      return;
    }
    // Swapped in one synchronous step: get() never sees half a round.
    for (const [symbol, i] of this.view) if (inRound(i, round)) this.view.delete(symbol);
    for (const i of instruments) this.view.set(i.symbol, i);
  }

  /** Whether any instrument of the asset is listed, settled ones included (read from the database). */
  assetListed(asset: string, sql?: Sql): Promise<boolean> {
    return this.repository.assetListed(asset, sql);
  }

  /** symbol → asset of the listed instruments among `symbols` (read from the database). */
  assetsOf(symbols: readonly string[], sql?: Sql): Promise<Map<string, string>> {
    return this.repository.assetsOf(symbols, sql);
  }

  /**
   * The symbols of the asset's open instruments, or (`openOnly` false) of those an instance holds
   * (`asset` null: of every asset):
   * open or settled within 7 days (read from the database).
   */
  symbolsOf(asset: string | null, openOnly: boolean, sql?: Sql): Promise<string[]> {
    return this.repository.symbols(asset, openOnly ? null : heldSince(this.clock.now()), sql);
  }

  /**
   * The settlement's port on the round (the ledger's SettlementService calls these in its one
   * transaction, in this order: lockRound, lockExpiration, lockTerms, ..., markSettled, then
   * bumpViewVersion(INSTRUMENTS_CHANGED) and changed(round) after commit).
   */
  readonly settlement = {
    lockRound: (expiry: number, tx: Tx): Promise<void> => this.repository.lockRound(expiry, tx),
    lockExpiration: (asset: string, expiry: number, tx: Tx): Promise<RoundSettlementState | null> => this.repository.lockExpiration(asset, expiry, tx),
    lockTerms: (asset: string, expiry: number, tx: Tx): Promise<InstrumentTerms[]> => this.repository.lockTerms(asset, expiry, tx),
    settledAmong: (symbols: readonly string[], sql: Sql): Promise<string[]> => this.repository.settledAmong(symbols, sql),
    markSettled: (asset: string, expiry: number, price: bigint, tx: Tx): Promise<Date> => this.repository.markSettled(asset, expiry, price, tx),
    dueRounds: (now: number, limit: number): Promise<Array<{ asset: string; expiry: number }>> => this.repository.dueRounds(now, limit),
  };
}
