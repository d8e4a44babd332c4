import { Injectable } from '@nestjs/common';
import { Ed25519Verifier, decodeCanonicalBase64Signature, encodeAcceptPayload, formatRfq, parseWallet } from '@legwork/protocol';
import { RfqError } from '../../common/errors/app-error';
import type { RfqCaller } from '../../common/rpc/rfq-caller';
import type { RfqRecord, StoredQuote } from '../rfq/domain/rfq-record';
import { notQuotedReason } from '../rfq/domain/rfq-state';
import type { AcceptCommand } from './domain/accept-params';
import type { AccountBook } from './domain/fill-check';
import { type AcceptSide, type FundingRequirement, freeBalanceOf, fundingSides, toWireFunding } from './domain/funding';
import { makerRequirement } from './domain/maker-funding';
import { LegPricingService, type PricedLeg } from './leg-pricing.service';
import { PositionRepository } from './position.repository';

/**
 * rfq.accept's checks before the move, in the contract's order (docs/spec/design.md section 5):
 * state and times, the taker's signature, the legs tradable, then both parties' funding on one
 * read of their books (advisory: the fill checks again under its locks).
 */
@Injectable()
export class AcceptChecksService {
  constructor(
    private readonly verifier: Ed25519Verifier,
    private readonly pricing: LegPricingService,
    private readonly positions: PositionRepository,
  ) {}

  /** Every check of an accept of `quote` at `nowMs`; the taker's funding of its side. */
  async check(taker: RfqCaller, rfq: RfqRecord, quote: StoredQuote, command: AcceptCommand, nowMs: number): Promise<FundingRequirement> {
    const now = Math.floor(nowMs / 1000);
    this.checkTerms(rfq, quote, command, nowMs);
    this.verifySignature(taker, rfq, command);
    const legs = this.pricing.tradableLegs(rfq.legs, now);
    // Both parties' books in one read: the frozen view of the funding checks.
    const books = await this.positions.books([taker.accountId, quote.makerAccountId]);
    const mine = this.checkFunding(books.get(taker.accountId)!, books.get(quote.makerAccountId)!, legs, quote, command.side, now);
    return mine;
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
