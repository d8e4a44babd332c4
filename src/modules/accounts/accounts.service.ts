import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { FEE_ACCOUNT_WALLET, WalletError, parseWallet } from '@legwork/protocol';
import { bumpViewVersion } from '../../common/broadcast/view-versions';
import { Database } from '../../common/database/database';
import { type SqlExecutor, sqlRows } from '../../common/database/sql';
import { AppError } from '../../common/errors/app-error';
import { ROLES, type Role } from '../auth/access';
import { ACCOUNT_ACCESS_CHANGED, AccountAccess } from './account-access.service';

export interface Account {
  id: number;
  wallet: string;
  roles: Role[];
  createdAt: Date;
  /** Unix seconds of the last revoke of its sessions; 0: never. */
  sessionsRevokedAt: number;
}

export interface AccountView {
  account_id: number;
  wallet: string;
  roles: Role[];
  created_at: string;
}

interface AccountRow {
  id: string;
  wallet: string;
  roles: Role[];
  created_at: Date;
  sessions_revoked_at: string | null;
}

const toAccount = (row: AccountRow): Account => ({ id: Number(row.id), wallet: row.wallet, roles: row.roles, createdAt: row.created_at, sessionsRevokedAt: Number(row.sessions_revoked_at ?? 0) });

export const accountView = (a: Account): AccountView => ({ account_id: a.id, wallet: a.wallet, roles: a.roles, created_at: a.createdAt.toISOString() });

/** Parses a roles array: known role names, each once. */
export function parseRoles(value: unknown): Role[] {
  if (!Array.isArray(value) || value.some((r) => typeof r !== 'string' || !(ROLES as readonly string[]).includes(r))) {
    throw new AppError('INVALID_PARAMS', `roles must be an array of ${ROLES.join(', ')}`);
  }
  if (new Set(value).size !== value.length) throw new AppError('INVALID_PARAMS', 'roles must not repeat');
  return value as Role[];
}

/** Accounts stand for the out-of-band web sign-up: an admin creates them (design.md section 3). */
@Injectable()
export class AccountsService implements OnApplicationBootstrap {
  private feeAccount: number | null = null;

  constructor(
    private readonly db: Database,
    private readonly access: AccountAccess,
  ) {}

  /** The fee account exists from the first start: wallet of 32 zero bytes, no role. */
  async onApplicationBootstrap(): Promise<void> {
    await this.db.dataSource.query(`INSERT INTO accounts (wallet, roles) VALUES ($1, '{}') ON CONFLICT (wallet) DO NOTHING`, [FEE_ACCOUNT_WALLET]);
    const [row] = await this.db.dataSource.query(`SELECT id FROM accounts WHERE wallet = $1`, [FEE_ACCOUNT_WALLET]);
    this.feeAccount = Number(row.id);
  }

  feeAccountId(): number {
    if (this.feeAccount === null) throw new Error('fee account not ready');
    return this.feeAccount;
  }

  async create(wallet: unknown, roles: unknown): Promise<Account> {
    try {
      parseWallet(wallet);
    } catch (error) {
      if (error instanceof WalletError) throw new AppError('INVALID_PARAMS', `wallet ${error.message}`);
      throw error;
    }
    const parsedRoles = parseRoles(roles ?? []);
    const { rows, version } = await this.accessChange((m) =>
      sqlRows<AccountRow>(
        m,
        `INSERT INTO accounts (wallet, roles) VALUES ($1, $2) ON CONFLICT (wallet) DO NOTHING RETURNING id, wallet, roles, created_at, sessions_revoked_at`,
        [wallet, parsedRoles],
      ),
    );
    if (rows.length === 0) throw new AppError('CONFLICT', 'this wallet has an account already');
    const account = toAccount(rows[0]);
    await this.access.changed(account.id, version!);
    return account;
  }

  async setRoles(accountId: number, roles: unknown): Promise<Account> {
    const parsedRoles = parseRoles(roles);
    const { rows, version } = await this.accessChange((m) =>
      sqlRows<AccountRow>(
        m,
        `UPDATE accounts SET roles = $2 WHERE id = $1 AND wallet <> $3 RETURNING id, wallet, roles, created_at, sessions_revoked_at`,
        [accountId, parsedRoles, FEE_ACCOUNT_WALLET],
      ),
    );
    if (rows.length === 0) throw new AppError('NOT_FOUND', `account ${accountId} not found`);
    // Every instance's sessions of the account act with the new roles within 1 s (design.md 10).
    await this.access.changed(accountId, version!);
    return toAccount(rows[0]);
  }

  /**
   * Every token of the account issued at or before `revoked_at` (unix seconds, now; never moves
   * back) is refused from then on, and its live sessions end on every instance (design.md 10).
   */
  async revokeSessions(accountId: number): Promise<{ account_id: number; revoked_at: number }> {
    const { rows, version } = await this.accessChange((m) =>
      sqlRows<{ sessions_revoked_at: string }>(
        m,
        `UPDATE accounts SET sessions_revoked_at = GREATEST(COALESCE(sessions_revoked_at, 0), $2) WHERE id = $1 AND wallet <> $3 RETURNING sessions_revoked_at`,
        [accountId, Math.floor(Date.now() / 1000), FEE_ACCOUNT_WALLET],
      ),
    );
    if (rows.length === 0) throw new AppError('NOT_FOUND', `account ${accountId} not found`);
    await this.access.changed(accountId, version!);
    return { account_id: accountId, revoked_at: Number(rows[0].sessions_revoked_at) };
  }

  /**
   * A write of accounts' roles or revocation and the bump of the access view's version in one
   * transaction (design.md 11): the version commits if and only if a row changed.
   */
  private accessChange<Row>(write: (m: SqlExecutor) => Promise<Row[]>): Promise<{ rows: Row[]; version: bigint | null }> {
    return this.db.dataSource.transaction(async (m) => {
      const rows = await write(m);
      return { rows, version: rows.length > 0 ? await bumpViewVersion(m, ACCOUNT_ACCESS_CHANGED) : null };
    });
  }

  async get(accountId: number): Promise<Account> {
    const rows: AccountRow[] = await this.db.dataSource.query(`SELECT id, wallet, roles, created_at, sessions_revoked_at FROM accounts WHERE id = $1`, [accountId]);
    if (rows.length === 0) throw new AppError('NOT_FOUND', `account ${accountId} not found`);
    return toAccount(rows[0]);
  }

  async findByWallet(wallet: string): Promise<Account | null> {
    const rows: AccountRow[] = await this.db.dataSource.query(`SELECT id, wallet, roles, created_at, sessions_revoked_at FROM accounts WHERE wallet = $1`, [wallet]);
    return rows.length ? toAccount(rows[0]) : null;
  }
}
