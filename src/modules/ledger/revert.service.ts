import { Injectable } from '@nestjs/common';
import { asBuffer } from '../../common/bytes';
import { Clock } from '../../common/clock';
import { Database } from '../../common/database/database';
import type { Tx } from '../../common/database/sql';
import { AppError } from '../../common/errors/app-error';
import { logger } from '../../common/logging/logger';
import { newTakerSalt } from '@legwork/protocol';
import { InstrumentsService } from '../instruments/instruments.service';
import { JournalService } from '../journal/journal.service';
import type { RfqRecord } from '../rfq/domain/rfq-record';
import { RfqLookupService } from '../rfq/rfq-lookup.service';
import { RfqTransitionsService } from '../rfq/rfq-transitions.service';
import { BalanceRepository } from './balance.repository';
import { refreshLockGroups, shareIndexPrices } from './collateral.sql';
import { FLAT } from './domain/average-price';
import { type RevertDecision, revertOutcome } from './domain/fill-check';
import { type PositionDelta, positionDeltas, reverseDeltas } from './domain/fold';
import { FillRepository, type FillRecord } from './fill.repository';
import { LegPricingService } from './leg-pricing.service';
import { PositionRepository, type PositionWrite, positionKey } from './position.repository';

export interface RevertResult {
  rfq_id: string;
  state: 'failed';
  reverted: true;
}

const RFQ_ID = /^[0-9a-f]{32}$/;

/**
 * POST /v1/admin/rfq/{rfq_id}/revert (docs/spec/design.md section 5): undoes a fill exactly in one
 * transaction (premium, fee, both folds, both locks) and moves filled → failed with
 * RFQ_TX_FAILED and `fill.reverted = true`. Refused (409) when the RFQ is not filled (a reverted
 * one included), when a leg's round has settled, or when undoing would take an account's free
 * balance below zero.
 */
@Injectable()
export class RevertService {
  constructor(
    private readonly db: Database,
    private readonly rfqs: RfqLookupService,
    private readonly transitions: RfqTransitionsService,
    private readonly fillRows: FillRepository,
    private readonly balanceRows: BalanceRepository,
    private readonly positionRows: PositionRepository,
    private readonly instruments: InstrumentsService,
    private readonly pricing: LegPricingService,
    private readonly clock: Clock,
    private readonly journal: JournalService,
  ) {}

  async revert(rfqId: string): Promise<RevertResult> {
    if (!RFQ_ID.test(rfqId)) throw new AppError('INVALID_PARAMS', 'rfq_id must be 32 lowercase hex characters');
    const now = this.clock.now();
    // The move filled → failed is announced once this transaction commits (RfqTransitionsService.moveWithin).
    const record = await this.db.tx((tx) => this.revertWithin(tx, rfqId, now));
    // The revert's receipt is chained after the COMMIT (docs/receipts.md); the admin's answer waits
    // for it, so the fill's rows show `revert_receipt` from then on.
    await this.journal.receiptOf(record.fill!.fillId, 1);
    return { rfq_id: rfqId, state: 'failed', reverted: true };
  }

  /** The revert's transaction: locks, checks, then the undo (`undo`). */
  private async revertWithin(tx: Tx, rfqId: string, now: number): Promise<RfqRecord> {
    const state = await this.rfqs.lockState(tx, rfqId);
    if (state === null) throw new AppError('NOT_FOUND', `no RFQ ${rfqId}`);
    const rfq = (await this.rfqs.findById(rfqId, tx))!;
    if (state !== 'filled') {
      throw new AppError('CONFLICT', rfq.fill?.reverted ? `the fill of RFQ ${rfqId} is reverted already` : `RFQ ${rfqId} is ${state}, not filled`);
    }
    const fill = await this.fillRows.findByRfq(tx, rfqId);
    if (!fill) throw new Error(`rfq ${rfqId} is filled but has no fill row`);
    const settled = await this.instruments.settlement.settledAmong(
      fill.legs.map((l) => l.instrument),
      tx,
    );
    if (settled.length > 0) throw new AppError('CONFLICT', `the round of ${settled[0]} has settled; its fills stand`);

    const { takerAccountId: taker, makerAccountId: maker, feeAccountId } = fill;
    // Index rows before balance rows, as a fill takes them: the locks below are at these prices (collateral.sql.ts).
    const indexes = await shareIndexPrices(tx);
    // The fee account's row after the others, in the fills' lock order (fill.service.ts): no deadlock with a running fill.
    const balances = await this.balanceRows.rowsOf(tx, [taker, maker], true);
    for (const [id, row] of await this.balanceRows.rowsOf(tx, [feeAccountId], true)) balances.set(id, row);
    const positions = await this.positionRows.openOf(tx, [taker, maker]);
    const decision = revertOutcome({
      side: fill.side,
      price: fill.price,
      fee: fill.fee,
      legs: fill.legs,
      taker: { balance: balances.get(taker) ?? null, positions: positions.get(taker)! },
      maker: { balance: balances.get(maker) ?? null, positions: positions.get(maker)! },
      feeAccount: balances.get(feeAccountId) ?? { total: 0n, locked: 0n },
      indexByAsset: indexes,
      lockUpsideBps: this.pricing.params.lockUpsideBps,
    });
    if (!decision.ok) throw new AppError('CONFLICT', decision.message);
    return this.undo(tx, rfq, fill, decision, now);
  }

  /** The fill leaves the history; each position's quantity and average are what the remaining fills make. */
  private async undo(tx: Tx, rfq: RfqRecord, fill: FillRecord, decision: Extract<RevertDecision, { ok: true }>, now: number): Promise<RfqRecord> {
    const { takerAccountId: taker, makerAccountId: maker, feeAccountId } = fill;
    // The fill's own salt, so the revert commits to the taker as its fill did; a fill signed as
    // version 1 (no salt) gets one here, which its row keeps (docs/spec/design.md 16).
    const takerSalt = fill.takerSalt ?? asBuffer(newTakerSalt());
    await this.fillRows.markReverted(tx, fill.fillId, now, takerSalt);
    const deltas = positionDeltas(fill.legs, fill.side);
    const replayed = await this.fillRows.replayPositions(
      tx,
      [taker, maker],
      fill.legs.map((l) => l.instrument),
    );
    const undo = (accountId: number, list: PositionDelta[]): PositionWrite[] =>
      reverseDeltas(list).map((d) => ({
        accountId,
        instrument: d.instrument,
        delta: d.quantity,
        position: replayed.get(positionKey(accountId, d.instrument)) ?? FLAT,
      }));
    await this.positionRows.write(tx, [...undo(taker, deltas.taker), ...undo(maker, deltas.maker)]);
    await refreshLockGroups(tx, [taker, maker]);
    await this.balanceRows.setMany(tx, [
      { accountId: taker, row: decision.taker },
      { accountId: maker, row: decision.maker },
      { accountId: feeAccountId, row: decision.feeAccount },
    ]);
    const record = await this.transitions.moveWithin(tx, {
      rfqId: rfq.id,
      from: 'filled',
      to: 'failed',
      at: now,
      changes: { failure: { error: 'RFQ_TX_FAILED', message: 'the fill was reverted by an admin' }, fillReverted: true },
    });
    if (!record) throw new Error(`rfq ${rfq.id} left filled under its own row lock`);
    // The revert's receipt (kind 1) repeats the fill's terms at the revert's time, staged as a fill's
    // is; its taker commitment is made with the salt written to the fill row above.
    await this.journal.stage(tx, {
      kind: 1,
      fillId: fill.fillId,
      rfqId: rfq.id,
      quoteId: fill.quoteId,
      makerWallet: rfq.quote!.makerWallet,
      side: fill.side,
      price: fill.price,
      fee: fill.fee,
      at: now,
      legs: fill.legs,
    });
    logger.event('info', 'rfq fill reverted', { rfq_id: rfq.id, fill_id: fill.fillId }, 'Ledger');
    return record;
  }
}
