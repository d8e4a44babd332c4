import { Injectable } from '@nestjs/common';
import { Ed25519Verifier, decodeCanonicalBase64Signature, encodeAcceptPayload, formatRfq, parseWallet } from '@legwork/protocol';
import { Clock } from '../../common/clock';
import { RfqError, type RfqErrorExtras } from '../../common/errors/app-error';
import { logger } from '../../common/logging/logger';
import type { RfqRecord, StoredQuote } from '../rfq/domain/rfq-record';
import { RfqTransitions } from '../rfq/rfq-transitions';
import type { RfqCaller } from '../rfq/rfq.service';
import { RfqStore } from '../rfq/rfq.store';
import type { AcceptCommand } from './domain/accept-params';
import type { AccountBook } from './domain/fill-check';
import { type AcceptSide, freeBalanceOf, fundingSides, toWireFunding } from './domain/funding';
import { makerRequirement } from './domain/maker-funding';
import { FillService } from './fill.service';
import { LedgerStore } from './ledger.store';
import { RiskService } from './risk.service';

export interface AcceptResult {
  rfq_id: string;
  quote_id: string;
  side: AcceptSide;
  state: 'accepted';
}

/** The same error with the RFQ's ids added (interface.md 7.2: `rfq_id`, `quote_id` where known). */
function withIds(error: unknown, ids: Pick<RfqErrorExtras, 'rfqId' | 'quoteId'>): unknown {
  if (!(error instanceof RfqError) || error.extras.rfqId) return error;
  return new RfqError(error.code, error.message, { ...error.extras, ...ids });
}

/**
 * rfq.accept (design.md section 5): the taker's signed acceptance of one side of a quote, checked
 * in the contract's order, then the move quoted → accepted with the frozen max_fee, then the fill
 * job. Funding here is advisory for the book (a later fill re-checks on the ledger's locked rows).
 */
@Injectable()
export class AcceptService {
  constructor(
    private readonly rfqs: RfqStore,
    private readonly transitions: RfqTransitions,
    private readonly verifier: Ed25519Verifier,
    private readonly risk: RiskService,
    private readonly store: LedgerStore,
    private readonly fills: FillService,
    private readonly clock: Clock,
  ) {}

  async accept(taker: RfqCaller, command: AcceptCommand): Promise<AcceptResult> {
    // The RFQ and both parties' books in one read: the books are the frozen view of the funding checks.
    const found = await this.store.quoteWithBooks(command.quoteId);
    const rfq = found?.rfq;
    if (!found || !rfq || rfq.accountId !== taker.accountId || !rfq.quote) {
      throw new RfqError('RFQ_NOT_FOUND', `no quote ${command.quoteId} on an RFQ of this account`);
    }
    try {
      return await this.acceptQuote(taker, rfq, rfq.quote, command, found.books);
    } catch (error) {
      throw withIds(error, { rfqId: rfq.id, quoteId: rfq.quote.quoteId });
    }
  }

  private async acceptQuote(taker: RfqCaller, rfq: RfqRecord, quote: StoredQuote, command: AcceptCommand, books: Map<number, AccountBook>): Promise<AcceptResult> {
    const nowMs = this.clock.nowMs();
    const now = Math.floor(nowMs / 1000);
    // A quote is firm until its expires_at: at that instant it is expired (as for the expiry job).
    if (rfq.state === 'expired' || (rfq.state === 'quoted' && nowMs >= quote.expiresAt * 1000)) {
      throw new RfqError('RFQ_QUOTE_EXPIRED', `the quote expired at ${quote.expiresAt}`);
    }
    if (rfq.state !== 'quoted') throw new RfqError('RFQ_STATE_CONFLICT', `the RFQ is ${rfq.state}, not quoted`);
    if (command.expiresAt > quote.expiresAt) {
      throw new RfqError('RFQ_VALUE_OUT_OF_RANGE', `expires_at ${command.expiresAt} is after the quote's expires_at ${quote.expiresAt}`);
    }
    if (now > command.expiresAt) throw new RfqError('RFQ_QUOTE_EXPIRED', `the accept expired at ${command.expiresAt}`);
    this.verifySignature(taker, rfq, command);

    const legs = this.risk.tradableLegs(rfq.legs, now);
    const makerId = quote.makerAccountId;
    const takerBook = books.get(taker.accountId)!;
    const makerBook = books.get(makerId)!;
    const indexByAsset = new Map([
      ...this.risk.indexFor([...takerBook.positions, ...makerBook.positions], now, true),
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
      ...this.risk.params,
      indexByAsset,
    });
    const mine = funding[command.side]!;
    if (!mine.funded) {
      throw new RfqError('RFQ_TAKER_UNFUNDED', `the ${command.side} side needs a free balance of ${formatRfq(mine.required)}`, { details: toWireFunding(funding) });
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
        lockUpsideBps: this.risk.params.lockUpsideBps,
        indexByAsset,
      },
      command.side,
    );
    if (!maker.funded) throw new RfqError('RFQ_BALANCE_INSUFFICIENT', 'the maker cannot fund its side of this quote now; retry later');

    // One statement: the move (only while the quote is firm) and the accept row with the frozen max_fee.
    const moved = await this.transitions.move({
      rfqId: rfq.id,
      from: 'quoted',
      to: 'accepted',
      at: now,
      changes: { acceptedSide: command.side },
      deadlineAfterMs: this.clock.nowMs(),
      alongside: this.store.acceptRow({
        quoteId: quote.quoteId,
        side: command.side,
        fee: mine.fee,
        maxFee: mine.max_fee,
        takerSignature: command.takerSignature,
        expiresAt: command.expiresAt,
        acceptedAt: now,
      }),
    });
    if (!moved) {
      const current = await this.rfqs.findById(rfq.id);
      if (current?.state === 'expired' || (current?.state === 'quoted' && this.clock.nowMs() >= quote.expiresAt * 1000)) {
        throw new RfqError('RFQ_QUOTE_EXPIRED', `the quote expired at ${quote.expiresAt}`);
      }
      throw new RfqError('RFQ_STATE_CONFLICT', `the RFQ is ${current?.state ?? 'gone'}, not quoted`);
    }
    logger.event('info', 'rfq accepted', { rfq_id: rfq.id, quote_id: quote.quoteId, side: command.side, max_fee: mine.max_fee.toString() }, 'Ledger');
    await this.fills.enqueue(rfq.id);
    return { rfq_id: rfq.id, quote_id: quote.quoteId, side: command.side, state: 'accepted' };
  }

  /** The 105-byte StrategyAcceptPayload rebuilt here, signed by the caller's wallet. */
  private verifySignature(taker: RfqCaller, rfq: RfqRecord, command: AcceptCommand): void {
    const signature = decodeCanonicalBase64Signature(command.takerSignature);
    if (!signature) throw new RfqError('RFQ_INVALID_SIGNATURE', 'taker_signature must be canonical base64 of 64 bytes');
    const key = parseWallet(taker.wallet);
    const payload = encodeAcceptPayload({ rfqId: rfq.id, quoteId: command.quoteId, taker: key, side: command.side, expiresAt: command.expiresAt });
    if (!this.verifier.verify(key, payload, signature)) {
      throw new RfqError('RFQ_INVALID_SIGNATURE', "taker_signature does not verify over this accept's payload with the caller's wallet");
    }
  }
}
