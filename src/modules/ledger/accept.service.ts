import { Injectable } from '@nestjs/common';
import { Ed25519Verifier, type MethodResult, decodeCanonicalBase64Signature, encodeAcceptPayload, formatRfq, parseWallet } from '@legwork/protocol';
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
import type { AccountBook } from './domain/fill-check';
import { type AcceptSide, type FundingRequirement, freeBalanceOf, fundingSides, toWireFunding } from './domain/funding';
import { makerRequirement } from './domain/maker-funding';
import { FillRepository } from './fill.repository';
import { FillService } from './fill.service';
import { LegPricingService, type PricedLeg } from './leg-pricing.service';
import { PositionRepository } from './position.repository';

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
 */
@Injectable()
export class AcceptService {
  constructor(
    private readonly rfqs: RfqLookupService,
    private readonly transitions: RfqTransitionsService,
    private readonly verifier: Ed25519Verifier,
    private readonly pricing: LegPricingService,
    private readonly positions: PositionRepository,
    private readonly fills: FillService,
    private readonly acceptsStore: FillRepository,
    private readonly clock: Clock,
    private readonly competition: CompetitionAcceptService,
  ) {}

  async accept(taker: RfqCaller, command: AcceptCommand): Promise<AcceptResult> {
    // A seed RFQ's quote (or a competitive RFQ's accepted one) is on the RFQ; a competitive RFQ's others are the competition's.
    let rfq = await this.rfqs.findByQuoteId(command.quoteId);
    const competitive = rfq ? null : await this.competition.findQuote(command.quoteId);
    rfq = rfq ?? competitive?.rfq ?? null;
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
    this.checkTerms(rfq, quote, command, nowMs);
    this.verifySignature(taker, rfq, command);
    const legs = this.pricing.tradableLegs(rfq.legs, now);
    // Both parties' books in one read: the frozen view of the funding checks.
    const books = await this.positions.books([taker.accountId, quote.makerAccountId]);
    const mine = this.checkFunding(books.get(taker.accountId)!, books.get(quote.makerAccountId)!, legs, quote, command.side, now);

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

  /** The contract's checks of state and times, in its order, before the signature. */
  private checkTerms(rfq: RfqRecord, quote: StoredQuote, command: AcceptCommand, nowMs: number): void {
    const now = Math.floor(nowMs / 1000);
    // A cancelled RFQ is expired, but by the taker's hand: its quote did not run out.
    if (rfq.cancelledAt !== null) throw new RfqError('RFQ_STATE_CONFLICT', `the taker cancelled the RFQ at ${rfq.cancelledAt}`, { reason: 'rfq_cancelled' });
    // A quote is firm until its expires_at: at that instant it is expired (as for the expiry job).
    if (rfq.state === 'expired' || (rfq.state === 'quoted' && nowMs >= quote.expiresAt * 1000)) {
      throw new RfqError('RFQ_QUOTE_EXPIRED', `the quote expired at ${quote.expiresAt}`, { reason: 'quote_expired' });
    }
    if (rfq.state !== 'quoted') throw new RfqError('RFQ_STATE_CONFLICT', `the RFQ is ${rfq.state}, not quoted`, { reason: notQuotedReason(rfq.state) });
    if (command.expiresAt > quote.expiresAt) {
      throw new RfqError('RFQ_VALUE_OUT_OF_RANGE', `expires_at ${command.expiresAt} is after the quote's expires_at ${quote.expiresAt}`, {
        reason: 'accept_after_quote',
      });
    }
    if (now > command.expiresAt) throw new RfqError('RFQ_QUOTE_EXPIRED', `the accept expired at ${command.expiresAt}`, { reason: 'accept_expired' });
  }

  /** The taker's funding of its side (RFQ_TAKER_UNFUNDED), then the maker's (RFQ_BALANCE_INSUFFICIENT); the taker's side. */
  private checkFunding(
    takerBook: AccountBook,
    makerBook: AccountBook,
    legs: PricedLeg[],
    quote: StoredQuote,
    side: AcceptSide,
    now: number,
  ): FundingRequirement {
    const indexByAsset = new Map([
      ...this.pricing.indexFor([...takerBook.positions, ...makerBook.positions], now, true),
      ...legs.map((l) => [l.asset, l.index] as const),
    ]);
    const tb = takerBook.balance;
    const funding = fundingSides({
      anchored: tb !== null,
      freeBalance: freeBalanceOf(tb),
      currentLocked: tb?.locked ?? 0n,
      positions: takerBook.positions,
      legs,
      bid: quote.bid,
      ask: quote.ask,
      ...this.pricing.params,
      indexByAsset,
    });
    const mine = funding[side]!;
    if (!mine.funded) {
      throw new RfqError('RFQ_TAKER_UNFUNDED', `the ${side} side needs a free balance of ${formatRfq(mine.required)}`, {
        details: toWireFunding(funding),
        reason: 'taker_unfunded',
      });
    }
    const mb = makerBook.balance;
    const maker = makerRequirement(
      {
        anchored: mb !== null,
        freeBalance: mb ? mb.total - mb.locked : null,
        currentLocked: mb?.locked ?? 0n,
        positions: makerBook.positions,
        legs,
        bid: quote.bid,
        ask: quote.ask,
        lockUpsideBps: this.pricing.params.lockUpsideBps,
        indexByAsset,
      },
      side,
    );
    if (!maker.funded)
      throw new RfqError('RFQ_BALANCE_INSUFFICIENT', 'the maker cannot fund its side of this quote now; retry later', { reason: 'maker_unfunded' });
    return mine;
  }

  /** The 105-byte StrategyAcceptPayload rebuilt here, signed by the caller's wallet. */
  private verifySignature(taker: RfqCaller, rfq: RfqRecord, command: AcceptCommand): void {
    const signature = decodeCanonicalBase64Signature(command.takerSignature);
    if (!signature) throw new RfqError('RFQ_INVALID_SIGNATURE', 'taker_signature must be canonical base64 of 64 bytes', { reason: 'signature_not_canonical' });
    const key = parseWallet(taker.wallet);
    const payload = encodeAcceptPayload({ rfqId: rfq.id, quoteId: command.quoteId, taker: key, side: command.side, expiresAt: command.expiresAt });
    if (!this.verifier.verify(key, payload, signature)) {
      throw new RfqError('RFQ_INVALID_SIGNATURE', "taker_signature does not verify over this accept's payload with the caller's wallet");
    }
  }
}
