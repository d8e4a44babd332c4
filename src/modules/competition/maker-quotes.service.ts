import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { Database } from '../../common/database/database';
import type { Tx } from '../../common/database/sql';
import { RfqError } from '../../common/errors/app-error';
import { logger } from '../../common/logging/logger';
import type { CheckedQuote, DeclineResult, RespondResult } from '../rfq/competition-port';
import type { DeclineCommand, RespondCommand } from '../rfq/domain/rfq-params';
import { type RfqRecord, quoteOf } from '../rfq/domain/rfq-record';
import { MakerLimitsService } from '../maker-limits/maker-limits.service';
import type { MakerLimitsRow } from '../maker-limits/maker-limits-row';
import { RfqLookupService } from '../rfq/rfq-lookup.service';
import { RfqTransitionsService } from '../rfq/rfq-transitions.service';
import type { RfqCaller } from '../rfq/rfq.service';
import { CompetitionCloseService } from './competition-close.service';
import { CompetitionRepository } from './competition.repository';

/** The conflict of respond and decline (as for a seed RFQ): the maker does not learn where the RFQ went. */
const NOT_OPEN = 'the RFQ is no longer open for quotes';

/** respondKnown's signal to leave the transaction (rolled back) for respond's usual path. */
class UsualPath extends Error {}

/** Open to quotes at `nowMs`: pending or quoted, not past its expires_at. */
const open = (rfq: RfqRecord, nowMs: number) => (rfq.state === 'pending' || rfq.state === 'quoted') && rfq.expiresAt * 1000 > nowMs;

/**
 * A maker's writes on competitive RFQs (docs/spec/design.md 18): respond (add or replace its one
 * live quote), decline, and its cancels. Every change runs in one transaction that holds the RFQ's
 * row (so the moves between pending and quoted, the accept and the ends never interleave), after
 * the maker's limits lock when its limits bound what is out.
 */
@Injectable()
export class MakerQuotesService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly quotes: CompetitionRepository,
    private readonly close: CompetitionCloseService,
    private readonly transitions: RfqTransitionsService,
    private readonly limits: MakerLimitsService,
    private readonly lookup: RfqLookupService,
  ) {}

  /**
   * The quote joins the RFQ's live quotes, replacing the maker's live one there (ended `replaced`)
   * in the same transaction; limits count it net; the nonce high-water mark rises with it (a
   * failure consumes no nonce: the transaction rolls back).
   */
  async respond(maker: RfqCaller, command: RespondCommand, checked: CheckedQuote): Promise<RespondResult> {
    const { rfq } = checked;
    const nowMs = this.clock.nowMs();
    await this.db.tx(async (tx) => {
      await this.checkLimits(tx, maker, command, checked, nowMs);
      // The nonce before the RFQ's row (one statement): a maker's own changes take its rows in one order.
      const locked = await this.transitions.lockRaisingNonce(tx, rfq.id, maker.accountId, command.quoteNonce);
      // null is the nonce: the RFQ was open when read before the transaction, and only ended RFQs are ever deleted.
      if (!locked) throw new RfqError('RFQ_STATE_CONFLICT', `quote_nonce ${command.quoteNonce} is at or below this maker's high-water mark`, { rfqId: rfq.id });
      if (!open(locked.rfq, nowMs)) throw new RfqError('RFQ_STATE_CONFLICT', NOT_OPEN, { rfqId: rfq.id });
      await this.join(tx, maker, command, checked, locked.rfq, nowMs);
    });
    return this.taken(maker, checked);
  }

  /**
   * respond on an RFQ known competitive (CompetitionPort.respondKnown): the nonce raised and the
   * RFQ's row locked first, then respond's checks on the RFQ as locked; a maker whose limits bound
   * what is out takes respond's usual path (its limits row is locked before the nonce's). null:
   * something refused, and the transaction rolled back.
   */
  async respondKnown(
    maker: RfqCaller,
    command: RespondCommand,
    check: (found: { rfq: RfqRecord; limits: MakerLimitsRow | null }) => Promise<CheckedQuote>,
  ): Promise<RespondResult | null> {
    const nowMs = this.clock.nowMs();
    try {
      const checked = await this.db.tx(async (tx) => {
        const locked = await this.transitions.lockRaisingNonce(tx, command.rfqId, maker.accountId, command.quoteNonce);
        if (locked) this.limits.remember(maker.accountId, locked.limits);
        if (!locked?.rfq.competition || !open(locked.rfq, nowMs) || (locked.limits && this.limits.serialized(locked.limits))) throw new UsualPath();
        // A refusal of the checks is answered by the usual path, which runs them again in its order.
        const quote = await check(locked).catch(() => Promise.reject(new UsualPath()));
        await this.limits.checkQuote(tx, maker.accountId, quote.limits, quote.rfq, command, nowMs, quote.rfq.id);
        await this.join(tx, maker, command, quote, locked.rfq, nowMs);
        return quote;
      });
      return this.taken(maker, checked);
    } catch (error) {
      if (error instanceof UsualPath || error instanceof RfqError) return null;
      throw error;
    }
  }

  /** Under the RFQ's row (`locked`, open): the quote joins its live quotes, and the taker's `quotes` event is stored. */
  private async join(tx: Tx, maker: RfqCaller, command: RespondCommand, checked: CheckedQuote, locked: RfqRecord, nowMs: number): Promise<void> {
    // Received when it joins the RFQ's quotes, under the RFQ's row: the order received is the order of the lock.
    const quote = quoteOf(maker, command, checked.quoteId, this.clock.nowMs());
    // The maker's live quote there ends `replaced`, this one is inserted and the taker's `quotes`
    // event stored with the live quotes read under the row: one statement.
    await this.close.joined(tx, locked, nowMs, this.quotes.joinWith(locked.id, quote, nowMs));
  }

  /** A quote taken (committed): its legs kept for the limits, logged, and respond's result. */
  private taken(maker: RfqCaller, { rfq, quoteId }: CheckedQuote): RespondResult {
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
}
