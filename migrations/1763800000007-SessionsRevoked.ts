import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `accounts.sessions_revoked_at` (unix seconds, null: never): every session token of the account
 * issued at or before it is refused (docs/spec/design.md section 10). Read by primary key with the roles,
 * so no index of its own.
 */
export class SessionsRevoked1763800000007 implements MigrationInterface {
  name = 'SessionsRevoked1763800000007';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE accounts ADD COLUMN sessions_revoked_at bigint`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE accounts DROP COLUMN IF EXISTS sessions_revoked_at`);
  }
}
