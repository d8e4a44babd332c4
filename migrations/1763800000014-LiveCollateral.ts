import type { MigrationInterface, QueryRunner } from 'typeorm';
import { transactionSql } from '../src/common/database/sql';
import { refreshLockGroups } from '../src/modules/ledger/collateral.sql';

/**
 * Live collateral (design.md section 12).
 *
 * - `lock_groups`: one row per (account, asset, expiry) group of open positions, the part of its
 *   lock that does not depend on the index (collateral.sql.ts): a market-data update reprices
 *   from these rows, not from every position. Written by fills, reverts and settlements; filled
 *   in here from the open positions. `lock_groups_short_calls`: the groups an update of an asset
 *   reprices (net short calls: the only ones whose lock depends on the index).
 * - `balances_under_collateralized`: the accounts with `available < 0` (normally none), so that
 *   `GET /v1/admin/risk` and the metrics scrape read only them.
 *
 * Stored locks are left as they are: a group whose lock depends on the index is repriced by the
 * next market-data update of its asset (the others do not depend on it).
 */
export class LiveCollateral1763800000014 implements MigrationInterface {
  name = 'LiveCollateral1763800000014';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE lock_groups (
        account_id  bigint NOT NULL REFERENCES accounts (id),
        asset       text NOT NULL,
        expiry      bigint NOT NULL,
        worst       numeric NOT NULL CHECK (worst <= 0),
        call_q      numeric NOT NULL,
        call_qk     numeric NOT NULL,
        top_strike  bigint NOT NULL,
        PRIMARY KEY (account_id, asset, expiry)
      )`);
    await q.query(`CREATE INDEX lock_groups_short_calls ON lock_groups (asset, account_id) WHERE call_q < 0`);
    await q.query(`CREATE INDEX balances_under_collateralized ON balances (account_id) WHERE total < locked`);
    const held: Array<{ account_id: string }> = await q.query(`SELECT DISTINCT account_id FROM positions WHERE NOT settled AND quantity <> 0`);
    await refreshLockGroups(transactionSql(q.manager), held.map((r) => Number(r.account_id)));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS balances_under_collateralized`);
    await q.query(`DROP TABLE IF EXISTS lock_groups`);
  }
}
