import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Live collateral (docs/spec/design.md section 12).
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
 *
 * Frozen: `fillLockGroups` is this migration's own copy of the summary statement as it was when
 * it was written (collateral.sql.ts, `refreshLockGroups`), so a later change of that code cannot
 * change what this migration did.
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
    const held = (await q.query(`SELECT DISTINCT account_id FROM positions WHERE NOT settled AND quantity <> 0`)) as Array<{ account_id: string }>;
    await fillLockGroups(
      q,
      held.map((r) => r.account_id),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS balances_under_collateralized`);
    await q.query(`DROP TABLE IF EXISTS lock_groups`);
  }
}

/**
 * Writes the group summaries of the accounts from their open positions, one statement: per
 * (account, asset, expiry), worst = min(0, payoff(0), payoff at every strike) x 10000 from running
 * sums in strike order, call_q = net call quantity, call_qk = sum of call quantity x strike, and
 * the highest strike.
 */
async function fillLockGroups(q: QueryRunner, accountIds: readonly string[]): Promise<void> {
  if (accountIds.length === 0) return;
  await q.query(
    `WITH open AS (
      SELECT p.account_id, i.asset, i.expiry, i.strike AS k, p.quantity::numeric AS q,
             CASE WHEN i.kind = 'put' THEN p.quantity::numeric ELSE 0 END AS pq
        FROM positions p JOIN instruments i ON i.symbol = p.instrument
       WHERE p.account_id = ANY($1::bigint[]) AND NOT p.settled AND p.quantity <> 0
    ), at_strikes AS (
      SELECT account_id, asset, expiry, k, q, pq, k * (sum(q) OVER le - sum(pq) OVER g) - sum(q * k) OVER le AS part
        FROM open
      WINDOW g AS (PARTITION BY account_id, asset, expiry), le AS (g ORDER BY k)
    ), summary AS (
      SELECT account_id, asset, expiry, least(0, (min(part) + sum(pq * k)) * 10000, sum(pq * k) * 10000) AS worst,
             sum(q - pq) AS call_q, sum((q - pq) * k) AS call_qk, max(k) AS top_strike
        FROM at_strikes GROUP BY account_id, asset, expiry
    )
     INSERT INTO lock_groups (account_id, asset, expiry, worst, call_q, call_qk, top_strike)
     SELECT account_id, asset, expiry, worst, call_q, call_qk, top_strike FROM summary
     ON CONFLICT (account_id, asset, expiry) DO UPDATE
        SET worst = EXCLUDED.worst, call_q = EXCLUDED.call_q, call_qk = EXCLUDED.call_qk, top_strike = EXCLUDED.top_strike`,
    [[...new Set(accountIds)]],
  );
}
