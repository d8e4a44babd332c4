import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { Database } from '../../common/database/database';
import type { Sql, Tx } from '../../common/database/sql';
import { RfqError } from '../../common/errors/app-error';
import { logger } from '../../common/logging/logger';
import type { CheckedQuote, CompetitionPort, CompetitiveQuotesQuery, DeclineResult, KeptCompetitiveQuote, RespondResult } from '../rfq/competition-port';
import { CompetitionHooks } from '../rfq/competition-port';
import type { DeclineCommand, RespondCommand } from '../rfq/domain/rfq-params';
import type { CompetitiveQuote, RfqRecord } from '../rfq/domain/rfq-record';
import { MakerLimitsService } from '../rfq/maker-limits.service';
import { RfqLookupService } from '../rfq/rfq-lookup.service';
import { RfqTransitionsService } from '../rfq/rfq-transitions.service';
import type { RfqCaller } from '../rfq/rfq.service';
import { CompetitionCloseService } from './competition-close.service';
import { CompetitionRepository } from './competition.repository';

/** The conflict of respond and decline (as for a seed RFQ): the maker does not learn where the RFQ went. */
const NOT_OPEN = 'the RFQ is no longer open for quotes';

/** Open to quotes at `nowMs`: pending or quoted, not past its expires_at. */
const open = (rfq: RfqRecord, nowMs: number) => (rfq.state === 'pending' || rfq.state === 'quoted') && rfq.expiresAt * 1000 > nowMs;

/**
 * Competitive RFQs' quotes (docs/spec/design.md 18): respond (add or replace the maker's one live
 * quote), decline, the maker's cancels and the taker's cancel. Every change runs in one
 * transaction that holds the RFQ's row (so the moves between pending and quoted, the accept and
 * the ends never interleave), after the maker's limits lock when its limits bound what is out.
 */
@Injectable()
export class CompetitionService implements CompetitionPort, OnModuleInit {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly quotes: CompetitionRepository,
    private readonly close: CompetitionCloseService,
    private readonly transitions: RfqTransitionsService,
    private readonly limits: MakerLimitsService,
    private readonly lookup: RfqLookupService,
    private readonly hooks: CompetitionHooks,
  ) {}

  onModuleInit(): void {
    this.hooks.use(this);
  }

  /**
   * The quote joins the RFQ's live quotes, replacing the maker's live one there (ended `replaced`)
   * in the same transaction; limits count it net; the nonce high-water mark rises with it (a
   * failure consumes no nonce: the transaction rolls back).
   */
  async respond(maker: RfqCaller, command: RespondCommand, checked: CheckedQuote): Promise<RespondResult> {
    const { rfq, quoteId } = checked;
    const nowMs = this.clock.nowMs();
    const quote: CompetitiveQuote = {
      quoteId,
      makerAccountId: maker.accountId,
      makerWallet: maker.wallet,
      quoteNonce: command.quoteNonce,
      bid: command.bid,
      ask: command.ask,
      issuedAt: command.issuedAt,
      expiresAt: command.expiresAt,
      makerSignature: command.makerSignature,
      receivedAtMs: 0,
    };
    await this.db.tx(async (tx) => {
      await this.checkLimits(tx, maker, command, checked, nowMs);
      // The nonce before the RFQ's row: a maker's own changes take its rows in one order.
      if (!(await this.transitions.raiseNonce(tx, maker.accountId, command.quoteNonce))) {
        throw new RfqError('RFQ_STATE_CONFLICT', `quote_nonce ${command.quoteNonce} is at or below this maker's high-water mark`, { rfqId: rfq.id });
      }
      const locked = await this.transitions.lock(tx, rfq.id);
      if (!locked || !open(locked, nowMs)) throw new RfqError('RFQ_STATE_CONFLICT', NOT_OPEN, { rfqId: rfq.id });
      const mine = (await this.quotes.liveOf([rfq.id], tx)).filter((q) => q.makerAccountId === maker.accountId);
      await this.quotes.end(
        tx,
        mine.map((q) => q.quoteId),
        'replaced',
        nowMs,
      );
      // Received when it joins the RFQ's quotes, under the RFQ's row: the order received is the order of the lock.
      await this.quotes.insert(tx, rfq.id, { ...quote, receivedAtMs: this.clock.nowMs() });
      await this.close.changed(tx, locked, nowMs);
    });
    this.limits.quoted(rfq);
    logger.event('info', 'competitive quote', { rfq_id: rfq.id, quote_id: quoteId, maker_account_id: maker.accountId }, 'Competition');
    return { rfq_id: rfq.id, quote_id: quoteId, state: 'quoted' };
  }

  /** The limits of section 15, a replace counted net; serialized on the maker's limits row when they bound what is out. */
  private async checkLimits(tx: Tx, maker: RfqCaller, command: RespondCommand, checked: CheckedQuote, nowMs: number): Promise<void> {
    if (checked.limits && this.limits.serialized(checked.limits)) {
      const locked = await this.limits.lock(tx, maker.accountId);
      await this.limits.checkLocked(tx, maker.accountId, locked, checked.rfq, command, nowMs, checked.rfq.id);
    } else {
      await this.limits.checkQuote(tx, maker.accountId, checked.limits, checked.rfq, command, nowMs, checked.rfq.id);
    }
  }

  /**
   * The maker's decline: recorded, its live quote there cancelled; when every maker of the panel
   * has declined, the RFQ moves to declined with this reason (an RFQ without a panel stays open).
   */
  async decline(maker: RfqCaller, command: DeclineCommand, rfq: RfqRecord): Promise<DeclineResult> {
    const nowMs = this.clock.nowMs();
    await this.db.tx(async (tx) => {
      const locked = await this.transitions.lock(tx, rfq.id);
      if (!locked || !open(locked, nowMs)) throw new RfqError('RFQ_STATE_CONFLICT', NOT_OPEN, { rfqId: rfq.id });
      const declined = await this.quotes.decline(tx, rfq.id, maker.accountId, command.reason, Math.floor(nowMs / 1000));
      await this.cancelMine(tx, rfq.id, maker.accountId, nowMs);
      const panel = locked.competition?.accounts;
      if (panel && declined >= panel.length) {
        await this.close.end(tx, locked, nowMs, { to: 'declined', reason: command.reason, by: maker.accountId }, new Set());
      } else {
        await this.close.changed(tx, locked, nowMs);
      }
    });
    logger.event('info', 'competitive decline', { rfq_id: rfq.id, reason: command.reason, maker_account_id: maker.accountId }, 'Competition');
    return { rfq_id: rfq.id, state: 'declined', decline_reason: command.reason };
  }

  /** Ends the maker's live quote on the RFQ `cancelled` (its counter moves: its usage is read again). */
  private async cancelMine(tx: Tx, rfqId: string, makerAccountId: number, nowMs: number): Promise<string[]> {
    const mine = (await this.quotes.liveOf([rfqId], tx)).filter((q) => q.makerAccountId === makerAccountId);
    const ended = await this.quotes.end(
      tx,
      mine.map((q) => q.quoteId),
      'cancelled',
      nowMs,
    );
    if (ended.length > 0) await this.quotes.bumpMakers(tx, [makerAccountId]);
    return ended.map((q) => q.quoteId);
  }

  /**
   * rfq.maker.cancel_quote: the caller's live competitive quote ends `cancelled`; the same result
   * for one it cancelled already. A seed RFQ's quote stays firm (RFQ_STATE_CONFLICT); another
   * maker's or an unknown quote is RFQ_NOT_FOUND; a quote ended otherwise is RFQ_STATE_CONFLICT.
   */
  async cancelQuote(maker: RfqCaller, quoteId: string): Promise<{ quote_id: string; state: 'cancelled' }> {
    const found = await this.quotes.find(quoteId);
    if (!found || found.makerAccountId !== maker.accountId) {
      const seed = await this.lookup.findByQuoteId(quoteId);
      if (seed?.quote?.makerAccountId === maker.accountId && !seed.competition) {
        throw new RfqError('RFQ_STATE_CONFLICT', 'a quote of a seed RFQ is firm until its expires_at', { rfqId: seed.id, quoteId });
      }
      throw new RfqError('RFQ_NOT_FOUND', `no quote ${quoteId} of this maker`);
    }
    if (found.end === null) await this.cancelLive(maker, found.rfqId, quoteId);
    const now = (await this.quotes.find(quoteId))!;
    if (now.end !== 'cancelled') throw new RfqError('RFQ_STATE_CONFLICT', `the quote ended ${now.end ?? 'expired'}`, { rfqId: now.rfqId, quoteId });
    return { quote_id: quoteId, state: 'cancelled' };
  }

  /** Cancels the quote if it is still live when its RFQ's row is held; whether it ended here. */
  private async cancelLive(maker: RfqCaller, rfqId: string, quoteId: string): Promise<boolean> {
    const nowMs = this.clock.nowMs();
    const ended = await this.db.tx(async (tx) => {
      const locked = await this.transitions.lock(tx, rfqId);
      const live = (await this.quotes.liveOf([rfqId], tx)).find((q) => q.quoteId === quoteId);
      // Past its expires_at a quote is expired (the sweep ends it so), not cancelled.
      if (!locked || !live || live.expiresAt * 1000 <= nowMs) return false;
      await this.cancelMine(tx, rfqId, maker.accountId, nowMs);
      if (locked.state === 'pending' || locked.state === 'quoted') await this.close.changed(tx, locked, nowMs);
      return true;
    });
    if (ended) logger.event('info', 'competitive quote cancelled', { rfq_id: rfqId, quote_id: quoteId, maker_account_id: maker.accountId }, 'Competition');
    return ended;
  }

  /** rfq.maker.cancel_quotes: every live competitive quote of the caller, oldest first, each in its RFQ's transaction. */
  async cancelQuotes(maker: RfqCaller): Promise<{ cancelled: string[] }> {
    const cancelled: string[] = [];
    for (const q of await this.quotes.makerAllLive(maker.accountId)) {
      if (await this.cancelLive(maker, q.rfqId, q.quoteId)) cancelled.push(q.quoteId);
    }
    return { cancelled };
  }

  /**
   * rfq.cancel of a competitive RFQ: pending or quoted → expired with cancelled_at, its live quotes
   * ended `expired` (their makers told), the panel's other makers `closed`, the transcript
   * written: one transaction. null when it was in neither state.
   */
  async cancel(taker: RfqCaller, rfq: RfqRecord): Promise<RfqRecord | null> {
    const nowMs = this.clock.nowMs();
    return this.db.tx(async (tx) => {
      const locked = await this.transitions.lock(tx, rfq.id);
      if (!locked || locked.accountId !== taker.accountId || (locked.state !== 'pending' && locked.state !== 'quoted')) return null;
      const live = await this.quotes.liveOf([rfq.id], tx);
      const ended = await this.quotes.end(
        tx,
        live.map((q) => q.quoteId),
        'expired',
        nowMs,
      );
      await this.close.tellEnded(tx, ended, 'expired', nowMs);
      const moved = await this.transitions.cancelCompetitive(tx, taker.accountId, rfq.id, Math.floor(nowMs / 1000), locked.state);
      if (!moved) return null;
      if (locked.state === 'quoted') this.close.closeFor(tx, moved, new Set(ended.map((q) => q.makerAccountId)));
      await this.close.writeTranscript(tx, moved, nowMs, null);
      return moved;
    });
  }

  async withLiveQuotes(records: readonly RfqRecord[]): Promise<void> {
    const open = records.filter((r) => r.competition && (r.state === 'pending' || r.state === 'quoted'));
    if (open.length === 0) return;
    const live = await this.quotes.liveOf(open.map((r) => r.id));
    for (const r of open) r.liveQuotes = live.filter((q) => q.rfqId === r.id);
  }

  liveQuotes(accountId: number, liveAfter: number, sql: Sql): Promise<Array<{ id: string; expiresAt: number }>> {
    return this.quotes.makerLive(accountId, liveAfter, sql);
  }

  quote(quoteId: string): Promise<KeptCompetitiveQuote | null> {
    return this.quotes.find(quoteId);
  }

  makerQuotes(query: CompetitiveQuotesQuery): Promise<KeptCompetitiveQuote[]> {
    return this.quotes.makerPage(query);
  }

  version(accountId: number, sql: Sql): Promise<string> {
    return this.quotes.makerVersion(accountId, sql);
  }
}
