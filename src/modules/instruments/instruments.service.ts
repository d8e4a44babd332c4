import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Broadcaster } from '../../common/broadcast/broadcaster';
import { ViewSync } from '../../common/broadcast/view-sync';
import { ViewVersions, bumpViewVersion } from '../../common/broadcast/view-versions';
import { Clock } from '../../common/clock';
import { Database } from '../../common/database/database';
import { AppError } from '../../common/errors/app-error';
import { JobRunner } from '../../common/jobs/job-runner';
import { QUEUES, jobIds } from '../../common/jobs/queues';
import { logger } from '../../common/logging/logger';
import { parseAsset, parseUnixSeconds } from './domain/inputs';
import { type CreateInstrumentsInput, planListing } from './domain/listing';
import type { OptionKind } from './domain/symbol';
import { type Instrument, type InstrumentFilter, type Round, compareInstruments, inRound } from './instrument';

/** Broadcast topic: the instruments of a round changed in the database; every instance reloads them. */
export const INSTRUMENTS_CHANGED = 'instruments.changed';

export interface CreateInstrumentsResult {
  asset: string;
  expiration: number;
  created: number;
}

export interface PauseInput {
  expiration: unknown;
  asset?: unknown;
}

export interface PauseResult {
  expiration: number;
  asset: string | null;
  paused: boolean;
  /** How many instruments the round holds (all of them now carry `paused`). */
  instruments: number;
}

interface InstrumentRow {
  symbol: string;
  asset: string;
  strike: string;
  kind: OptionKind;
  expiry: string;
  paused: boolean;
  settled: boolean;
  settlement_price: string | null;
  created_at: Date;
}

const COLUMNS = 'symbol, asset, strike, kind, expiry, paused, settled, settlement_price, created_at';

const toInstrument = (row: InstrumentRow): Instrument => ({
  symbol: row.symbol,
  asset: row.asset,
  strike: BigInt(row.strike),
  kind: row.kind,
  expiry: Number(row.expiry),
  paused: row.paused,
  settled: row.settled,
  settlementPrice: row.settlement_price === null ? null : BigInt(row.settlement_price),
  createdAt: Math.floor(new Date(row.created_at).getTime() / 1000),
});

/**
 * Advisory-lock key namespace of an expiration round ("LWIN" << 32 | expiry): creates, pauses and
 * resumes at one expiration run one after the other, whatever their asset, so a creation never
 * misses a pause committed beside it (the round is the expiration: docs/decisions.md).
 */
const ROUND_LOCK_NAMESPACE = 0x4c57494en << 32n;

/** The round a broadcast names; anything unreadable reloads everything. */
function roundOf(payload: unknown): Round | null {
  const { asset, expiry } = (payload ?? {}) as Partial<Round>;
  return typeof expiry === 'number' ? { asset: typeof asset === 'string' ? asset : null, expiry } : null;
}

async function lockRound(m: EntityManager, expiry: number): Promise<void> {
  await m.query('SELECT pg_advisory_xact_lock($1::bigint)', [(ROUND_LOCK_NAMESPACE | BigInt(expiry)).toString()]);
}

/**
 * Owns instruments: create-instruments, pause and resume of expiration rounds, and the in-memory
 * view every instance keeps in step with the database (written first, then announced through the
 * broadcaster; every instance, the writer included, reloads the round it hears about).
 */
@Injectable()
export class InstrumentsService implements OnModuleInit, OnModuleDestroy {
  private view = new Map<string, Instrument>();
  private readonly sync: ViewSync<Round>;

  constructor(
    private readonly db: Database,
    broadcaster: Broadcaster,
    private readonly jobs: JobRunner,
    private readonly clock: Clock,
    versions: ViewVersions,
  ) {
    this.sync = new ViewSync(broadcaster, INSTRUMENTS_CHANGED, (round) => this.load(round), roundOf, versions);
  }

  /** Listen first, then load everything: no change can fall between the load and the listening. */
  onModuleInit(): Promise<void> {
    return this.sync.start();
  }

  onModuleDestroy(): void {
    this.sync.stop();
  }

  /** The in-memory view: the listed instrument (settled ones included), or undefined. Synchronous, no I/O. */
  get(symbol: string): Instrument | undefined {
    return this.view.get(symbol);
  }

  /** Instruments of the view, ordered by asset, expiry, strike, kind (call before put). */
  list(filter: InstrumentFilter = {}): Instrument[] {
    const out: Instrument[] = [];
    for (const i of this.view.values()) {
      if (filter.asset !== undefined && i.asset !== filter.asset) continue;
      if (filter.expiry !== undefined && i.expiry !== filter.expiry) continue;
      if (!filter.includeSettled && i.settled) continue;
      out.push(i);
    }
    return out.sort(compareInstruments);
  }

  /**
   * POST /v1/admin/create-instruments (design.md section 2): lists the strikes (given, or the grid
   * around the spot) as calls and puts; existing ones are skipped, so `created` counts new ones only.
   * New instruments of a paused round are paused. Schedules the settlement of the expiration.
   */
  async create(input: CreateInstrumentsInput): Promise<CreateInstrumentsResult> {
    const now = this.clock.now();
    const listing = planListing(input, now);
    const { asset, expiration } = listing;
    const written = await this.db.dataSource.transaction(async (m) => {
      await lockRound(m, expiration);
      const inserted: unknown[] = await m.query(
        `INSERT INTO expirations (asset, expiry, utc_date) VALUES ($1, $2, $3::date) ON CONFLICT DO NOTHING RETURNING asset`,
        [asset, expiration, listing.utcDate],
      );
      if (inserted.length === 0) {
        const [existing]: Array<{ expiry: string; settled: boolean }> = await m.query(
          `SELECT expiry, settled FROM expirations WHERE asset = $1 AND utc_date = $2::date`,
          [asset, listing.utcDate],
        );
        if (existing && Number(existing.expiry) !== expiration) {
          throw new AppError('CONFLICT', `${asset} already has an expiration on ${listing.utcDate}: ${existing.expiry}`);
        }
        if (existing?.settled) throw new AppError('CONFLICT', `expiration ${expiration} of ${asset} is settled`);
      }
      const [{ paused }]: Array<{ paused: boolean }> = await m.query(
        `SELECT EXISTS (SELECT 1 FROM instruments WHERE expiry = $1 AND paused) AS paused`,
        [expiration],
      );
      const rows: unknown[] = await m.query(
        `INSERT INTO instruments (symbol, asset, strike, kind, expiry, paused)
         SELECT t.symbol, $1, t.strike, t.kind, $2, $3
           FROM unnest($4::text[], $5::bigint[], $6::text[]) AS t(symbol, strike, kind)
         ON CONFLICT DO NOTHING RETURNING symbol`,
        [
          asset,
          expiration,
          paused,
          listing.instruments.map((i) => i.symbol),
          listing.instruments.map((i) => i.strike.toString()),
          listing.instruments.map((i) => i.kind),
        ],
      );
      const version = rows.length > 0 ? await bumpViewVersion(m, INSTRUMENTS_CHANGED) : null;
      return { created: rows.length, version };
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
    const expiration = parseUnixSeconds(input.expiration, 'expiration');
    const asset = input.asset === undefined || input.asset === null ? null : parseAsset(input.asset);
    const { instruments, version } = await this.db.dataSource.transaction(async (m) => {
      await lockRound(m, expiration);
      const [, count]: [unknown[], number] = await m.query(
        `UPDATE instruments SET paused = $1 WHERE expiry = $2 AND ($3::text IS NULL OR asset = $3::text)`,
        [paused, expiration, asset],
      );
      return { instruments: count, version: await bumpViewVersion(m, INSTRUMENTS_CHANGED) };
    });
    logger.event('info', paused ? 'round paused' : 'round resumed', { expiration, asset, instruments }, 'Instruments');
    await this.announce({ asset, expiry: expiration }, version);
    return { expiration, asset, paused, instruments };
  }

  private async load(round: Round | null): Promise<void> {
    if (round === null) {
      const rows: InstrumentRow[] = await this.db.dataSource.query(`SELECT ${COLUMNS} FROM instruments`);
      this.view = new Map(rows.map((row) => [row.symbol, toInstrument(row)]));
      return;
    }
    const rows: InstrumentRow[] = await this.db.dataSource.query(
      `SELECT ${COLUMNS} FROM instruments WHERE expiry = $1 AND ($2::text IS NULL OR asset = $2::text)`,
      [round.expiry, round.asset],
    );
    // Swapped in one synchronous step: get() never sees half a round.
    for (const [symbol, i] of this.view) if (inRound(i, round)) this.view.delete(symbol);
    for (const row of rows) this.view.set(row.symbol, toInstrument(row));
  }
}
