/**
 * Live collateral in SQL (design.md section 12): the portfolio lock of section 6 computed by
 * PostgreSQL for many accounts in one statement, and the locks that order it against the fills.
 *
 * The formula is lock.ts's, term by term (lock.sql.e2e-spec.ts checks both agree on the vectors
 * and on random portfolios): per (account, asset, expiry) group of open positions, stress points
 * S in {0, every strike, U = max(index, highest strike) * (10000 + LOCK_UPSIDE_BPS)} in micro-units
 * times 10000 (so U is whole), payoff(S) = sum of q * intrinsic(S) exact in `numeric`, the group's
 * lock = ceil(max(0, -min payoff) / 10^10) by integer division (a numeric quotient is rounded to a
 * few digits and `ceil` of it could lose the last micro-unit), summed per account. An asset with
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
      SELECT p.account_id, i.asset, i.expiry, i.strike, i.strike::numeric * 10000 AS k, i.kind, p.quantity::numeric AS q
        FROM held h JOIN positions p ON p.account_id = h.account_id JOIN instruments i ON i.symbol = p.instrument
       WHERE NOT p.settled AND p.quantity <> 0
    ), groups AS (
      SELECT o.account_id, o.asset, o.expiry, greatest(max(o.strike), coalesce(min(x.index_price), 0))::numeric * (10000 + ${bps}::numeric) AS u
        FROM open o LEFT JOIN index_prices x ON x.asset = o.asset
       GROUP BY o.account_id, o.asset, o.expiry
    ), points AS (
      SELECT account_id, asset, expiry, 0::numeric AS s FROM groups
      UNION SELECT account_id, asset, expiry, u FROM groups
      UNION SELECT account_id, asset, expiry, k FROM open
    ), payoffs AS (
      SELECT pt.account_id, pt.asset, pt.expiry,
             sum(o.q * CASE WHEN o.kind = 'call' THEN greatest(pt.s - o.k, 0) ELSE greatest(o.k - pt.s, 0) END) AS payoff
        FROM points pt JOIN open o ON o.account_id = pt.account_id AND o.asset = pt.asset AND o.expiry = pt.expiry
       GROUP BY pt.account_id, pt.asset, pt.expiry, pt.s
    ), group_locks AS (
      SELECT account_id, div(greatest(-min(payoff), 0) + 9999999999, 10000000000) AS lock FROM payoffs GROUP BY account_id, asset, expiry
    ), locks AS (
      SELECT account_id, least(sum(lock), 9223372036854775807)::bigint AS locked FROM group_locks GROUP BY account_id
    )`;
}

/** The accounts holding an open position in asset `$1` (indexes instruments_open_asset, positions_open). */
const HOLDERS_OF_ASSET = `SELECT DISTINCT p.account_id FROM instruments i JOIN positions p ON p.instrument = i.symbol
  WHERE i.asset = $1 AND NOT i.settled AND NOT p.settled AND p.quantity <> 0`;

/**
 * Reprices, in the caller's transaction (the market-data update's, after its index write), the
 * lock of every account with an open position in `asset` at the latest index of every asset:
 * one statement, however many accounts. Rows whose lock is unchanged are not written. Answers
 * how many accounts held the asset and how many locks changed.
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
