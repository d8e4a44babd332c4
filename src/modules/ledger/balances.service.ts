import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DecimalError, I64_MAX, formatHttp, parseHttpAmount } from '@legwork/protocol';
import { Database } from '../../common/database/database';
import { sqlRows } from '../../common/database/sql';
import { AppError } from '../../common/errors/app-error';

/** An account's ledger row (its anchor, created by its first deposit), in micro-units. */
export interface Balance {
  accountId: number;
  total: bigint;
  locked: bigint;
  updatedAt: Date;
}

/** The balance row of the HTTP API (design.md section 6): 8-dp strings, `available = total - locked`. */
export interface BalanceRow {
  account_id: number;
  currency: 'USDC';
  available: string;
  locked: string;
  total: string;
  updated_at: string;
}

export type TransferKind = 'deposit' | 'withdrawal';

/** A deposit or withdrawal as asked: `amount` is HTTP decimal text, `reference` its idempotency key. */
export interface TransferRequest {
  amount: string;
  reference: string;
}

export interface TransferResult {
  account_id: number;
  reference: string;
  kind: TransferKind;
  amount: string;
  /** The balance row after the transfer (on a repeat: the row as it is now). */
  balance: BalanceRow;
}

export const MAX_REFERENCE_LENGTH = 128;

/** Validates a transfer request: amount > 0 in micro-units, reference 1 to 128 characters. */
export function parseTransferRequest(request: { amount?: unknown; reference?: unknown }): { amount: bigint; reference: string } {
  let amount: bigint;
  try {
    amount = parseHttpAmount(request.amount);
  } catch (error) {
    if (error instanceof DecimalError) throw new AppError('INVALID_PARAMS', `amount: ${error.message}`);
    throw error;
  }
  if (amount <= 0n) throw new AppError('INVALID_PARAMS', 'amount must be greater than zero');
  const reference = request.reference;
  if (typeof reference !== 'string' || reference.length === 0 || reference.length > MAX_REFERENCE_LENGTH) {
    throw new AppError('INVALID_PARAMS', `reference must be a string of 1 to ${MAX_REFERENCE_LENGTH} characters`);
  }
  return { amount, reference };
}

/**
 * The new `total` after a transfer. A withdrawal may not take the free balance (`total - locked`)
 * below zero (nor leave an under-collateralized account); no total may leave the bigint column's
 * range. Both are a CONFLICT (409). A deposit to a negative total (a settlement's debt) repays it first.
 */
export function totalAfterTransfer(current: { total: bigint; locked: bigint } | null, kind: TransferKind, amount: bigint): bigint {
  const total = current?.total ?? 0n;
  const locked = current?.locked ?? 0n;
  if (kind === 'deposit') {
    if (total + amount > I64_MAX) throw new AppError('CONFLICT', 'the deposit would take the balance out of range');
    return total + amount;
  }
  const free = total - locked;
  // Under-collateralized (design.md section 12): nothing leaves until deposits cover the lock again.
  if (free < 0n) throw new AppError('CONFLICT', `insufficient free balance: the account is under-collateralized (available ${formatHttp(free)}); withdrawals wait for a deposit`);
  if (free < amount) throw new AppError('CONFLICT', `insufficient free balance: ${formatHttp(free)} available, ${formatHttp(amount)} asked`);
  return total - amount;
}

/** The balance row of an account; without a ledger row it is all zero, as of the account's creation. */
export function balanceRowOf(accountId: number, balance: { total: bigint; locked: bigint; updatedAt: Date } | null, accountCreatedAt: Date): BalanceRow {
  const total = balance?.total ?? 0n;
  const locked = balance?.locked ?? 0n;
  return {
    account_id: accountId,
    currency: 'USDC',
    available: formatHttp(total - locked),
    locked: formatHttp(locked),
    total: formatHttp(total),
    updated_at: (balance?.updatedAt ?? accountCreatedAt).toISOString(),
  };
}

interface AccountBalanceRow {
  id: string;
  created_at: Date;
  total: string | null;
  locked: string | null;
  updated_at: Date | null;
}

interface LedgerRow {
  account_id: string;
  total: string;
  locked: string;
  updated_at: Date;
}

interface TransferRow {
  account_id: string;
  kind: TransferKind;
  amount: string;
}

const toBalance = (row: LedgerRow): Balance => ({ accountId: Number(row.account_id), total: BigInt(row.total), locked: BigInt(row.locked), updatedAt: row.updated_at });

/**
 * Balances, deposits and withdrawals (design.md section 6). Deposits stand for the chain watcher:
 * each is idempotent by `reference`, and runs in one transaction that locks the balance row.
 */
@Injectable()
export class BalancesService {
  constructor(private readonly db: Database) {}

  /** The balance rows of these accounts, by account id; an unknown id has no row, an account never deposited to a zero row. */
  async balanceRows(accountIds: readonly number[]): Promise<BalanceRow[]> {
    return (await this.accountBalances(accountIds)).map((b) => b.balance);
  }

  /** One account's balance row, or null when there is no such account. */
  async balanceRow(accountId: number): Promise<BalanceRow | null> {
    const [row] = await this.balanceRows([accountId]);
    return row ?? null;
  }

  /** An account's balance row and whether it is anchored (has a ledger row); null when there is no such account. */
  async accountBalance(accountId: number): Promise<{ anchored: boolean; balance: BalanceRow } | null> {
    const [row] = await this.accountBalances([accountId]);
    return row ? { anchored: row.anchored, balance: row.balance } : null;
  }

  /**
   * The account's ledger row, or null when it was never anchored. Pass `manager` to read inside
   * the caller's transaction (and `forUpdate` to lock the row until it ends).
   */
  async anchor(accountId: number, options: { manager?: EntityManager; forUpdate?: boolean } = {}): Promise<Balance | null> {
    const runner = options.manager ?? this.db.dataSource;
    const rows: LedgerRow[] = await runner.query(
      `SELECT account_id, total, locked, updated_at FROM balances WHERE account_id = $1${options.forUpdate ? ' FOR UPDATE' : ''}`,
      [accountId],
    );
    return rows.length ? toBalance(rows[0]) : null;
  }

  /** Credits an account; its first deposit creates its ledger row. Unknown account: NOT_FOUND. */
  deposit(accountId: number, request: TransferRequest): Promise<TransferResult> {
    return this.transfer(accountId, 'deposit', request);
  }

  /** Debits an account's free balance; refuses (CONFLICT) to take it below zero. */
  withdraw(accountId: number, request: TransferRequest): Promise<TransferResult> {
    return this.transfer(accountId, 'withdrawal', request);
  }

  private async transfer(accountId: number, kind: TransferKind, request: TransferRequest): Promise<TransferResult> {
    const { amount, reference } = parseTransferRequest(request);
    return this.db.dataSource.transaction(async (m) => {
      const accounts: Array<{ created_at: Date }> = await m.query(`SELECT created_at FROM accounts WHERE id = $1`, [accountId]);
      if (accounts.length === 0) throw new AppError('NOT_FOUND', `account ${accountId} not found`);
      // A deposit anchors the account. Concurrent first deposits wait here for each other.
      if (kind === 'deposit') await m.query(`INSERT INTO balances (account_id) VALUES ($1) ON CONFLICT (account_id) DO NOTHING`, [accountId]);
      const current = await this.anchor(accountId, { manager: m, forUpdate: true });
      // The reference is claimed first: a concurrent claim of the same reference waits for ours to end.
      const claimed: Array<{ id: string }> = await m.query(
        `INSERT INTO transfers (account_id, kind, amount, reference) VALUES ($1, $2, $3, $4) ON CONFLICT (reference) DO NOTHING RETURNING id`,
        [accountId, kind, amount.toString(), reference],
      );
      if (claimed.length === 0) {
        const [earlier]: TransferRow[] = await m.query(`SELECT account_id, kind, amount FROM transfers WHERE reference = $1`, [reference]);
        if (Number(earlier.account_id) !== accountId || earlier.kind !== kind || BigInt(earlier.amount) !== amount) {
          throw new AppError('CONFLICT', `reference ${JSON.stringify(reference)} was used for another transfer`);
        }
        return this.result(accountId, kind, amount, reference, balanceRowOf(accountId, current, accounts[0].created_at));
      }
      const total = totalAfterTransfer(current, kind, amount);
      const [updated] = await sqlRows<LedgerRow>(
        m,
        `UPDATE balances SET total = $2, updated_at = now() WHERE account_id = $1 RETURNING account_id, total, locked, updated_at`,
        [accountId, total.toString()],
      );
      return this.result(accountId, kind, amount, reference, balanceRowOf(accountId, toBalance(updated), accounts[0].created_at));
    });
  }

  private result(accountId: number, kind: TransferKind, amount: bigint, reference: string, balance: BalanceRow): TransferResult {
    return { account_id: accountId, reference, kind, amount: formatHttp(amount), balance };
  }

  private async accountBalances(accountIds: readonly number[]): Promise<Array<{ anchored: boolean; balance: BalanceRow }>> {
    if (accountIds.length === 0) return [];
    const rows: AccountBalanceRow[] = await this.db.dataSource.query(
      `SELECT a.id, a.created_at, b.total, b.locked, b.updated_at
         FROM accounts a LEFT JOIN balances b ON b.account_id = a.id
        WHERE a.id = ANY($1::bigint[])
        ORDER BY a.id`,
      [accountIds.map(String)],
    );
    return rows.map((row) => {
      const anchored = row.total !== null;
      const ledger = anchored ? { total: BigInt(row.total as string), locked: BigInt(row.locked as string), updatedAt: row.updated_at as Date } : null;
      return { anchored, balance: balanceRowOf(Number(row.id), ledger, row.created_at) };
    });
  }
}
