import { Injectable } from '@nestjs/common';
import { bumpViewVersion } from '../../common/broadcast/view-versions';
import type { Tx } from '../../common/database/sql';
import { logger } from '../../common/logging/logger';
import { INSTRUMENTS_CHANGED, InstrumentsService } from '../instruments/instruments.service';
import { BalanceRepository } from './balance.repository';
import { refreshLockGroups, shareIndexPrices } from './collateral.sql';
import { portfolioLock } from './domain/lock';
import { settlementPayments } from './domain/settlement';
import { LegPricingService } from './leg-pricing.service';
import { PositionRepository } from './position.repository';
import type { SettleOutcome } from './settlement-transaction.service';
import { SettlementRepository } from './settlement.repository';

/** The payments of a settled round, inside the settlement's transaction (its lock order is a fill's). */
@Injectable()
export class SettlementPaymentsService {
  constructor(
    private readonly rounds: SettlementRepository,
    private readonly balanceRows: BalanceRepository,
    private readonly positionRows: PositionRepository,
    private readonly pricing: LegPricingService,
    private readonly instruments: InstrumentsService,
  ) {}

  /**
   * Every open position of the round pays or receives; positions, instruments and the round are
   * marked settled at `price`, and the locks of every account involved are recomputed.
   */
  async pay(tx: Tx, asset: string, expiry: number, price: bigint): Promise<SettleOutcome> {
    // Instruments first (fills share-lock them before balance rows), then the balance rows in account-id order.
    const instruments = await this.instruments.settlement.lockTerms(asset, expiry, tx);
    // Index rows before balance rows, as a fill takes them: the locks below are at these prices (collateral.sql.ts).
    const indexes = await shareIndexPrices(tx);
    const terms = new Map(instruments.map((i) => [i.symbol, i]));
    const symbols = instruments.map((i) => i.symbol);
    const held = await this.positionRows.heldIn(tx, symbols);
    const payments = settlementPayments(
      held.map((p) => ({ ...p, kind: terms.get(p.instrument)!.kind, strike: terms.get(p.instrument)!.strike })),
      price,
    );
    const accounts = [...new Set(payments.map((p) => p.accountId))].sort((a, b) => a - b);
    for (const id of accounts) await this.balanceRows.ensureRow(tx, id);
    const balances = await this.balanceRows.rowsOf(tx, accounts, true);
    for (const p of payments) {
      await this.rounds.insertPayment(tx, p);
      await this.positionRows.settleOne(tx, p.accountId, p.instrument, p.amount);
    }
    await this.positionRows.settleRest(tx, symbols);
    // The round's row is locked since lockExpiration: marking it here or before the bump takes no new lock.
    const settledAt = await this.instruments.settlement.markSettled(asset, expiry, price, tx);
    await bumpViewVersion(tx, INSTRUMENTS_CHANGED);

    // Locks over what stays open (this round's positions are settled now).
    const open = await this.positionRows.openOf(tx, accounts);
    const received = new Map<number, bigint>();
    for (const p of payments) received.set(p.accountId, (received.get(p.accountId) ?? 0n) + p.amount);
    // A short that owes more than its total ends negative: a debt shown as it is (docs/spec/design.md section 12).
    const rows = accounts.map((id) => ({
      accountId: id,
      row: {
        total: balances.get(id)!.total + received.get(id)!,
        locked: portfolioLock(open.get(id)!, { indexByAsset: indexes, lockUpsideBps: this.pricing.params.lockUpsideBps }),
      },
    }));
    if (rows.length > 0) await this.balanceRows.setMany(tx, rows);
    await refreshLockGroups(tx, accounts);
    logger.event('info', 'expiration settled', { asset, expiry, price: price.toString(), positions: payments.length }, 'Ledger');
    return { fresh: true, price, settledAt, positions: payments.length };
  }
}
