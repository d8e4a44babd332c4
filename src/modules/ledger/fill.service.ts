import { Injectable, type OnModuleInit } from '@nestjs/common';
import { asBuffer } from '../../common/bytes';
import { Clock } from '../../common/clock';
import { Database } from '../../common/database/database';
import type { Tx } from '../../common/database/sql';
import { RfqError, type RfqErrorCode } from '../../common/errors/app-error';
import { JobRunner } from '../../common/jobs/job-runner';
import { QUEUES, jobIds } from '../../common/jobs/queues';
import { logger } from '../../common/logging/logger';
import { newTakerSalt } from '@legwork/protocol';
import { AccountsService } from '../accounts/accounts.service';
import { JournalService } from '../journal/journal.service';
import type { RfqRecord, StoredQuote } from '../rfq/domain/rfq-record';
import { MakerLimitsService } from '../rfq/maker-limits.service';
import { RfqLookupService } from '../rfq/rfq-lookup.service';
import { RfqTransitionsService } from '../rfq/rfq-transitions.service';
import { BalanceRepository } from './balance.repository';
import { refreshLockGroups } from './collateral.sql';
import { allocatePremium } from './domain/average-price';
import { type FillDecision, checkFill } from './domain/fill-check';
import { type LegTrade, legTrades, positionsAfter } from './domain/fold';
import { type AcceptRecord, FillRepository } from './fill.repository';
import { LegPricingService, type PricedLeg } from './leg-pricing.service';
import { type HeldPosition, PositionRepository, type PositionWrite } from './position.repository';

/** Attempts of a fill job (docs/spec/design.md section 5: at least 5). Backoff 0.2 s doubling to 10 s: about 23 s in all. */
const FILL_ATTEMPTS = 8;

/**
 * The fill's move (announced by RfqTransitionsService once the transaction commits). `makerLimits` false:
 * the maker had no limits row when the fill locked its RFQ (nothing to protect after it).
 */
type Announcement = { moved: RfqRecord; makerLimits?: boolean } | null;

/** The fill's frozen view, under its locks: the accept, the legs at fresh marks, both parties' positions. */
interface FillView {
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
 * The fill job (queue `rfq-fill`): accepted → submitting, then one transaction that locks the RFQ,
 * share-locks its instruments, locks the taker's, the maker's and the fee account's balance rows
 * in account-id order, re-checks fee and funding on that frozen view, moves the premium and the
 * fee, folds the legs into both accounts' positions, recomputes both locks, writes the fill
 * (`fills.rfq_id` is UNIQUE) and moves submitting → filled, or records the failed check as
 * submitting → failed. Idempotent: a second run finds the RFQ no longer submitting and does nothing.
 */
@Injectable()
export class FillService implements OnModuleInit {
  constructor(
    private readonly db: Database,
    private readonly rfqs: RfqLookupService,
    private readonly transitions: RfqTransitionsService,
    private readonly pricing: LegPricingService,
    private readonly fillRows: FillRepository,
    private readonly balanceRows: BalanceRepository,
    private readonly positionRows: PositionRepository,
    private readonly accounts: AccountsService,
    private readonly jobs: JobRunner,
    private readonly clock: Clock,
    private readonly journal: JournalService,
    private readonly makerLimits: MakerLimitsService,
  ) {}

  onModuleInit(): void {
    this.jobs.process(QUEUES.rfqFill, async ({ rfqId }, context) => {
      await this.fill(rfqId, { final: context.attempt >= FILL_ATTEMPTS });
    });
  }

  /** Enqueues the fill job of an accepted RFQ. A lost job is the sweep's: never throws. */
  async enqueue(rfqId: string): Promise<void> {
    try {
      await this.jobs.enqueue(QUEUES.rfqFill, { rfqId }, { jobId: jobIds.rfqFill(rfqId), attempts: FILL_ATTEMPTS });
    } catch (error) {
      logger.event('warn', 'fill job not enqueued; the sweep will enqueue it', { rfq_id: rfqId, error: String(error) }, 'Ledger');
    }
  }

  /**
   * Fills an accepted or submitting RFQ; anything else is left alone. Stale market data and
   * database faults throw (the job retries) until the `final` attempt, which records the RFQ as
   * failed with RFQ_NOT_READY or RFQ_TX_FAILED instead.
   */
  async fill(rfqId: string, { final }: { final: boolean }): Promise<void> {
    // The usual case first: one statement moves accepted → submitting; else see where it is.
    const rfq = (await this.transitions.move({ rfqId, from: 'accepted', to: 'submitting' })) ?? (await this.rfqs.findById(rfqId));
    if (!rfq || rfq.state !== 'submitting') return;
    try {
      await this.submit(rfq);
    } catch (error) {
      const notReady = error instanceof RfqError && error.code === 'RFQ_NOT_READY';
      logger.event(final ? 'error' : 'warn', 'fill attempt failed', { rfq_id: rfqId, final, error: String(error) }, 'Ledger');
      if (!final) throw error;
      await this.fail(
        rfqId,
        notReady ? 'RFQ_NOT_READY' : 'RFQ_TX_FAILED',
        notReady ? 'market data stayed stale or missing through every fill attempt' : 'the ledger write failed after every attempt',
      );
    }
  }

  private async submit(rfq: RfqRecord): Promise<void> {
    const now = this.clock.now();
    const legs = this.pricing.pricedLegs(rfq.legs, now);
    // The move's events go out when this returns (RfqTransitionsService announces after the COMMIT).
    const announcement = await this.db.tx((tx) => this.fillWithin(tx, rfq, legs, now));
    // Maker protection after fills (docs/spec/design.md section 15): nothing for a maker without a limits row (read
    // in the fill's first statement), else one keyed read unless the maker has protection set.
    if (announcement?.moved.state === 'filled' && announcement.makerLimits !== false) await this.makerLimits.afterFill(announcement.moved);
  }

  /** The fill's transaction: its locks, its checks on the frozen view, then its writes or its failure. */
  private async fillWithin(tx: Tx, rfq: RfqRecord, legs: PricedLeg[], now: number): Promise<Announcement> {
    // The fill's statements are keyed reads and writes whose best plan never depends on the values.
    // With a year of statistics PostgreSQL planned them anew on every call (it guessed the generic
    // plan dearer than the custom ones): most of what a year-old database added to a lifecycle's
    // PostgreSQL CPU (bench/results/performance.md, "A year-old database"). Generic plans are made once per connection.
    await tx.exec(`SET LOCAL plan_cache_mode = force_generic_plan`);
    const locked = await this.fillRows.lockForFill(
      tx,
      rfq.id,
      rfq.legs.map((l) => l.instrument),
    );
    if (locked?.state !== 'submitting') return null;
    const failWith = (error: RfqErrorCode, message: string) => this.failWithin(tx, rfq.id, error, message);
    const accept = locked.accept;
    if (!accept) return failWith('RFQ_TX_FAILED', 'the accept of this RFQ is not in the ledger');
    const settled = locked.settled;
    if (settled.length > 0) {
      const index = rfq.legs.findIndex((l) => l.instrument === settled[0]);
      return failWith('RFQ_INVALID_INSTRUMENT', `legs[${index}]: ${settled[0]} has settled`);
    }
    const quote = rfq.quote!;
    const taker = rfq.accountId;
    const maker = quote.makerAccountId;
    const feeAccount = this.accounts.feeAccountId();
    // The fee account's row is not locked here but credited last (with the journal head, in `record`): every fill
    // writes it, and a lock held from here to COMMIT made the whole transaction one at a time.
    const balances = await this.balanceRows.rowsOf(tx, [taker, maker], true);
    const positions = await this.positionRows.openOf(tx, [taker, maker]);
    const indexByAsset = new Map([
      ...this.pricing.indexFor([...positions.get(taker)!, ...positions.get(maker)!], now, true),
      ...legs.map((l) => [l.asset, l.index] as const),
      // Locks at the index rows share-locked above, which a concurrent reprice waits for (collateral.sql.ts).
      ...locked.indexes,
    ]);
    const decision = checkFill({
      side: accept.side,
      bid: quote.bid,
      ask: quote.ask,
      maxFee: accept.maxFee,
      legs,
      taker: { balance: balances.get(taker) ?? null, positions: positions.get(taker)! },
      maker: { balance: balances.get(maker) ?? null, positions: positions.get(maker)! },
      indexByAsset,
      params: this.pricing.params,
    });
    if (!decision.ok) return failWith(decision.error, decision.message);
    return this.record(tx, { rfq, quote, accept, legs, feeAccount, positions, now, makerLimits: locked.makerLimits }, decision);
  }

  /** The fill's writes: the ledger in one statement, the lock summaries, the move to filled, the receipt. */
  private async record(tx: Tx, v: FillView, decision: Extract<FillDecision, { ok: true }>): Promise<Announcement> {
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

  private async failWithin(tx: Tx, rfqId: string, error: RfqErrorCode, message: string): Promise<Announcement> {
    const moved = await this.transitions.moveWithin(tx, { rfqId, from: 'submitting', to: 'failed', changes: { failure: { error, message } } });
    if (moved) logger.event('info', 'rfq fill failed', { rfq_id: rfqId, error, message }, 'Ledger');
    return moved ? { moved } : null;
  }

  /** submitting → failed in a transaction of its own (after the last attempt). */
  private async fail(rfqId: string, error: RfqErrorCode, message: string): Promise<void> {
    const moved = await this.transitions.move({ rfqId, from: 'submitting', to: 'failed', changes: { failure: { error, message } } });
    if (moved) logger.event('warn', 'rfq fill failed', { rfq_id: rfqId, error, message }, 'Ledger');
  }
}
