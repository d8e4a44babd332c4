import { Injectable } from '@nestjs/common';
import { formatRfq } from '@legwork/protocol';
import { Clock } from '../../common/clock';
import { Database } from '../../common/database/database';
import type { Sql, Tx } from '../../common/database/sql';
import { RfqError } from '../../common/errors/app-error';
import { logger } from '../../common/logging/logger';
import { MarketDataService } from '../market-data/market-data.service';
import { type MakerLimits, boundsOpenQuotes, limitsDocument, needsMarks } from './domain/maker-limits';
import { type FillWindow, type OpenUsage, type QuoteExposure, checkOpenLimits, checkQuoteLimits, quoteExposure } from './domain/quote-exposure';
import type { QuotedRfq } from './domain/quoted-rfq';
import { MakerLimitsRepository, type QuotesVersion, type VersionRead, quotesVersion } from './maker-limits.repository';
import { type MakerLimitsRow, effectiveOf, isFrozen } from './maker-limits-row';
import { type QuoteLegs, type UsageMarks, addUsage, openUsage, quoteLegs, usageMarks } from './domain/open-usage';
import { LimitsHooks } from './limits-hooks';
import type { KnownCheck, KnownQuotes, LimitsView, LockedLimits, SeenQuotes } from './maker-limits.types';
export type { KnownCheck, LimitsView, SeenQuotes } from './maker-limits.types';

const formatMap = (map: Record<string, bigint>) => Object.fromEntries(Object.entries(map).map(([asset, v]) => [asset, formatRfq(v)]));

/** Makers whose quotes are kept at most (the rest are read again, never wrong); legs kept (about 200 bytes each). */
const [KNOWN_MAKERS, LEGS_KEPT] = [10_000, 200_000];

/** The usage kept with a maker's known quotes, when it was summed at version `key`, for `after`, at `marks`: the same inputs, the same sums. */
const keptUsage = (known: KnownQuotes | undefined, key: string, after: number, marks: UsageMarks): OpenUsage | undefined => {
  const kept = known?.sums;
  return kept && kept.key === key && kept.after === after && kept.marks === marks ? kept.usage : undefined;
};

/** The unix second a quote must expire after to be live at `nowMs` (its expires_at is still ahead). */
const liveAfter = (nowMs: number) => Math.floor(nowMs / 1000);

/**
 * A maker's limits on its firm quotes (docs/spec/design.md section 15): the limits documents, the
 * usage of its live quotes at the current marks, and the checks a new quote passes before it is
 * taken. The protection trip after a fill is ProtectionTripService's.
 */
@Injectable()
export class MakerLimitsService {
  /** The last greeks table and its form for the sums (the table is reused for a second). */
  private marks$: { greeks: unknown; marks: UsageMarks } | null = null;
  /** The legs of live quotes seen, by RFQ id (they never change). */
  private readonly legs = new Map<string, QuoteLegs>();
  /** Each maker's quotes as last read here, kept exact by the version of its quotes. */
  private readonly known = new Map<number, KnownQuotes>();

  constructor(
    private readonly db: Database,
    private readonly rows: MakerLimitsRepository,
    private readonly market: MarketDataService,
    private readonly clock: Clock,
    private readonly hooks: LimitsHooks,
  ) {}

  /**
   * Makers this instance last saw with a limit on what is out: their responds are queued here in
   * arrival order (see `inOrder`). A stale entry only orders; the database lock is what bounds.
   */
  private readonly bounded = new Set<number>();

  /**
   * Whether this maker's responds run one at a time on this instance, in the order they came: its
   * quotes queue on its limits row anyway, and in arrival order their rising nonces do not refuse
   * each other (a respond that reached the move after a higher nonce would be RFQ_STATE_CONFLICT).
   */
  inOrder(accountId: number): boolean {
    return this.bounded.has(accountId);
  }

  /** The maker's limits row as just read (null: never had limits): whether its responds queue here (`inOrder`). */
  remember(accountId: number, row: MakerLimitsRow | null): void {
    if (row && this.serialized(row)) this.bounded.add(accountId);
    else this.bounded.delete(accountId);
  }

  /** The row locked to the caller's commit, with the maker's high-water row (respond under limits on what is out). */
  lock(tx: Tx, accountId: number): Promise<LockedLimits> {
    return this.rows.lockWithVersion(tx, accountId);
  }

  /** Does a respond under this row need the maker's lock (limits on what is already out)? */
  serialized(row: MakerLimitsRow): boolean {
    return boundsOpenQuotes(this.effective(row));
  }

  /**
   * The limit checks of a new quote (docs/spec/design.md section 15), after the signature and the
   * legs: max_quote_notional, price_band_bps, the protection freeze, then count, notional, delta
   * and vega of what is out after adding it, read from the database (`sql`).
   */
  async checkQuote(
    sql: Sql,
    accountId: number,
    row: MakerLimitsRow | null,
    rfq: QuotedRfq,
    quote: { bid: bigint; ask: bigint },
    nowMs: number,
    replacing?: string,
  ): Promise<void> {
    const checked = this.checkOne(row, rfq, quote, nowMs);
    if (checked && boundsOpenQuotes(checked.limits)) {
      checkOpenLimits(checked.limits, await this.usage(accountId, nowMs, sql, replacing), checked.exposure, rfq.id);
    }
  }

  /**
   * checkQuote for a respond whose transaction (`sql`) holds the maker's limits row locked; it also
   * locks the maker's high-water row, so the quotes it saw are exactly those out until it commits.
   */
  async checkLocked(
    tx: Tx,
    accountId: number,
    locked: LockedLimits,
    rfq: QuotedRfq,
    quote: { bid: bigint; ask: bigint },
    nowMs: number,
    replacing?: string,
  ): Promise<SeenQuotes> {
    const checked = this.checkOne(locked.row, rfq, quote, nowMs);
    if (!checked || !boundsOpenQuotes(checked.limits)) return null;
    const live = await this.liveUsage({ sql: tx, lock: true }, accountId, nowMs, locked.version ?? undefined, replacing);
    try {
      checkOpenLimits(checked.limits, live.usage, checked.exposure, rfq.id);
      return { accountId, version: live.version };
    } catch (error) {
      if (!(error instanceof RfqError && error.code === 'RFQ_OPEN_LIMIT') || !locked.version) throw error;
    }
    // The version read with the lock may hold an older account_seq (quotes gone since are then
    // still counted): a refusal is decided on the version read now.
    const fresh = await this.liveUsage({ sql: tx, lock: true }, accountId, nowMs, undefined, replacing);
    checkOpenLimits(checked.limits, fresh.usage, checked.exposure, rfq.id);
    return { accountId, version: fresh.version };
  }

  /**
   * checkLocked without a read, on the maker's quotes as known here and the limits row as read
   * (`row`): what the respond's guarded move then holds it to (the row unchanged, the nonce
   * high-water mark still `highWater`: no quote came in since), with the SeenQuotes that move
   * gives `quoted`. Null when it cannot pass here: no quotes known, a leg not kept, or any
   * refusal (a refusal is always decided in the transaction, on the locked row and a fresh read).
   */
  checkKnown(
    accountId: number,
    row: MakerLimitsRow,
    rfq: QuotedRfq,
    quote: { bid: bigint; ask: bigint; quoteNonce: bigint },
    nowMs: number,
  ): KnownCheck | null {
    const known = this.known.get(accountId);
    const after = liveAfter(nowMs);
    if (!known || after < known.after || (known.version.highWater !== null && quote.quoteNonce <= known.version.highWater)) return null;
    try {
      const checked = this.checkOne(row, rfq, quote, nowMs);
      if (!checked || !boundsOpenQuotes(checked.limits)) return null;
      const usage = this.knownUsage(known, after, nowMs);
      if (!usage) return null;
      checkOpenLimits(checked.limits, usage, checked.exposure, rfq.id);
    } catch {
      return null;
    }
    const version = { ...known.version, locked: true };
    return { highWater: known.version.highWater, limits: row, seen: { accountId, version } };
  }

  /** The usage of the known quotes live after `after` at the current marks, kept with them; null when a leg is not kept here. */
  private knownUsage(known: KnownQuotes, after: number, nowMs: number): OpenUsage | null {
    const live = this.liveKnown(known, after);
    const marks = this.marks(Math.floor(nowMs / 1000));
    const kept = keptUsage(known, known.version.key, after, marks);
    if (kept) return kept;
    const legs: QuoteLegs[] = [];
    for (const id of live.keys()) {
      const quoted = this.legs.get(id);
      if (!quoted) return null;
      legs.push(quoted);
    }
    const usage = openUsage(legs, marks);
    known.sums = { key: known.version.key, after, marks, usage };
    return usage;
  }

  /** max_quote_notional, price_band_bps and the freeze; the limits and the quote's exposure for the rest (null: no limits row). */
  private checkOne(
    row: MakerLimitsRow | null,
    rfq: QuotedRfq,
    quote: { bid: bigint; ask: bigint },
    nowMs: number,
  ): { limits: MakerLimits; exposure: QuoteExposure } | null {
    if (!row) return null;
    const limits = this.effective(row);
    const now = Math.floor(nowMs / 1000);
    const exposure = needsMarks(limits) ? this.exposure(rfq, now) : quoteExposure(rfq.asset, []);
    checkQuoteLimits(limits, exposure, quote, rfq.id);
    if (isFrozen(row, nowMs)) {
      const until = row.frozenUntil === null ? 'until rfq.maker.reset_protection' : `until ${row.frozenUntil}`;
      // Frozen until a reset (no end time): retrying cannot help until the maker resets (docs/errors.md).
      throw new RfqError('RFQ_OPEN_LIMIT', `maker protection: frozen ${until} (${row.tripReason ?? 'tripped'})`, {
        rfqId: rfq.id,
        reason: 'maker_protection',
        ...(row.frozenUntil === null ? { retryable: false as const } : {}),
      });
    }
    return { limits, exposure };
  }

  /**
   * A quote just taken (committed): its legs are kept, so the next usage read of its maker need not
   * read them. After checkLocked (the high-water row was locked, so no other quote of the maker
   * came in between), it joins the maker's known quotes, whose version moves to its nonce.
   */
  quoted(rfq: QuotedRfq, seen: SeenQuotes = null, nonce?: bigint, expiresAt?: number): void {
    if (this.legs.size < LEGS_KEPT) this.legs.set(rfq.id, quoteLegs(rfq.asset, rfq.legs));
    const known = seen?.version.locked ? this.known.get(seen.accountId) : undefined;
    if (!known || known.version.key !== seen!.version.key || nonce === undefined || expiresAt === undefined) return;
    // Every kept quote is live after known.after (liveKnown prunes only when `after` moves); a
    // quote already expired there cannot be live later either, and would break that.
    if (expiresAt <= known.after) {
      this.known.delete(seen!.accountId);
      return;
    }
    known.quotes.set(rfq.id, expiresAt);
    known.version = quotesVersion(nonce, seen!.version.lastSeq, false, seen!.version.competition);
    const kept = known.sums;
    known.sums =
      kept?.key === seen!.version.key
        ? { ...kept, key: known.version.key, usage: addUsage(kept.usage, openUsage([quoteLegs(rfq.asset, rfq.legs)], kept.marks)) }
        : undefined;
  }

  /**
   * The ids of the maker's live quotes at `nowMs`: those known here while the version of its
   * quotes is the one they were read at (every change to them moves it, in the change's own
   * transaction), else read in `sql` after the version, and kept. `ids` is the kept set itself
   * (id → expires_at), not a copy: a caller reads it before its next await. Only a quote of this
   * maker committed here can join it meanwhile (`quoted`), one that is out, so a usage read counts
   * it; a check under the maker's lock sees none join (no quote of the maker commits then).
   */
  private async liveIds(
    at: VersionRead,
    accountId: number,
    nowMs: number,
    read?: QuotesVersion,
  ): Promise<{ ids: ReadonlyMap<string, number>; version: QuotesVersion }> {
    let version = read ?? (await this.rows.quotesVersion(accountId, at));
    // Competitive quotes count as live quotes (docs/spec/design.md 18): their version is read
    // before them, so a set read after a change is never kept under the version before it.
    const competition = this.hooks.competition;
    if (competition && version.competition === null) {
      version = quotesVersion(version.highWater, version.lastSeq, version.locked, await competition.version(accountId, at.sql));
    }
    const after = liveAfter(nowMs);
    const known = this.known.get(accountId);
    if (known && known.version.key === version.key && after >= known.after) return { ids: this.liveKnown(known, after), version };
    const live = await this.rows.liveQuotes(accountId, after, at.sql);
    if (competition) live.push(...(await competition.liveQuotes(accountId, after, at.sql)));
    if (!known && this.known.size >= KNOWN_MAKERS) this.known.clear();
    const quotes = new Map(live.map((q) => [q.id, q.expiresAt]));
    this.known.set(accountId, { version, after, quotes });
    return { ids: quotes, version };
  }

  /**
   * The known quotes still live after `after`: the others are dropped when `after` moves on. Every
   * kept quote is live after `known.after`, so within the same second nothing is walked (a maker's
   * thousands of quotes cost each call nothing until the second changes).
   */
  private liveKnown(known: KnownQuotes, after: number): ReadonlyMap<string, number> {
    if (after === known.after) return known.quotes;
    known.after = after;
    for (const [id, expiresAt] of known.quotes) if (expiresAt <= after) known.quotes.delete(id);
    return known.quotes;
  }

  /** rfq.maker.get_limits: the documents, the usage at the current marks, the protection state. */
  async view(accountId: number): Promise<LimitsView> {
    const nowMs = this.clock.nowMs();
    // The row and the versions in one statement (one round trip, not three); the live quotes, when
    // not known here, are read after it, as liveIds asks.
    const { row, version } = await this.rows.findWithVersion(accountId, this.hooks.competition?.versionSql ?? null);
    const usage = (await this.liveUsage({ sql: this.db, lock: false }, accountId, nowMs, version)).usage;
    const window: FillWindow =
      row?.limits.protection || row?.adminLimits.protection ? await this.rows.window(accountId) : { fills: 0, notional: 0n, delta: {} };
    const frozen = isFrozen(row, nowMs);
    return {
      limits: row?.limits ?? {},
      admin_limits: row?.adminLimits ?? {},
      usage: {
        open_quotes: usage.openQuotes,
        open_notional: formatRfq(usage.openNotional),
        open_delta: formatMap(usage.openDelta),
        open_vega: formatMap(usage.openVega),
      },
      protection: {
        frozen,
        until: frozen ? row.frozenUntil : null,
        window: { fills: window.fills, notional: formatRfq(window.notional), delta: formatMap(window.delta) },
      },
    };
  }

  /** rfq.maker.set_limits (`limits`) or the admin PUT (`admin_limits`): replaces the document; live quotes stay firm. */
  async set(accountId: number, which: 'limits' | 'admin_limits', limits: MakerLimits): Promise<LimitsView> {
    this.remember(accountId, await this.rows.set(accountId, which, limitsDocument(limits), this.clock.now()));
    logger.event('info', 'maker limits set', { account_id: accountId, which }, 'Rfq');
    return this.view(accountId);
  }

  private effective(row: MakerLimitsRow): MakerLimits {
    return effectiveOf(row);
  }

  /** The quote's legs at fresh marks (RFQ_NOT_READY otherwise) with their greeks. */
  private exposure(rfq: QuotedRfq, now: number): QuoteExposure {
    const fresh = this.market.requireFresh(
      rfq.legs.map((l) => l.instrument),
      now,
    );
    const greeks = this.market.greeksAt(now);
    return quoteExposure(
      rfq.asset,
      rfq.legs.map((l) => {
        const g = greeks.get(l.instrument);
        return { quantity: l.quantity, index: fresh.index.get(rfq.asset)!, mark: fresh.marks.get(l.instrument)!, delta: g?.delta ?? 0n, vega: g?.vega ?? 0n };
      }),
    );
  }

  /** The maker's live quotes at the current marks (latest data, fresh or not; a leg without data counts zero). */
  private async usage(accountId: number, nowMs: number, sql: Sql = this.db, replacing?: string): Promise<OpenUsage> {
    return (await this.liveUsage({ sql, lock: false }, accountId, nowMs, undefined, replacing)).usage;
  }

  /**
   * The usage of the maker's live quotes and their version: the sums kept with its known quotes
   * while the version, the second and the marks are those they were summed at (the same inputs,
   * the same sums), else summed and kept.
   */
  private async liveUsage(
    at: VersionRead,
    accountId: number,
    nowMs: number,
    read?: QuotesVersion,
    replacing?: string,
  ): Promise<{ usage: OpenUsage; version: QuotesVersion }> {
    const live = await this.liveIds(at, accountId, nowMs, read);
    // A replace counts net (docs/spec/design.md 18): the quote it replaces (the maker's one live
    // quote on that RFQ, same legs, same exposure) is left out of what is already out.
    if (replacing !== undefined && live.ids.has(replacing)) {
      return {
        usage: await this.usageOf(
          [...live.ids.keys()].filter((id) => id !== replacing),
          nowMs,
          at.sql,
        ),
        version: live.version,
      };
    }
    const after = liveAfter(nowMs);
    const marks = this.marks(Math.floor(nowMs / 1000));
    const known = this.known.get(accountId);
    const kept = keptUsage(known, live.version.key, after, marks);
    if (kept) return { usage: kept, version: live.version };
    const usage = await this.usageOf([...live.ids.keys()], nowMs, at.sql);
    if (known && known.version.key === live.version.key) known.sums = { key: live.version.key, after, marks, usage };
    return { usage, version: live.version };
  }

  /** The usage of these quotes at the current marks; legs not kept here are read. */
  private async usageOf(ids: readonly string[], nowMs: number, sql: Sql): Promise<OpenUsage> {
    const missing = ids.filter((id) => !this.legs.has(id));
    if (missing.length > 0) {
      // Bounded: a quote's legs are read again after a clear, never wrong.
      if (this.legs.size + missing.length > LEGS_KEPT) this.legs.clear();
      for (const q of await this.rows.legsOf(missing, sql)) this.legs.set(q.id, quoteLegs(q.asset, q.legs));
    }
    return openUsage(
      ids.map((id) => this.legs.get(id)!),
      this.marks(Math.floor(nowMs / 1000)),
    );
  }

  /** The greeks table as the sums take it, built once per table (a second, or until the data changes). */
  private marks(now: number): UsageMarks {
    const greeks = this.market.greeksAt(now);
    if (this.marks$?.greeks === greeks) return this.marks$.marks;
    const marks = usageMarks(greeks, this.market.indexPrices());
    this.marks$ = { greeks, marks };
    return marks;
  }
}
