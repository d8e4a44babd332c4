/**
 * Live collateral in SQL (design.md section 12): the portfolio lock of section 6 computed by
 * PostgreSQL for many accounts in one statement, and the locks that order it against the fills.
 *
 * The formula is lock.ts's (lock-sql.e2e-spec.ts checks both agree on the vectors and on random
 * portfolios): per (account, asset, expiry) group of open positions, the worst payoff over
 * S in {0, every strike, U = max(index, highest strike) * (1 + LOCK_UPSIDE_BPS / 10000)}, exact in
 * `numeric`, in micro^2 units times 10000 (so U is whole); the group's lock = ceil(max(0, -worst)
 * / 10^10) by integer division (a numeric quotient is rounded to a few digits and `ceil` of it
 * could lose the last micro-unit), summed per account. The payoff at each strike comes from
 * running sums in strike order (one sort, no join of points with positions): with Q = quantity,
 * P = put quantity, K = strike, sums over the group ("<=": strikes up to K_j, peers included),
 *   payoff(K_j) = K_j * (sum<= Q - sum P) - sum<= Q*K + sum P*K,
 *   payoff(0)   = sum P*K,   payoff(U) = sum (Q - P) * U - sum (Q - P) * K   (calls only). An asset with
 * no index row stresses to its highest strike, as lock.ts does. A lock beyond the bigint column
 * (10^13 USDC: only absurd sizes at an absurd index) is written as the column's maximum rather
 * than failing the market-data update of every account; the account is then far under water
 * and refused everything but fills that reduce its risk.
 *
 * Ordering against fills, reverts and settlements: each of them share-locks every `index_prices`
 * row (`INDEX_SHARE`) before it locks balance rows, and computes its locks at the index it read
 * there. A market-data update writes its asset's row (an exclusive row lock), so it waits for the
 * fills in flight, and a fill that starts after it waits for the update's commit and then reads
 * the new index. Between the update's write and its commit no position of any account can
 * change, so the reprice below is one plain UPDATE whose snapshot is exact. Deposits and
 * withdrawals do not take the index row: they change `total` only, and the UPDATE sets `locked`
 * only, from positions.
 */
import type { SqlExecutor } from '../../common/database/sql';
import type { Bps } from './domain/fees';

/**
 * Locks of the accounts that `accounts` (a SELECT of `account_id`) names, as CTEs ending in
 * `locks(account_id, locked)`; `$bps` is the parameter holding LOCK_UPSIDE_BPS.
 */
export function locksCte(accounts: string, bps: string): string {
  return `held AS (${accounts}),
    open AS (
      SELECT p.account_id, i.asset, i.expiry, i.strike AS k, x.index_price AS ix, p.quantity::numeric AS q,
             CASE WHEN i.kind = 'put' THEN p.quantity::numeric ELSE 0 END AS pq
        FROM positions p JOIN instruments i ON i.symbol = p.instrument LEFT JOIN index_prices x ON x.asset = i.asset
       WHERE p.account_id IN (SELECT account_id FROM held) AND NOT p.settled AND p.quantity <> 0
    ), at_strikes AS (
      SELECT account_id, asset, expiry, k, ix, q, pq, k * (sum(q) OVER le - sum(pq) OVER g) - sum(q * k) OVER le AS part
        FROM open
      WINDOW g AS (PARTITION BY account_id, asset, expiry), le AS (g ORDER BY k)
    ), group_locks AS (
      SELECT account_id, least((min(part) + sum(pq * k)) * 10000, sum(pq * k) * 10000,
                               sum(q - pq) * greatest(max(k), coalesce(min(ix), 0)) * (10000 + ${bps}::numeric) - sum((q - pq) * k) * 10000) AS worst
        FROM at_strikes GROUP BY account_id, asset, expiry
    ), locks AS (
      SELECT account_id, least(sum(div(greatest(-worst, 0) + 9999999999, 10000000000)), 9223372036854775807)::bigint AS locked
        FROM group_locks GROUP BY account_id
    )`;
}

/**
 * The accounts whose lock can depend on the index of asset `$1` (indexes instruments_open_asset,
 * positions_open): those with a group (an expiry of the asset) that is net short calls. The index
 * enters a lock only through U, and beyond the highest strike a group's payoff has the slope of
 * its net call quantity: when that is >= 0, payoff(U) >= payoff(highest strike) and U never sets
 * the worst case. Put writers, long holders and covered call spreads are not recomputed.
 */
const HOLDERS_OF_ASSET = `SELECT DISTINCT account_id FROM (
    SELECT p.account_id FROM instruments i JOIN positions p ON p.instrument = i.symbol
     WHERE i.asset = $1 AND i.kind = 'call' AND NOT i.settled AND NOT p.settled AND p.quantity <> 0
     GROUP BY p.account_id, i.expiry HAVING sum(p.quantity) < 0) s`;

/**
 * Reprices, in the caller's transaction (the market-data update's, after its index write), the
 * lock of every account with open positions in `asset` whose lock can depend on its index (net
 * short calls in an expiry), at the latest index of every asset: one statement, however many
 * accounts. Rows whose lock is unchanged are not written. Answers how many accounts were
 * recomputed and how many locks changed.
 */
export async function repriceAsset(sql: SqlExecutor, asset: string, lockUpsideBps: Bps): Promise<{ accounts: number; changed: number }> {
  const [row]: Array<{ accounts: string; changed: string }> = await sql.query(
    `WITH ${locksCte(HOLDERS_OF_ASSET, '$2')},
     written AS (
       UPDATE balances b SET locked = l.locked, updated_at = now() FROM locks l
        WHERE b.account_id = l.account_id AND b.locked <> l.locked
       RETURNING b.account_id
     )
     SELECT (SELECT count(*) FROM held) AS accounts, (SELECT count(*) FROM written) AS changed`,
    [asset, lockUpsideBps],
  );
  return { accounts: Number(row.accounts), changed: Number(row.changed) };
}

/** The locks of the accounts (ids) at the stored index prices, without writing them (tests, the invariants). */
export async function locksOf(sql: SqlExecutor, accountIds: readonly number[], lockUpsideBps: Bps): Promise<Map<number, bigint>> {
  const rows: Array<{ account_id: string; locked: string }> = await sql.query(
    `WITH ${locksCte('SELECT unnest($1::bigint[]) AS account_id', '$2')} SELECT account_id, locked FROM locks`,
    [accountIds.map(String), lockUpsideBps],
  );
  const out = new Map<number, bigint>(accountIds.map((id) => [id, 0n]));
  for (const r of rows) out.set(Number(r.account_id), BigInt(r.locked));
  return out;
}

/**
 * Share-locks every index price row, in asset order, and reads them: a subquery for a statement
 * that answers them as JSON text (`{ "asset": "price", ... }`). Taken before any balance row.
 */
export const INDEX_SHARE = `(SELECT coalesce(json_object_agg(x.asset, x.index_price::text), '{}'::json)
   FROM (SELECT asset, index_price FROM index_prices ORDER BY asset FOR SHARE) x)`;

/** INDEX_SHARE's JSON as a map, micro-units. */
export function parseIndexShare(value: unknown): Map<string, bigint> {
  const object = (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, string> | null;
  return new Map(Object.entries(object ?? {}).map(([asset, price]) => [asset, BigInt(price)]));
}

/** Share-locks every index price row (a settlement's or a revert's step before its balance rows); the prices. */
export async function shareIndexPrices(sql: SqlExecutor): Promise<Map<string, bigint>> {
  const [row]: Array<{ prices: unknown }> = await sql.query(`SELECT ${INDEX_SHARE} AS prices`);
  return parseIndexShare(row.prices);
}

export interface UnderCollateralized {
  accountId: number;
  total: bigint;
  locked: bigint;
  /** total - locked, negative */
  available: bigint;
}

/** The accounts with `available < 0`, most negative first (index balances_under_collateralized). */
export async function underCollateralized(sql: SqlExecutor): Promise<UnderCollateralized[]> {
  const rows: Array<{ account_id: string; total: string; locked: string }> = await sql.query(
    `SELECT account_id, total, locked FROM balances WHERE total < locked ORDER BY total - locked, account_id`,
  );
  return rows.map((r) => {
    const total = BigInt(r.total);
    const locked = BigInt(r.locked);
    return { accountId: Number(r.account_id), total, locked, available: total - locked };
  });
}
