import { Injectable } from '@nestjs/common';
import { Database } from '../../common/database/database';
import type { Sql, Tx } from '../../common/database/sql';
import { type Maybe, type Narrow, type Row, type RowOf, columnList } from '../../common/database/table';
import type { Balance, TransferKind } from './domain/balance';
import { Params } from './statement-params';

/** A balance row to write: the account and its new `total` and `locked`. */
export interface BalanceWrite {
  accountId: number;
  row: Balance;
}

/** An account (any account: anchored or not) with its balance row, null when it has none. */
interface AccountBalance {
  accountId: number;
  createdAt: Date;
  balance: (Balance & { updatedAt: Date }) | null;
}

interface UnderCollateralized {
  accountId: number;
  total: bigint;
  locked: bigint;
  /** total - locked, negative */
  available: bigint;
}

/**
 * The UPDATE that sets `total` and `locked` of the accounts' balance rows (one statement, for the
 * fill's own statement too: FillRepository.record); it answers the ids it updated.
 */
export function balancesUpdate(p: Params, rows: readonly BalanceWrite[]): string {
  return `UPDATE balances b SET total = v.total, locked = v.locked, updated_at = now()
      FROM unnest(${p.add(rows.map((r) => String(r.accountId)))}::bigint[], ${p.add(rows.map((r) => r.row.total.toString()))}::bigint[],
                  ${p.add(rows.map((r) => r.row.locked.toString()))}::bigint[]) AS v(account_id, total, locked)
     WHERE b.account_id = v.account_id
    RETURNING b.account_id`;
}

/** Throws unless the update wrote one row per account. */
export function checkBalances(rows: ReadonlyArray<{ accountId: number }>, updated: number): void {
  if (updated !== new Set(rows.map((r) => r.accountId)).size)
    throw new Error(`${updated} balance rows updated of ${rows.length}: an account has no ledger row`);
}

const BALANCE = columnList('balances', ['account_id', 'total', 'locked']);
type BalanceRow = RowOf<typeof BALANCE>;
/** BALANCE with the time of its last write. */
const STAMPED_BALANCE = columnList('balances', ['account_id', 'total', 'locked', 'updated_at']);
type StampedBalanceRow = RowOf<typeof STAMPED_BALANCE>;

const toBalance = (r: Row<'balances', 'total' | 'locked'>): Balance => ({ total: BigInt(r.total), locked: BigInt(r.locked) });

/** A balance row read from the outer side of `accounts LEFT JOIN balances`: null when the account has none. */
function storedBalance(r: Maybe<Row<'balances', 'total' | 'locked' | 'updated_at'>>): (Balance & { updatedAt: Date }) | null {
  if (r.total === null || r.locked === null || r.updated_at === null) return null;
  return { total: BigInt(r.total), locked: BigInt(r.locked), updatedAt: r.updated_at };
}

/**
 * The balance rows (`balances`) and the deposits and withdrawals (`transfers`): every read and
 * write of them. Methods that take a `Sql` run in the caller's transaction.
 */
@Injectable()
export class BalanceRepository {
  constructor(private readonly db: Database) {}

  /** Balance rows of the accounts (absent: never anchored); `forUpdate` locks them in account-id order (in a `Tx`). */
  rowsOf(tx: Tx, accountIds: readonly number[], forUpdate: true): Promise<Map<number, Balance>>;
  rowsOf(sql: Sql, accountIds: readonly number[], forUpdate?: false): Promise<Map<number, Balance>>;
  async rowsOf(sql: Sql, accountIds: readonly number[], forUpdate = false): Promise<Map<number, Balance>> {
    const rows = await sql.rows<BalanceRow>(
      `SELECT ${BALANCE.sql} FROM balances WHERE account_id = ANY($1::bigint[]) ORDER BY account_id${forUpdate ? ' FOR UPDATE' : ''}`,
      [[...new Set(accountIds)].map(String)],
    );
    return new Map(rows.map((r) => [Number(r.account_id), toBalance(r)]));
  }

  /** The account's balance row with its time, or null when it was never anchored; `forUpdate` locks it (in a `Tx`). */
  anchor(tx: Tx, accountId: number, forUpdate: true): Promise<(Balance & { updatedAt: Date }) | null>;
  anchor(sql: Sql, accountId: number, forUpdate?: false): Promise<(Balance & { updatedAt: Date }) | null>;
  async anchor(sql: Sql, accountId: number, forUpdate = false): Promise<(Balance & { updatedAt: Date }) | null> {
    const row = await sql.one<StampedBalanceRow>(`SELECT ${STAMPED_BALANCE.sql} FROM balances WHERE account_id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [
      accountId,
    ]);
    return row && { ...toBalance(row), updatedAt: row.updated_at };
  }

  /** Creates the balance row of an account that has none (a first deposit, the fee account's first fee). */
  async ensureRow(tx: Tx, accountId: number): Promise<void> {
    await tx.exec(`INSERT INTO balances (account_id) VALUES ($1) ON CONFLICT (account_id) DO NOTHING`, [accountId]);
  }

  /** Sets `total` and `locked` of several accounts' balance rows in one statement; throws unless each has one. */
  async setMany(tx: Tx, rows: readonly BalanceWrite[]): Promise<void> {
    const p = new Params();
    checkBalances(rows, await tx.exec(balancesUpdate(p, rows), p.values));
  }

  /** Sets the account's `total` (a transfer); the row as written. */
  async setTotal(tx: Tx, accountId: number, total: bigint): Promise<Balance & { updatedAt: Date }> {
    const row = await tx.one<StampedBalanceRow>(`UPDATE balances SET total = $2, updated_at = now() WHERE account_id = $1 RETURNING ${STAMPED_BALANCE.sql}`, [
      accountId,
      total.toString(),
    ]);
    if (!row) throw new Error(`account ${accountId} has no ledger row`);
    return { ...toBalance(row), updatedAt: row.updated_at };
  }

  /**
   * Claims a transfer's reference (idempotency key): true when this transfer is the first with it.
   * A concurrent claim of the same reference waits for the caller's transaction to end.
   */
  async claimTransfer(tx: Tx, t: { accountId: number; kind: TransferKind; amount: bigint; reference: string }): Promise<boolean> {
    const claimed = await tx.exec(`INSERT INTO transfers (account_id, kind, amount, reference) VALUES ($1, $2, $3, $4) ON CONFLICT (reference) DO NOTHING`, [
      t.accountId,
      t.kind,
      t.amount.toString(),
      t.reference,
    ]);
    return claimed === 1;
  }

  /** The transfer made with this reference, or null. */
  async transferByReference(sql: Sql, reference: string): Promise<{ accountId: number; kind: TransferKind; amount: bigint } | null> {
    const row = await sql.one<Narrow<Row<'transfers', 'account_id' | 'kind' | 'amount'>, { kind: TransferKind }>>(
      `SELECT account_id, kind, amount FROM transfers WHERE reference = $1`,
      [reference],
    );
    return row && { accountId: Number(row.account_id), kind: row.kind, amount: BigInt(row.amount) };
  }

  /**
   * The accounts with their balance rows, by account id (an unknown id is absent). One read of
   * `accounts` (the accounts module's: its creation time is the time of a never-anchored row)
   * joined with `balances`, as a page of balances is one statement.
   */
  async accountsWithBalance(sql: Sql, accountIds: readonly number[]): Promise<AccountBalance[]> {
    if (accountIds.length === 0) return [];
    const rows = await sql.rows<Row<'accounts', 'id' | 'created_at'> & Maybe<Row<'balances', 'total' | 'locked' | 'updated_at'>>>(
      `SELECT a.id, a.created_at, b.total, b.locked, b.updated_at
         FROM accounts a LEFT JOIN balances b ON b.account_id = a.id
        WHERE a.id = ANY($1::bigint[])
        ORDER BY a.id`,
      [accountIds.map(String)],
    );
    return rows.map((r) => ({
      accountId: Number(r.id),
      createdAt: r.created_at,
      balance: storedBalance(r),
    }));
  }

  /** The accounts with `available < 0`, most negative first (index balances_under_collateralized). */
  async underCollateralized(sql: Sql = this.db): Promise<UnderCollateralized[]> {
    const rows = await sql.rows<BalanceRow>(`SELECT ${BALANCE.sql} FROM balances WHERE total < locked ORDER BY total - locked, account_id`);
    return rows.map((r) => {
      const { total, locked } = toBalance(r);
      return { accountId: Number(r.account_id), total, locked, available: total - locked };
    });
  }
}
