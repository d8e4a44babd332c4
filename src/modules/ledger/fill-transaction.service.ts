import { Injectable } from '@nestjs/common';
import { Database } from '../../common/database/database';
import type { Tx } from '../../common/database/sql';
import type { RfqErrorCode } from '../../common/errors/app-error';
import { AccountsService } from '../accounts/accounts.service';
import type { RfqRecord } from '../rfq/domain/rfq-record';
import { BalanceRepository } from './balance.repository';
import { checkFill } from './domain/fill-check';
import { FillRepository } from './fill.repository';
import { type Announcement, FillRecordService } from './fill-record.service';
import { LegPricingService, type PricedLeg } from './leg-pricing.service';
import { PositionRepository } from './position.repository';

/**
 * The fill's transaction (the order is in fill.service.ts): the RFQ locked with its instruments
 * and indexes share-locked, both balance rows and positions, the fill check on that frozen view,
 * then FillRecordService's writes or the failed move.
 */
@Injectable()
export class FillTransactionService {
  constructor(
    private readonly db: Database,
    private readonly fillRows: FillRepository,
    private readonly balanceRows: BalanceRepository,
    private readonly positionRows: PositionRepository,
    private readonly accounts: AccountsService,
    private readonly pricing: LegPricingService,
    private readonly records: FillRecordService,
  ) {}

  /** The fill of a submitting RFQ in one transaction; its move, announced once it commits (null: it did not move). */
  run(rfq: RfqRecord, legs: PricedLeg[], now: number): Promise<Announcement> {
    return this.db.tx((tx) => this.fillWithin(tx, rfq, legs, now));
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
    const failWith = (error: RfqErrorCode, message: string) => this.records.failWithin(tx, rfq.id, error, message);
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
    return this.records.record(tx, { rfq, quote, accept, legs, feeAccount, positions, now, makerLimits: locked.makerLimits }, decision);
  }
}
