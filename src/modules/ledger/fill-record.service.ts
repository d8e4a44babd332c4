import { Injectable } from '@nestjs/common';
import { asBuffer } from '../../common/bytes';
import type { Tx } from '../../common/database/sql';
import type { RfqErrorCode } from '../../common/errors/app-error';
import { logger } from '../../common/logging/logger';
import { newTakerSalt } from '@legwork/protocol';
import { JournalService } from '../journal/journal.service';
import type { RfqRecord, StoredQuote } from '../rfq/domain/rfq-record';
import { RfqTransitionsService } from '../rfq/rfq-transitions.service';
import { refreshLockGroups } from './collateral.sql';
import { allocatePremium } from './domain/average-price';
import type { FillDecision } from './domain/fill-check';
import { type LegTrade, legTrades, positionsAfter } from './domain/fold';
import { type AcceptRecord, FillRepository } from './fill.repository';
import type { PricedLeg } from './leg-pricing.service';
import type { HeldPosition, PositionWrite } from './position.repository';

/**
 * The fill's move (announced by RfqTransitionsService once the transaction commits). `makerLimits` false:
 * the maker had no limits row when the fill locked its RFQ (nothing to protect after it).
 */
export type Announcement = { moved: RfqRecord; makerLimits?: boolean } | null;

/** The fill's frozen view, under its locks: the accept, the legs at fresh marks, both parties' positions. */
export interface FillView {
  rfq: RfqRecord;
  quote: StoredQuote;
  accept: AcceptRecord;
  legs: PricedLeg[];
  feeAccount: number;
  positions: Map<number, HeldPosition[]>;
  now: number;
  makerLimits: boolean;
}

/** The position rows the trades leave, from the account's open positions. */
function positionWritesOf(open: readonly HeldPosition[], accountId: number, trades: LegTrade[]): PositionWrite[] {
  const held = new Map(open.map((p) => [p.instrument, p]));
  return positionsAfter(held, trades).map((w) => ({ accountId, ...w }));
}

/**
 * The fill's writes inside its transaction (FillTransactionService holds the locks and decided):
 * the ledger in one statement, the lock summaries, submitting → filled and the staged receipt; or
 * submitting → failed with the check that refused it.
 */
@Injectable()
export class FillRecordService {
  constructor(
    private readonly fillRows: FillRepository,
    private readonly transitions: RfqTransitionsService,
    private readonly journal: JournalService,
  ) {}

  /** The fill's writes: the ledger in one statement, the lock summaries, the move to filled, the receipt. */
  async record(tx: Tx, v: FillView, decision: Extract<FillDecision, { ok: true }>): Promise<Announcement> {
    const { rfq, quote, accept, now } = v;
    const taker = rfq.accountId;
    const maker = quote.makerAccountId;
    // Drawn once per fill and stored with it; the revert's receipt commits with the same one (docs/spec/design.md 16).
    const takerSalt = asBuffer(newTakerSalt());
    const fillId = await this.writeFill(tx, v, decision, takerSalt);
    // The group summaries the next market-data update reprices from (collateral.sql.ts).
    await refreshLockGroups(tx, [taker, maker]);
    const moved = await this.transitions.moveWithin(
      tx,
      {
        rfqId: rfq.id,
        from: 'submitting',
        to: 'filled',
        at: now,
        changes: { fill: { fillId, price: decision.cash.price, fee: decision.fee, filledAt: now } },
      },
      // accepted → filled, for the fill latency metric.
      (filled) => filled.updatedAt - accept.acceptedAt,
      // The `filled` events go out once the receipt is chained, after the COMMIT (docs/receipts.md),
      // and carry it; only the taker's view adds the salt (rfq-view.ts).
      async (filled) => {
        filled.fill!.receipt = { ...(await this.journal.receiptOf(fillId, 0)) };
      },
    );
    if (!moved) throw new Error(`rfq ${rfq.id} left submitting under its own row lock`);
    moved.fill!.takerSalt = takerSalt.toString('hex');
    // The row every fill writes, last, so that fills wait for each other only over this statement
    // and the COMMIT: the fee account's balance (its row comes with its first fee), credited in the
    // statement that stages the receipt. The journal head is not taken here: the appender chains
    // the staged receipt after the COMMIT (docs/spec/design.md 14, docs/receipts.md). Lock order:
    // other accounts' rows in id order, then the fee account's (revert.service.ts too).
    await this.stageReceipt(tx, v, decision, fillId);
    logger.event(
      'info',
      'rfq filled',
      { rfq_id: rfq.id, fill_id: fillId, side: accept.side, price: decision.cash.price.toString(), fee: decision.fee.toString() },
      'Ledger',
    );
    return { moved, makerLimits: v.makerLimits };
  }

  /** The fill row with its legs, the positions and the two balances, in one statement: the fill's id. */
  private writeFill(tx: Tx, v: FillView, decision: Extract<FillDecision, { ok: true }>, takerSalt: Buffer): Promise<string> {
    const { rfq, quote, accept, legs, now } = v;
    const taker = rfq.accountId;
    const maker = quote.makerAccountId;
    const shares = allocatePremium(legs, decision.cash.price);
    const trades = legTrades(
      legs.map((l, i) => ({ instrument: l.instrument, quantity: l.quantity, premium: shares[i] })),
      accept.side,
    );
    const positionWrites = (accountId: number, list: LegTrade[]) => positionWritesOf(v.positions.get(accountId)!, accountId, list);
    return this.fillRows.record(
      tx,
      {
        rfqId: rfq.id,
        quoteId: quote.quoteId,
        takerAccountId: taker,
        makerAccountId: maker,
        feeAccountId: v.feeAccount,
        side: accept.side,
        price: decision.cash.price,
        fee: decision.fee,
        filledAt: now,
        takerSalt,
        legs: legs.map((l, i) => ({ instrument: l.instrument, quantity: l.quantity, premium: shares[i], mark: l.mark })),
      },
      [...positionWrites(taker, trades.taker), ...positionWrites(maker, trades.maker)],
      [
        { accountId: taker, row: decision.taker },
        { accountId: maker, row: decision.maker },
      ],
    );
  }

  /** The fill's receipt, staged for the journal's appender, with the fee account's credit in the same statement. */
  private stageReceipt(tx: Tx, v: FillView, decision: Extract<FillDecision, { ok: true }>, fillId: string): Promise<void> {
    const { rfq, quote, accept, legs, now } = v;
    return this.journal.stage(
      tx,
      {
        kind: 0,
        fillId,
        rfqId: rfq.id,
        quoteId: quote.quoteId,
        makerWallet: quote.makerWallet,
        side: accept.side,
        price: decision.cash.price,
        fee: decision.fee,
        at: now,
        legs,
      },
      { accountId: v.feeAccount, amount: decision.cash.feeAccount },
    );
  }

  async failWithin(tx: Tx, rfqId: string, error: RfqErrorCode, message: string): Promise<Announcement> {
    const moved = await this.transitions.moveWithin(tx, { rfqId, from: 'submitting', to: 'failed', changes: { failure: { error, message } } });
    if (moved) logger.event('info', 'rfq fill failed', { rfq_id: rfqId, error, message }, 'Ledger');
    return moved ? { moved } : null;
  }
}
