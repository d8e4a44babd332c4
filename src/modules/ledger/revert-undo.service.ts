import { Injectable } from '@nestjs/common';
import { asBuffer } from '../../common/bytes';
import type { Tx } from '../../common/database/sql';
import { logger } from '../../common/logging/logger';
import { newTakerSalt } from '@legwork/protocol';
import { JournalService } from '../journal/journal.service';
import type { RfqRecord } from '../rfq/domain/rfq-record';
import { RfqTransitionsService } from '../rfq/rfq-transitions.service';
import { BalanceRepository } from './balance.repository';
import { refreshLockGroups } from './collateral.sql';
import { FLAT } from './domain/average-price';
import type { RevertDecision } from './domain/fill-check';
import { type PositionDelta, positionDeltas, reverseDeltas } from './domain/fold';
import { FillRepository, type FillRecord } from './fill.repository';
import { PositionRepository, type PositionWrite, positionKey } from './position.repository';

/**
 * The writes of a revert, inside its transaction once its checks passed: the fill marked reverted,
 * positions replayed without it, both locks and balances, filled → failed and the revert's receipt staged.
 */
@Injectable()
export class RevertUndoService {
  constructor(
    private readonly fillRows: FillRepository,
    private readonly balanceRows: BalanceRepository,
    private readonly positionRows: PositionRepository,
    private readonly transitions: RfqTransitionsService,
    private readonly journal: JournalService,
  ) {}

  /** The fill leaves the history; each position's quantity and average are what the remaining fills make. */
  async undo(tx: Tx, rfq: RfqRecord, fill: FillRecord, decision: Extract<RevertDecision, { ok: true }>, now: number): Promise<RfqRecord> {
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
