import { Injectable } from '@nestjs/common';
import type { Tx } from '../../common/database/sql';
import { AppError } from '../../common/errors/app-error';
import { InstrumentsService } from '../instruments/instruments.service';
import type { RfqRecord } from '../rfq/domain/rfq-record';
import { RfqLookupService } from '../rfq/rfq-lookup.service';
import { BalanceRepository } from './balance.repository';
import { shareIndexPrices } from './collateral.sql';
import { revertOutcome } from './domain/fill-check';
import { FillRepository } from './fill.repository';
import { LegPricingService } from './leg-pricing.service';
import { PositionRepository } from './position.repository';
import { RevertUndoService } from './revert-undo.service';

/**
 * The revert's transaction (revert.service.ts has the command): the RFQ row locked, the refusals
 * (not filled, a settled round, a free balance that would go negative) on the locked view, then
 * RevertUndoService's writes.
 */
@Injectable()
export class RevertTransactionService {
  constructor(
    private readonly rfqs: RfqLookupService,
    private readonly fillRows: FillRepository,
    private readonly balanceRows: BalanceRepository,
    private readonly positionRows: PositionRepository,
    private readonly instruments: InstrumentsService,
    private readonly pricing: LegPricingService,
    private readonly undoes: RevertUndoService,
  ) {}

  /** The revert's transaction: locks, checks, then the undo (`undo`). */
  async revertWithin(tx: Tx, rfqId: string, now: number): Promise<RfqRecord> {
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
    return this.undoes.undo(tx, rfq, fill, decision, now);
  }
}
