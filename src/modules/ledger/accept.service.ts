import { Injectable } from '@nestjs/common';
import type { MethodResult } from '@legwork/protocol';
import { Clock } from '../../common/clock';
import { RfqError, type RfqErrorExtras } from '../../common/errors/app-error';
import { logger } from '../../common/logging/logger';
import type { RfqRecord, StoredQuote } from '../rfq/domain/rfq-record';
import { LIVE_BOOK_SECONDS, notQuotedReason } from '../rfq/domain/rfq-state';
import { CompetitionAcceptService } from '../competition/competition-accept.service';
import type { StoredCompetitiveQuote } from '../competition/competition-accept.service';
import { RfqLookupService } from '../rfq/rfq-lookup.service';
import { RfqTransitionsService } from '../rfq/rfq-transitions.service';
import type { RfqCaller } from '../rfq/rfq.service';
import type { AcceptCommand } from './domain/accept-params';
import { AcceptChecksService } from './accept-checks.service';
import { FillRepository } from './fill.repository';
import { FillService } from './fill.service';

/** The result of `rfq.accept`, as its declaration states it. */
type AcceptResult = MethodResult<'rfq.accept'>;

/** The same error with the RFQ's ids added (docs/spec/interface.md 7.2: `rfq_id`, `quote_id` where known). */
function withIds(error: unknown, ids: Pick<RfqErrorExtras, 'rfqId' | 'quoteId'>): unknown {
  if (!(error instanceof RfqError) || error.extras.rfqId) return error;
  return new RfqError(error.code, error.message, { ...error.extras, ...ids });
}

/**
 * rfq.accept (docs/spec/design.md section 5): the taker's signed acceptance of one side of a quote, checked
 * in the contract's order, then the move quoted → accepted with the frozen max_fee, then the fill
 * job. Funding here is advisory for the book (a later fill re-checks on the ledger's locked rows).
 * The checks before the move are AcceptChecksService's.
 */
@Injectable()
export class AcceptService {
  constructor(
    private readonly rfqs: RfqLookupService,
    private readonly transitions: RfqTransitionsService,
    private readonly checks: AcceptChecksService,
    private readonly fills: FillService,
    private readonly acceptsStore: FillRepository,
    private readonly clock: Clock,
    private readonly competition: CompetitionAcceptService,
  ) {}

  async accept(taker: RfqCaller, command: AcceptCommand): Promise<AcceptResult> {
    // A seed RFQ's quote (or a competitive RFQ's accepted one) is on the RFQ; a competitive RFQ's others are the competition's.
    // One read finds the RFQ by either, and the competitive quote with it.
    const found = await this.rfqs.findByQuoteIdWith(command.quoteId, this.competition.quoteReads);
    const onRfq = found?.rfq.quote?.quoteId === command.quoteId;
    const competitive = found && !onRfq ? this.competition.foundQuote(found) : null;
    const rfq = onRfq ? found.rfq : (competitive?.rfq ?? null);
    const quote = competitive?.quote ?? rfq?.quote;
    if (!rfq || rfq.accountId !== taker.accountId || !quote) {
      throw new RfqError('RFQ_NOT_FOUND', `no quote ${command.quoteId} on an RFQ of this account`, { reason: 'quote_not_found' });
    }
    try {
      if (competitive?.quote.end && rfq.cancelledAt === null) throw new RfqError('RFQ_QUOTE_EXPIRED', `the quote ended ${competitive.quote.end}`);
      return await this.acceptQuote(taker, rfq, quote, command, competitive?.quote ?? null);
    } catch (error) {
      if (error instanceof RfqError) {
        const earlier = await this.repeated(rfq, command);
        if (earlier) return earlier;
      }
      throw withIds(error, { rfqId: rfq.id, quoteId: quote.quoteId });
    }
  }

  /**
   * The result of the accept that already succeeded on this RFQ when `command` repeats it exactly
   * (docs/spec/design.md 15: same quote_id, side, expires_at and taker_signature) and the RFQ is still
   * in the live book, whatever state it reached since; null otherwise. Asked when the accept
   * cannot go through (the RFQ left quoted, or another copy of this accept moved it first, or the
   * fill already changed the books it read), so a client that lost the answer can retry and gets
   * the original one, and nothing runs twice: the move, its events and the fill job were the first
   * accept's.
   */
  private async repeated(rfq: RfqRecord, command: AcceptCommand): Promise<AcceptResult | null> {
    const accept = await this.acceptsStore.acceptOf(rfq.id);
    if (!accept) return null;
    const same =
      accept.quoteId === command.quoteId &&
      accept.side === command.side &&
      accept.expiresAt === command.expiresAt &&
      accept.takerSignature === command.takerSignature;
    if (!same) return null;
    const current = (await this.rfqs.findById(rfq.id)) ?? rfq;
    if (current.endedAt !== null && current.endedAt <= this.clock.now() - LIVE_BOOK_SECONDS) return null;
    const result: AcceptResult = { rfq_id: rfq.id, quote_id: accept.quoteId, side: accept.side, state: 'accepted' };
    return rfq.competition ? { ...result, best: await this.competition.acceptedBest(rfq.id) } : result;
  }

  private async acceptQuote(
    taker: RfqCaller,
    rfq: RfqRecord,
    quote: StoredQuote,
    command: AcceptCommand,
    competitive: StoredCompetitiveQuote | null,
  ): Promise<AcceptResult> {
    const nowMs = this.clock.nowMs();
    const now = Math.floor(nowMs / 1000);
    const mine = await this.checks.check(taker, rfq, quote, command, nowMs);

    const row = {
      quoteId: quote.quoteId,
      side: command.side,
      fee: mine.fee,
      maxFee: mine.max_fee,
      takerSignature: command.takerSignature,
      expiresAt: command.expiresAt,
      acceptedAt: now,
    };
    // A competitive RFQ: the move only while this quote is live, the others traded away (docs/spec/design.md 18).
    const won = competitive ? await this.competition.accept(rfq, competitive, row) : null;
    // One statement: the move (only while the quote is firm) and the accept row with the frozen max_fee.
    const moved = competitive
      ? (won?.moved ?? null)
      : await this.transitions.moveToAccepted({ rfqId: rfq.id, from: 'quoted', to: 'accepted', at: now, deadlineAfterMs: this.clock.nowMs() }, row);
    if (!moved) {
      const current = await this.rfqs.findById(rfq.id);
      if (current?.cancelledAt) throw new RfqError('RFQ_STATE_CONFLICT', `the taker cancelled the RFQ at ${current.cancelledAt}`, { reason: 'rfq_cancelled' });
      if (current?.state === 'expired' || (current?.state === 'quoted' && this.clock.nowMs() >= quote.expiresAt * 1000)) {
        throw new RfqError('RFQ_QUOTE_EXPIRED', `the quote expired at ${quote.expiresAt}`, { reason: 'quote_expired' });
      }
      throw new RfqError('RFQ_STATE_CONFLICT', `the RFQ is ${current?.state ?? 'gone'}, not quoted`, { reason: notQuotedReason(current?.state) });
    }
    logger.event('info', 'rfq accepted', { rfq_id: rfq.id, quote_id: quote.quoteId, side: command.side, max_fee: mine.max_fee.toString() }, 'Ledger');
    await this.fills.enqueue(rfq.id);
    const result: AcceptResult = { rfq_id: rfq.id, quote_id: quote.quoteId, side: command.side, state: 'accepted' };
    return won ? { ...result, best: won.best } : result;
  }
}
