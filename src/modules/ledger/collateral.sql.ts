/**
 * Live collateral in SQL (docs/spec/design.md section 12): the portfolio lock of section 6 for many
 * accounts in one statement, the per-group summaries that make it cheap (the ledger's table
 * `lock_groups`: every statement on it is here), and the locks that order it against the fills.
 * Typed functions over a `Sql` (the caller's transaction), so the market-data update can reprice
 * in its own transaction (`repriceAsset`) without taking the ledger's services.
 *
 * The formula is lock.ts's (lock-sql.e2e-spec.ts checks both agree on the vectors and on random
 * portfolios): per (account, asset, expiry) group of open positions, the worst payoff over
 * S in {0, every strike, U = max(index, highest strike) * (1 + LOCK_UPSIDE_BPS / 10000)}, exact in
 * `numeric`, in micro^2 units times 10000 (so U is whole); the group's lock = ceil(max(0, -worst)
 * / 10^10) by integer division (a numeric quotient is rounded to a few digits and `ceil` of it
 * could lose the last micro-unit), summed per account. Only payoff(U) depends on the index, so
 * each group is kept as a summary in `lock_groups` (written by every fill, revert and settlement
 * from the group's positions, `refreshLockGroups`):
 *   worst      = min(0, payoff(0), payoff at every strike)            (index-free, x 10000)
 *   call_q     = net call quantity,  call_qk = sum of call quantity x strike,  top_strike
 * and then lock = ceil(max(0, -min(worst, call_q * U' - call_qk * 10000)) / 10^10) with
 * U' = max(index, top_strike) * (10000 + LOCK_UPSIDE_BPS): a market-data update reads one
 * summary row per group instead of every position. The payoff at each strike comes from running
 * sums in strike order (one sort): with Q = quantity, P = put quantity, K = strike, sums over the
 * group ("<=": strikes up to K_j, peers included),
 *   payoff(K_j) = K_j * (sum<= Q - sum P) - sum<= Q*K + sum P*K,   payoff(0) = sum P*K.
 * An asset with no index row stresses to its highest strike, as lock.ts does. A lock beyond the
 * bigint column (10^13 USDC: only absurd sizes at an absurd index) is written as the column's
 * maximum rather than failing the market-data update of every account; the account is then far
 * under water and refused everything but fills that reduce its risk.
 *
 * Ordering against fills, reverts and settlements: each of them share-locks every `index_prices`
 * row (`INDEX_SHARE`) before it locks balance rows, and computes its locks at the index it read
 * there. A market-data update writes its asset's row (an exclusive row lock), so it waits for the
 * fills in flight, and a fill that starts after it waits for the update's commit and then reads
 * the new index. Between the update's write and its commit no position (nor summary) of any
 * account can change, so the reprice below is one plain UPDATE whose snapshot is exact. Deposits
 * and withdrawals do not take the index row: they change `total` only, and the UPDATE sets
 * `locked` only.
 */
import type { Sql, Tx } from '../../common/database/sql';
import { columnList } from '../../common/database/table';
import type { Bps } from './domain/fees';

const I64_MAX = '9223372036854775807';
/** Advisory-lock key of the reprices ("LWRP" << 32). */
const REPRICE_LOCK = (0x4c575250n << 32n).toString();

/** A group summary row of `lock_groups`, as stored and as `summary` computes it. */
const LOCK_GROUP = columnList('lock_groups', ['account_id', 'asset', 'expiry', 'worst', 'call_q', 'call_qk', 'top_strike']);

/**
 * The group summaries of the accounts `accounts` (an SQL array expression of ids), from their open
 * positions, as CTEs ending in `summary(account_id, asset, expiry, worst, call_q, call_qk, top_strike)`.
 */
function summaryCte(accounts: string): string {
  return `open AS (
      SELECT p.account_id, i.asset, i.expiry, i.strike AS k, p.quantity::numeric AS q,
             CASE WHEN i.kind = 'put' THEN p.quantity::numeric ELSE 0 END AS pq
        FROM positions p JOIN instruments i ON i.symbol = p.instrument
       WHERE p.account_id = ANY(${accounts}) AND NOT p.settled AND p.quantity <> 0
    ), at_strikes AS (
      SELECT account_id, asset, expiry, k, q, pq, k * (sum(q) OVER le - sum(pq) OVER g) - sum(q * k) OVER le AS part
        FROM open
      WINDOW g AS (PARTITION BY account_id, asset, expiry), le AS (g ORDER BY k)
    ), summary AS (
      SELECT account_id, asset, expiry, least(0, (min(part) + sum(pq * k)) * 10000, sum(pq * k) * 10000) AS worst,
             sum(q - pq) AS call_q, sum((q - pq) * k) AS call_qk, max(k) AS top_strike
        FROM at_strikes GROUP BY account_id, asset, expiry
    )`;
}

/** The lock of a group summary `g` at index `ix` (NULL: none), micro-units; `bps` the LOCK_UPSIDE_BPS parameter. */
const groupLock = (g: string, ix: string, bps: string) =>
  `div(greatest(-least(${g}.worst, ${g}.call_q * greatest(${g}.top_strike, coalesce(${ix}, 0)) * (10000 + ${bps}::numeric) - ${g}.call_qk * 10000), 0) + 9999999999, 10000000000)`;

/**
 * Rewrites the group summaries of the accounts from their open positions (after a fill, a revert
 * or a settlement changed them, in its transaction, under their balance row locks): one statement.
 */
export async function refreshLockGroups(tx: Tx, accountIds: readonly number[]): Promise<void> {
  if (accountIds.length === 0) return;
  await tx.rows(
    `WITH ${summaryCte('$1::bigint[]')},
     written AS (
       INSERT INTO lock_groups (${LOCK_GROUP.sql})
       SELECT ${LOCK_GROUP.sql} FROM summary
       ON CONFLICT (account_id, asset, expiry) DO UPDATE
          SET worst = EXCLUDED.worst, call_q = EXCLUDED.call_q, call_qk = EXCLUDED.call_qk, top_strike = EXCLUDED.top_strike
       RETURNING 1
     ), gone AS (
       DELETE FROM lock_groups l WHERE l.account_id = ANY($1::bigint[])
          AND NOT EXISTS (SELECT 1 FROM summary s WHERE s.account_id = l.account_id AND s.asset = l.asset AND s.expiry = l.expiry)
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM written) AS written, (SELECT count(*) FROM gone) AS gone`,
    [[...new Set(accountIds)].map(String)],
  );
}

/**
 * Reprices, in the caller's transaction (the market-data update's, after its index write), the
 * lock of every account whose lock can depend on the index of `asset`, at the latest index of
 * every asset: one statement over the group summaries, however many accounts. Those accounts are
 * the ones with a group of the asset that is net short calls: the index enters a lock only
 * through U, and beyond the highest strike a group's payoff has the slope of its net call
 * quantity, so when that is >= 0 U never sets the worst case (put writers, long holders and
 * covered call spreads are not recomputed; index lock_groups_short_calls). Rows whose lock is
 * unchanged are not written. Answers how many locks changed.
 */
export async function repriceAsset(tx: Tx, asset: string, lockUpsideBps: Bps): Promise<{ changed: number }> {
  // Reprices of two assets update the balance rows of the accounts holding both, in no set order:
  // one at a time (until commit), so they cannot deadlock. Taken after the index row, which no
  // holder of this lock waits for.
  await tx.rows('SELECT pg_advisory_xact_lock($1::bigint)', [REPRICE_LOCK]);
  const row = await tx.one<{ changed: string }>(
    `WITH locks AS (
       SELECT g.account_id, least(sum(${groupLock('g', 'x.index_price', '$2')}), ${I64_MAX})::bigint AS locked
         FROM lock_groups g LEFT JOIN index_prices x ON x.asset = g.asset
        WHERE g.account_id IN (SELECT account_id FROM lock_groups WHERE asset = $1 AND call_q < 0)
        GROUP BY g.account_id
     ), written AS (
       UPDATE balances b SET locked = l.locked, updated_at = now() FROM locks l
        WHERE b.account_id = l.account_id AND b.locked <> l.locked
       RETURNING 1
     )
     SELECT count(*) AS changed FROM written`,
    [asset, lockUpsideBps],
  );
  return { changed: Number(row?.changed ?? 0) };
}

/** Group summaries that differ from their recomputation from open positions (the invariants): one line each. */
export async function staleLockGroups(sql: Sql): Promise<string[]> {
  const rows = await sql.rows<{ account_id: string; asset: string; expiry: string; stored: string | null; fresh: string | null }>(
    `WITH ${summaryCte('ARRAY(SELECT DISTINCT account_id FROM positions)')},
     stored AS (SELECT ${LOCK_GROUP.sql} FROM lock_groups)
     SELECT coalesce(s.account_id, t.account_id) AS account_id, coalesce(s.asset, t.asset) AS asset, coalesce(s.expiry, t.expiry) AS expiry,
            concat_ws(' ', t.worst, t.call_q, t.call_qk, t.top_strike) AS stored, concat_ws(' ', s.worst, s.call_q, s.call_qk, s.top_strike) AS fresh
       FROM summary s FULL JOIN stored t ON t.account_id = s.account_id AND t.asset = s.asset AND t.expiry = s.expiry
      WHERE s.account_id IS NULL OR t.account_id IS NULL
         OR (s.worst, s.call_q, s.call_qk, s.top_strike) IS DISTINCT FROM (t.worst, t.call_q, t.call_qk, t.top_strike)`,
  );
  return rows.map((r) => `account ${r.account_id} ${r.asset} ${r.expiry}: lock_groups [${r.stored}] != from positions [${r.fresh}]`);
}

/** The locks of the accounts (ids) from their positions at the stored index prices, without writing anything (tests, the migration). */
export async function locksOf(sql: Sql, accountIds: readonly number[], lockUpsideBps: Bps): Promise<Map<number, bigint>> {
  const rows = await sql.rows<{ account_id: string; locked: string }>(
    `WITH ${summaryCte('$1::bigint[]')}
     SELECT s.account_id, least(sum(${groupLock('s', 'x.index_price', '$2')}), ${I64_MAX})::bigint AS locked
       FROM summary s LEFT JOIN index_prices x ON x.asset = s.asset GROUP BY s.account_id`,
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
export async function shareIndexPrices(tx: Tx): Promise<Map<string, bigint>> {
  const row = await tx.one<{ prices: unknown }>(`SELECT ${INDEX_SHARE} AS prices`);
  return parseIndexShare(row?.prices);
}
