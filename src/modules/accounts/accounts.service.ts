import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { FEE_ACCOUNT_WALLET, WalletError, parseWallet } from '@legwork/protocol';
import { bumpViewVersion } from '../../common/broadcast/view-versions';
import { Database } from '../../common/database/database';
import type { Tx } from '../../common/database/sql';
import { AppError } from '../../common/errors/app-error';
import { ROLES, type Role } from '../../common/access/access';
import { ACCOUNT_ACCESS_CHANGED, AccountAccessService } from './account-access.service';
import { type Account, AccountRepository } from './account.repository';

export interface AccountView {
  account_id: number;
  wallet: string;
  roles: Role[];
  created_at: string;
}

export const accountView = (a: Account): AccountView => ({ account_id: a.id, wallet: a.wallet, roles: a.roles, created_at: a.createdAt.toISOString() });

/** Parses a roles array: known role names, each once. */
export function parseRoles(value: unknown): Role[] {
  if (!Array.isArray(value) || value.some((r) => typeof r !== 'string' || !(ROLES as readonly string[]).includes(r))) {
    throw new AppError('INVALID_PARAMS', `roles must be an array of ${ROLES.join(', ')}`);
  }
  if (new Set(value).size !== value.length) throw new AppError('INVALID_PARAMS', 'roles must not repeat');
  return value as Role[];
}

/** Accounts stand for the out-of-band web sign-up: an admin creates them (docs/spec/design.md section 3). */
@Injectable()
export class AccountsService implements OnApplicationBootstrap {
  private feeAccount: number | null = null;

  constructor(
    private readonly db: Database,
    private readonly accounts: AccountRepository,
    private readonly access: AccountAccessService,
  ) {}

  /** The fee account exists from the first start: wallet of 32 zero bytes, no role. */
  async onApplicationBootstrap(): Promise<void> {
    this.feeAccount = await this.accounts.ensure(FEE_ACCOUNT_WALLET, this.db);
  }

  feeAccountId(): number {
    if (this.feeAccount === null) throw new Error('fee account not ready');
    return this.feeAccount;
  }

  /**
   * `wallet`, `roles`: as the admin.create-account declaration checked them (a string; known role names). The wallet's
   * canonical form and the roles' uniqueness are checked here (the declaration does not).
   */
  async create(wallet: string, roles: readonly Role[] = []): Promise<Account> {
    try {
      parseWallet(wallet);
    } catch (error) {
      if (error instanceof WalletError) throw new AppError('INVALID_PARAMS', `wallet ${error.message}`);
      throw error;
    }
    const parsedRoles = parseRoles(roles);
    const { row, version } = await this.accessChange((sql) => this.accounts.insert(wallet, parsedRoles, sql));
    if (!row) throw new AppError('CONFLICT', 'this wallet has an account already');
    await this.access.changed(row.id, version!);
    return row;
  }

  async setRoles(accountId: number, roles: readonly Role[]): Promise<Account> {
    const parsedRoles = parseRoles(roles);
    const { row, version } = await this.accessChange((sql) => this.accounts.setRoles(accountId, parsedRoles, FEE_ACCOUNT_WALLET, sql));
    if (!row) throw new AppError('NOT_FOUND', `account ${accountId} not found`);
    // Every instance's sessions of the account act with the new roles within 1 s (docs/spec/design.md 10).
    await this.access.changed(accountId, version!);
    return row;
  }

  /**
   * Every token of the account issued at or before `revoked_at` (unix seconds, now; never moves
   * back) is refused from then on, and its live sessions end on every instance (docs/spec/design.md 10).
   */
  async revokeSessions(accountId: number): Promise<{ account_id: number; revoked_at: number }> {
    const now = Math.floor(Date.now() / 1000);
    const { row, version } = await this.accessChange((sql) => this.accounts.revokeSessions(accountId, now, FEE_ACCOUNT_WALLET, sql));
    if (row === null) throw new AppError('NOT_FOUND', `account ${accountId} not found`);
    await this.access.changed(accountId, version!);
    return { account_id: accountId, revoked_at: row };
  }

  /**
   * A write of accounts' roles or revocation and the bump of the access view's version in one
   * transaction (docs/spec/design.md 11): the version commits if and only if a row changed.
   */
  private accessChange<Row>(write: (tx: Tx) => Promise<Row | null>): Promise<{ row: Row | null; version: bigint | null }> {
    return this.db.tx(async (sql) => {
      const row = await write(sql);
      return { row, version: row !== null ? await bumpViewVersion(sql, ACCOUNT_ACCESS_CHANGED) : null };
    });
  }

  async get(accountId: number): Promise<Account> {
    const account = await this.accounts.findById(accountId);
    if (!account) throw new AppError('NOT_FOUND', `account ${accountId} not found`);
    return account;
  }

  findByWallet(wallet: string): Promise<Account | null> {
    return this.accounts.findByWallet(wallet);
  }

  /** The accounts of these wallets that exist, in one read. */
  findByWallets(wallets: readonly string[]): Promise<Account[]> {
    return this.accounts.findByWallets(wallets);
  }
}
