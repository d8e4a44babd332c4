import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Live collateral (design.md section 12). The lookup paths of the reprice that follows each
 * market-data update, and of the risk report:
 *
 * - `instruments_open_asset`: the unsettled instruments of an asset (the update's asset);
 * - `positions_open`: the open positions of those instruments (the accounts to reprice), without
 *   the settled and flat rows that pile up over time;
 * - `balances_under_collateralized`: the accounts with `available < 0` (normally none), so that
 *   `GET /v1/admin/risk` and the metrics scrape read only them.
 */
export class LiveCollateral1763800000014 implements MigrationInterface {
  name = 'LiveCollateral1763800000014';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX instruments_open_asset ON instruments (asset) WHERE NOT settled`);
    await q.query(`CREATE INDEX positions_open ON positions (instrument, account_id) WHERE NOT settled AND quantity <> 0`);
    await q.query(`CREATE INDEX balances_under_collateralized ON balances (account_id) WHERE total < locked`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const index of ['balances_under_collateralized', 'positions_open', 'instruments_open_asset']) await q.query(`DROP INDEX IF EXISTS ${index}`);
  }
}
