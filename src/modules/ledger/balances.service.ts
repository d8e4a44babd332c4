import { Injectable } from '@nestjs/common';
import { Database } from '../../common/database/database';
import { type BalanceRow, DecimalError, I64_MAX, formatHttp, parseHttpAmount } from '@legwork/protocol';
import { AppError } from '../../common/errors/app-error';
import { BalanceRepository } from './balance.repository';
import type { Balance, TransferKind } from './domain/balance';

/** An account's balance in the HTTP API (docs/spec/design.md section 6): the contract's `BalanceRow`. */
export type BalanceView = BalanceRow;

/** A transfer as the service takes it: the request's body parsed (`parseTransferRequest`). */
export interface TransferCommand {
  /** micro-units, > 0 */
  amount: bigint;
  reference: string;
}

export interface TransferResult {
  account_id: number;
  reference: string;
  kind: TransferKind;
  amount: string;
  /** The balance after the transfer (on a repeat: as it is now). */
  balance: BalanceView;
}

const MAX_REFERENCE_LENGTH = 128;

/**
 * The command of a deposit or withdrawal body (HTTP decimal `amount`, `reference` its idempotency key):
 * amount > 0 in micro-units, reference 1 to 128 characters. The controller parses; the service takes the command.
 */
export function parseTransferRequest(request: { amount?: unknown; reference?: unknown }): TransferCommand {
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
export function totalAfterTransfer(current: Balance | null, kind: TransferKind, amount: bigint): bigint {
  const total = current?.total ?? 0n;
  const locked = current?.locked ?? 0n;
  if (kind === 'deposit') {
    if (total + amount > I64_MAX) throw new AppError('CONFLICT', 'the deposit would take the balance out of range');
    return total + amount;
  }
  const free = total - locked;
  // Under-collateralized (docs/spec/design.md section 12): nothing leaves until deposits cover the lock again.
  if (free < 0n)
    throw new AppError(
      'CONFLICT',
      `insufficient free balance: the account is under-collateralized (available ${formatHttp(free)}); withdrawals wait for a deposit`,
    );
  if (free < amount) throw new AppError('CONFLICT', `insufficient free balance: ${formatHttp(free)} available, ${formatHttp(amount)} asked`);
  return total - amount;
}

/** The balance view of an account; without a balance row it is all zero, as of the account's creation. */
export function balanceViewOf(accountId: number, balance: (Balance & { updatedAt: Date }) | null, accountCreatedAt: Date): BalanceView {
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

/**
 * Balances, deposits and withdrawals (docs/spec/design.md section 6). Deposits stand for the chain watcher:
 * each is idempotent by `reference`, and runs in one transaction that locks the balance row.
 */
@Injectable()
export class BalancesService {
  constructor(
    private readonly db: Database,
    private readonly balances: BalanceRepository,
  ) {}

  /** The balance views of these accounts, by account id; an unknown id has none, an account never deposited to a zero one. */
  async balanceViews(accountIds: readonly number[]): Promise<BalanceView[]> {
    return (await this.accountBalances(accountIds)).map((b) => b.balance);
  }

  /** An account's balance view and whether it is anchored (has a balance row); null when there is no such account. */
  async accountBalance(accountId: number): Promise<{ anchored: boolean; balance: BalanceView } | null> {
    const [row] = await this.accountBalances([accountId]);
    return row ? { anchored: row.anchored, balance: row.balance } : null;
  }

  /** Credits an account; its first deposit creates its balance row. Unknown account: NOT_FOUND. */
  deposit(accountId: number, command: TransferCommand): Promise<TransferResult> {
    return this.transfer(accountId, 'deposit', command);
  }

  /** Debits an account's free balance; refuses (CONFLICT) to take it below zero. */
  withdraw(accountId: number, command: TransferCommand): Promise<TransferResult> {
    return this.transfer(accountId, 'withdrawal', command);
  }

  private async transfer(accountId: number, kind: TransferKind, { amount, reference }: TransferCommand): Promise<TransferResult> {
    return this.db.tx(async (sql) => {
      const [account] = await this.balances.accountsWithBalance(sql, [accountId]);
      if (!account) throw new AppError('NOT_FOUND', `account ${accountId} not found`);
      // A deposit anchors the account. Concurrent first deposits wait here for each other.
      if (kind === 'deposit') await this.balances.ensureRow(sql, accountId);
      const current = await this.balances.anchor(sql, accountId, true);
      // The reference is claimed first: a concurrent claim of the same reference waits for ours to end.
      if (!(await this.balances.claimTransfer(sql, { accountId, kind, amount, reference }))) {
        const earlier = (await this.balances.transferByReference(sql, reference))!;
        if (earlier.accountId !== accountId || earlier.kind !== kind || earlier.amount !== amount) {
          throw new AppError('CONFLICT', `reference ${JSON.stringify(reference)} was used for another transfer`);
        }
        return this.result(accountId, kind, amount, reference, balanceViewOf(accountId, current, account.createdAt));
      }
      const updated = await this.balances.setTotal(sql, accountId, totalAfterTransfer(current, kind, amount));
      return this.result(accountId, kind, amount, reference, balanceViewOf(accountId, updated, account.createdAt));
    });
  }

  private result(accountId: number, kind: TransferKind, amount: bigint, reference: string, balance: BalanceView): TransferResult {
    return { account_id: accountId, reference, kind, amount: formatHttp(amount), balance };
  }

  private async accountBalances(accountIds: readonly number[]): Promise<Array<{ anchored: boolean; balance: BalanceView }>> {
    return (await this.balances.accountsWithBalance(this.db, accountIds)).map((a) => ({
      anchored: a.balance !== null,
      balance: balanceViewOf(a.accountId, a.balance, a.createdAt),
    }));
  }
}
