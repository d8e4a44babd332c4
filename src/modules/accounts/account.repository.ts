import { Injectable } from '@nestjs/common';
import { Database } from '../../common/database/database';
import type { Sql, Tx } from '../../common/database/sql';
import { type Narrow, type Row, type RowOf, columnList } from '../../common/database/table';
import type { Role } from '../../common/access/access';
export interface Account {
  id: number;
  wallet: string;
  roles: Role[];
  createdAt: Date;
  /** Unix seconds of the last revoke of its sessions; 0: never. */
  sessionsRevokedAt: number;
}

/** What the access cache holds of an account (AccountAccessService). */
interface AccountAccessRow {
  id: number;
  roles: Role[];
  /** Unix seconds; 0: never revoked. */
  sessionsRevokedAt: number;
}

const ACCOUNT = columnList('accounts', ['id', 'wallet', 'roles', 'created_at', 'sessions_revoked_at']);
const COLUMNS = ACCOUNT.sql;
type AccountRow = Narrow<RowOf<typeof ACCOUNT>, { roles: Role[] }>;

const toAccount = (row: AccountRow): Account => ({
  id: Number(row.id),
  wallet: row.wallet,
  roles: row.roles,
  createdAt: row.created_at,
  sessionsRevokedAt: Number(row.sessions_revoked_at ?? 0),
});

/**
 * The accounts module's statements over `accounts` (its wallet, roles and revocation; the
 * `open_rfqs` slot counter is the rfq module's). Each method runs on the pool, or on the `Sql` of
 * the caller's transaction.
 */
@Injectable()
export class AccountRepository {
  constructor(private readonly db: Database) {}

  /** The account of the wallet, created with no role when there is none; answers its id. */
  async ensure(wallet: string, sql: Sql): Promise<number> {
    await sql.exec(`INSERT INTO accounts (wallet, roles) VALUES ($1, '{}') ON CONFLICT (wallet) DO NOTHING`, [wallet]);
    const row = await sql.one<Row<'accounts', 'id'>>(`SELECT id FROM accounts WHERE wallet = $1`, [wallet]);
    return Number(row!.id);
  }

  /** Creates the account of the wallet; null when the wallet has one already (nothing changed). */
  async insert(wallet: string, roles: readonly Role[], tx: Tx): Promise<Account | null> {
    const row = await tx.one<AccountRow>(`INSERT INTO accounts (wallet, roles) VALUES ($1, $2) ON CONFLICT (wallet) DO NOTHING RETURNING ${COLUMNS}`, [
      wallet,
      roles,
    ]);
    return row && toAccount(row);
  }

  /** Replaces the roles of the account; null when there is no such account or it has `exceptWallet`. */
  async setRoles(accountId: number, roles: readonly Role[], exceptWallet: string, tx: Tx): Promise<Account | null> {
    const row = await tx.one<AccountRow>(`UPDATE accounts SET roles = $2 WHERE id = $1 AND wallet <> $3 RETURNING ${COLUMNS}`, [
      accountId,
      roles,
      exceptWallet,
    ]);
    return row && toAccount(row);
  }

  /**
   * Moves the account's revocation to `atSeconds` (never back); the revocation it holds now, or
   * null when there is no such account or it has `exceptWallet`.
   */
  async revokeSessions(accountId: number, atSeconds: number, exceptWallet: string, tx: Tx): Promise<number | null> {
    const row = await tx.one<Row<'accounts', 'sessions_revoked_at'>>(
      `UPDATE accounts SET sessions_revoked_at = GREATEST(COALESCE(sessions_revoked_at, 0), $2) WHERE id = $1 AND wallet <> $3 RETURNING sessions_revoked_at`,
      [accountId, atSeconds, exceptWallet],
    );
    return row && Number(row.sessions_revoked_at);
  }

  async findById(accountId: number, sql: Sql = this.db): Promise<Account | null> {
    const row = await sql.one<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE id = $1`, [accountId]);
    return row && toAccount(row);
  }

  async findByWallet(wallet: string, sql: Sql = this.db): Promise<Account | null> {
    const row = await sql.one<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE wallet = $1`, [wallet]);
    return row && toAccount(row);
  }

  /** The accounts of these wallets that exist (one read; a competitive RFQ's panel). */
  async findByWallets(wallets: readonly string[], sql: Sql = this.db): Promise<Account[]> {
    const rows = await sql.rows<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE wallet = ANY($1::text[])`, [wallets]);
    return rows.map(toAccount);
  }

  /** Roles and revocation of the accounts that exist among `ids`. */
  async accessOf(ids: readonly number[], sql: Sql = this.db): Promise<AccountAccessRow[]> {
    const rows = await sql.rows<Narrow<Row<'accounts', 'id' | 'roles' | 'sessions_revoked_at'>, { roles: Role[] }>>(
      `SELECT id, roles, sessions_revoked_at FROM accounts WHERE id = ANY($1::bigint[])`,
      [ids],
    );
    return rows.map((r) => ({ id: Number(r.id), roles: r.roles, sessionsRevokedAt: Number(r.sessions_revoked_at ?? 0) }));
  }
}
