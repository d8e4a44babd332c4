import { Injectable } from '@nestjs/common';
import { Database } from '../../common/database/database';
import type { Row } from '../../common/database/table';

/** The only reader and writer of `auth_nonces` (sign-in nonces, docs/spec/design.md section 3). */
@Injectable()
export class NonceRepository {
  constructor(private readonly db: Database) {}

  /**
   * Stores a new live nonce of the wallet, in one transaction: the wallet's expired nonces go, and
   * past `livePerWallet` the oldest live ones are evicted.
   */
  async add(wallet: string, nonce: string, expiresAt: number, now: number, livePerWallet: number): Promise<void> {
    await this.db.tx(async (sql) => {
      // One wallet's nonces change one at a time, so the eviction below cannot leave more than livePerWallet.
      await sql.rows(`SELECT pg_advisory_xact_lock(hashtext('nonce:' || $1))`, [wallet]);
      await sql.exec(`DELETE FROM auth_nonces WHERE wallet = $1 AND expires_at < $2`, [wallet, now]);
      await sql.exec(`INSERT INTO auth_nonces (nonce, wallet, expires_at) VALUES ($1, $2, $3)`, [nonce, wallet, expiresAt]);
      await sql.exec(
        `DELETE FROM auth_nonces WHERE wallet = $1 AND nonce NOT IN
           (SELECT nonce FROM auth_nonces WHERE wallet = $1 ORDER BY created_seq DESC LIMIT $2)`,
        [wallet, livePerWallet],
      );
    });
  }

  /** Deletes the wallet's nonce; its expiry (unix seconds), or null when there was none. */
  async take(wallet: string, nonce: string): Promise<number | null> {
    const row = await this.db.one<Row<'auth_nonces', 'expires_at'>>(`DELETE FROM auth_nonces WHERE nonce = $1 AND wallet = $2 RETURNING expires_at`, [
      nonce,
      wallet,
    ]);
    return row && Number(row.expires_at);
  }

  /** Deletes every nonce that expired before `now` (unix seconds); how many. */
  purgeExpired(now: number): Promise<number> {
    return this.db.exec(`DELETE FROM auth_nonces WHERE expires_at < $1`, [now]);
  }
}
