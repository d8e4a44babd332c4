import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { bumpViewVersion } from '../../common/broadcast/view-versions';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { type SqlExecutor, sqlRows, transactionSql } from '../../common/database/sql';
import { formatHttp } from '../../common/decimal/decimal';
import { AppError } from '../../common/errors/app-error';
import { JobRunner } from '../../common/jobs/job-runner';
import { QUEUES } from '../../common/jobs/queues';
import { logger } from '../../common/logging/logger';
import { parseAsset, parsePositiveAmount, parseUnixSeconds } from '../instruments/domain/inputs';
import type { OptionKind } from '../instruments/domain/symbol';
import { INSTRUMENTS_CHANGED, InstrumentsService } from '../instruments/instruments.service';
import { RfqExpiry } from '../rfq/rfq-expiry';
import { portfolioLock } from './domain/lock';
import { settlementPayments } from './domain/settlement';
import { refreshLockGroups, shareIndexPrices } from './collateral.sql';
import { LedgerStore } from './ledger.store';
import { RiskService } from './risk.service';

export interface SettleExpirationInput {
  asset: unknown;
  expiration: unknown;
  settlement_price?: unknown;
}

export interface SettleExpirationResult {
  asset: string;
  expiration: number;
  settled: true;
  /** HTTP form, 8 decimal places */
  settlement_price: string;
  /** unix seconds */
  settled_at: number;
  /** position rows of the round that paid or received (non-zero quantities) */
  positions: number;
}

/** No fresh index to settle at (the job and the sweep try again; the admin command is told to give a price). */
export class StaleIndexError extends Error {}

interface RoundRow {
  settled: boolean;
  settlement_price: string | null;
  settled_at: Date | null;
}

/**
 * Settlement of an expiration round (design.md section 7): at its expiry (the delayed job, and
 * the sweep) at the index price of that moment when fresh, or forced by the admin command with
 * an optional price. One transaction: every open position of the round pays or receives (shorts
 * pay floor(|q| * intrinsic), longs share exactly that), positions, instruments and the round are
 * marked settled with the price, and the locks of every account involved are recomputed. After
 * the commit, every instance reloads the round, and its pending and quoted RFQs expire.
 * Idempotent: a settled round is not settled again.
 */
@Injectable()
export class SettlementService implements OnModuleInit {
  constructor(
    private readonly store: LedgerStore,
    private readonly risk: RiskService,
    private readonly instruments: InstrumentsService,
    private readonly rfqExpiry: RfqExpiry,
    private readonly jobs: JobRunner,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.process(QUEUES.settlement, async ({ asset, expiration }) => {
      await this.settleAtExpiry(asset, expiration);
    });
  }

  /**
   * The job and the sweep: settles the round at its asset's fresh index once its expiry has come.
   * false when it cannot yet (not due, or the index is stale: the sweep tries again).
   */
  async settleAtExpiry(asset: string, expiry: number): Promise<boolean> {
    const early = expiry * 1000 - this.clock.nowMs();
    if (early > 5_000) return false; // another job, or the sweep, settles it when due
    if (early > 0) await new Promise((resolve) => setTimeout(resolve, early));
    try {
      await this.settle(asset, expiry, null);
      return true;
    } catch (error) {
      if (error instanceof StaleIndexError) {
        logger.event('warn', 'settlement waits for a fresh index', { asset, expiry }, 'Ledger');
        return false;
      }
      if (error instanceof AppError && error.code === 'NOT_FOUND') return false;
      throw error;
    }
  }

  /** POST /v1/admin/instruments/settle-expiration: settles now, at `settlement_price` or the fresh index. */
  async settleExpiration(input: SettleExpirationInput): Promise<SettleExpirationResult> {
    const asset = parseAsset(input.asset);
    const expiration = parseUnixSeconds(input.expiration, 'expiration');
    const price = input.settlement_price === undefined || input.settlement_price === null ? null : parsePositiveAmount(input.settlement_price, 'settlement_price', { allowNumber: true });
    try {
      return await this.settle(asset, expiration, price);
    } catch (error) {
      if (error instanceof StaleIndexError) throw new AppError('CONFLICT', `no fresh index price for ${asset}; give settlement_price`);
      throw error;
    }
  }

  private async settle(asset: string, expiry: number, given: bigint | null): Promise<SettleExpirationResult> {
    const outcome = await this.store.transaction(async (m) => {
      await this.store.lockRound(m, expiry);
      const [round]: RoundRow[] = await m.query(`SELECT settled, settlement_price, settled_at FROM expirations WHERE asset = $1 AND expiry = $2 FOR UPDATE`, [asset, expiry]);
      if (!round) throw new AppError('NOT_FOUND', `no expiration ${expiry} of ${asset}`);
      if (round.settled) {
        const stored = BigInt(round.settlement_price!);
        if (given !== null && given !== stored) throw new AppError('CONFLICT', `expiration ${expiry} of ${asset} settled at ${formatHttp(stored)} already`);
        const [{ n }]: Array<{ n: string }> = await m.query(
          `SELECT count(*) AS n FROM settlement_payments s JOIN instruments i ON i.symbol = s.instrument WHERE i.asset = $1 AND i.expiry = $2`,
          [asset, expiry],
        );
        return { fresh: false, price: stored, settledAt: round.settled_at!, positions: Number(n) };
      }
      const price = given ?? (await this.freshIndex(m, asset));

      // Instruments first (fills share-lock them before balance rows), then the balance rows in account-id order.
      const instruments: Array<{ symbol: string; kind: OptionKind; strike: string }> = await m.query(
        `SELECT symbol, kind, strike FROM instruments WHERE asset = $1 AND expiry = $2 ORDER BY symbol FOR UPDATE`,
        [asset, expiry],
      );
      // Index rows before balance rows, as a fill takes them: the locks below are at these prices (collateral.sql.ts).
      const indexes = await shareIndexPrices(m);
      const terms = new Map(instruments.map((i) => [i.symbol, i]));
      const held: Array<{ account_id: string; instrument: string; quantity: string }> = await m.query(
        `SELECT account_id, instrument, quantity FROM positions WHERE instrument = ANY($1::text[]) AND NOT settled AND quantity <> 0 ORDER BY instrument, account_id`,
        [instruments.map((i) => i.symbol)],
      );
      const payments = settlementPayments(
        held.map((p) => ({ accountId: Number(p.account_id), instrument: p.instrument, kind: terms.get(p.instrument)!.kind, strike: BigInt(terms.get(p.instrument)!.strike), quantity: BigInt(p.quantity) })),
        price,
      );
      const accounts = [...new Set(payments.map((p) => p.accountId))].sort((a, b) => a - b);
      for (const id of accounts) await this.store.ensureLedgerRow(m, id);
      const balances = await this.store.balances(m, accounts, true);
      for (const p of payments) {
        await m.query(`INSERT INTO settlement_payments (instrument, account_id, quantity, amount) VALUES ($1, $2, $3, $4)`, [p.instrument, p.accountId, p.quantity.toString(), p.amount.toString()]);
        await m.query(`UPDATE positions SET settled = true, settlement_amount = $3, updated_at = now() WHERE account_id = $1 AND instrument = $2`, [p.accountId, p.instrument, p.amount.toString()]);
      }
      await m.query(`UPDATE positions SET settled = true, updated_at = now() WHERE instrument = ANY($1::text[]) AND NOT settled`, [instruments.map((i) => i.symbol)]);
      await m.query(`UPDATE instruments SET settled = true, settlement_price = $3 WHERE asset = $1 AND expiry = $2`, [asset, expiry, price.toString()]);
      await bumpViewVersion(transactionSql(m), INSTRUMENTS_CHANGED);
      const [{ settled_at }] = await sqlRows<{ settled_at: Date }>(
        m,
        `UPDATE expirations SET settled = true, settlement_price = $3, settled_at = now() WHERE asset = $1 AND expiry = $2 RETURNING settled_at`,
        [asset, expiry, price.toString()],
      );

      // Locks over what stays open (this round's positions are settled now).
      const open = await this.store.openPositions(m, accounts);
      const received = new Map<number, bigint>();
      for (const p of payments) received.set(p.accountId, (received.get(p.accountId) ?? 0n) + p.amount);
      // A short that owes more than its total ends negative: a debt shown as it is (design.md section 12).
      const rows = accounts.map((id) => ({
        accountId: id,
        row: { total: balances.get(id)!.total + received.get(id)!, locked: portfolioLock(open.get(id)!, { indexByAsset: indexes, lockUpsideBps: this.risk.params.lockUpsideBps }) },
      }));
      if (rows.length > 0) await this.store.setBalances(m, rows);
      await refreshLockGroups(m, accounts);
      logger.event('info', 'expiration settled', { asset, expiry, price: price.toString(), positions: payments.length }, 'Ledger');
      return { fresh: true, price, settledAt: settled_at, positions: payments.length };
    });

    let announceError: unknown = null;
    if (outcome.fresh) await this.instruments.changed({ asset, expiry }).catch((error) => (announceError = error));
    // Pending and quoted RFQs on the round expire (a repeat catches any a crash left behind).
    for (const rfqId of await this.store.openRfqsOfRound(asset, expiry)) await this.rfqExpiry.expireNow(rfqId);
    if (announceError) throw announceError;
    return {
      asset,
      expiration: expiry,
      settled: true,
      settlement_price: formatHttp(outcome.price),
      settled_at: Math.floor(new Date(outcome.settledAt).getTime() / 1000),
      positions: outcome.positions,
    };
  }

  /** The asset's index from the database, if no older than MARKET_DATA_MAX_AGE_SECONDS. */
  private async freshIndex(m: SqlExecutor, asset: string): Promise<bigint> {
    const [row]: Array<{ index_price: string; updated_at: Date }> = await m.query(`SELECT index_price, updated_at FROM index_prices WHERE asset = $1`, [asset]);
    const age = row ? this.clock.now() - Math.floor(new Date(row.updated_at).getTime() / 1000) : Infinity;
    if (!row || age > this.config.marketDataMaxAgeSeconds) throw new StaleIndexError(`no fresh index for ${asset}`);
    return BigInt(row.index_price);
  }
}
