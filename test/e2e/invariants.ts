/**
 * The ledger's invariants, checked through SQL against the database of a running app:
 *
 *   (a) the sum of every balances.total equals deposits − withdrawals (fills, fees and
 *       settlements only move money between accounts);
 *   (b) every instrument's positions sum to zero;
 *   (c) every balance's locked is the lock of its open positions recomputed (lock.ts) at the
 *       latest index price of each asset (docs/spec/design.md section 12: locks follow the market); a
 *       negative total or available is allowed (a debt, an under-collateralized account) and
 *       (a) counts it;
 *   (d) positions equal the fold of the fills that are not reverted (taker + on buy, − on sell;
 *       the maker the opposite);
 *   (e) an RFQ is filled exactly when it has a fill that is not reverted;
 *   (f) every position's stored average cost (exact fraction and rounded price) is the replay of
 *       those fills in fill order (the query API reads it without replaying);
 *   (g) every account's open_rfqs is the number of its RFQs in pending, quoted, accepted or
 *       submitting (the MAX_OPEN_RFQS slots);
 *   (h) every lock_groups row (the index-free part of a group's lock that market-data updates
 *       reprice from) equals its recomputation from the open positions, and every open group has one.
 *
 * `violations` lists what is broken (empty when all hold); `expectInvariants` fails a test on any.
 */
import type { TestApp } from './harness';
import { Database } from '../../src/common/database/database';
import { FLAT, type PositionCost, addTrade, roundedAverage } from '../../src/modules/ledger/domain/average-price';
import { orientation } from '../../src/modules/ledger/domain/fold';
import { staleLockGroups } from '../../src/modules/ledger/collateral.sql';
import { rowsSql } from './support/rows-sql';
import { type LockPosition, portfolioLock } from '../../src/modules/ledger/domain/lock';

/** Runs SQL and answers rows: the app's own DataSource, or a pg Client wrapped by `pgRows`. */
export type Rows = (sql: string, params?: unknown[]) => Promise<any[]>;

/** SQL through the app's own connection (works for PostgreSQL and embedded PGlite alike). */
export function appRows(app: TestApp): Rows {
  const db = app.app.get(Database);
  return (sql, params) => db.dataSource.query(sql, params);
}

/** SQL through a node-postgres client. */
export function pgRows(client: { query(sql: string, params?: unknown[]): Promise<{ rows: any[] }> }): Rows {
  return async (sql, params) => (await client.query(sql, params)).rows;
}

/** (c): every account's locked amount is the lock of its open positions at the latest index prices. */
async function locksOfPositions(rows: Rows, lockUpsideBps: number): Promise<string[]> {
  const out: string[] = [];
  const index = new Map<string, bigint>((await rows(`SELECT asset, index_price::text FROM index_prices`)).map((r) => [r.asset, BigInt(r.index_price)]));
  const open = new Map<string, LockPosition[]>();
  for (const p of await rows(`
    SELECT p.account_id::text, i.asset, i.expiry::text, i.strike::text, i.kind, p.quantity::text
      FROM positions p JOIN instruments i ON i.symbol = p.instrument WHERE NOT p.settled AND p.quantity <> 0`)) {
    const list = open.get(p.account_id) ?? [];
    list.push({ asset: p.asset, expiry: Number(p.expiry), strike: BigInt(p.strike), kind: p.kind, quantity: BigInt(p.quantity) });
    open.set(p.account_id, list);
  }
  for (const r of await rows(`SELECT account_id::text, locked::text FROM balances`)) {
    const want = portfolioLock(open.get(r.account_id) ?? [], { indexByAsset: index, lockUpsideBps });
    if (BigInt(r.locked) !== want) out.push(`(c) account ${r.account_id}: locked ${r.locked} != ${want}, the lock of its positions at the latest index`);
  }
  return out;
}

/** (f): every position's stored average is the replay of the fills that made it. */
async function averagesOfFills(rows: Rows): Promise<string[]> {
  const out: string[] = [];
  const replayed = new Map<string, PositionCost>();
  for (const t of await rows(`
    SELECT t.account_id::text, l.instrument, t.role, f.side, l.quantity::text, l.premium::text
      FROM fills f JOIN fill_legs l ON l.fill_id = f.id
      CROSS JOIN LATERAL (VALUES (f.taker_account_id, 'taker'), (f.maker_account_id, 'maker')) AS t(account_id, role)
     WHERE NOT f.reverted ORDER BY f.id`)) {
    const key = `${t.account_id} ${t.instrument}`;
    const sign = orientation(t.role, t.side);
    replayed.set(key, addTrade(replayed.get(key) ?? FLAT, { quantity: sign * BigInt(t.quantity), paid: sign * BigInt(t.premium) }));
  }
  for (const p of await rows(`SELECT account_id::text, instrument, quantity::text, avg_num::text, avg_den::text, average_price::text FROM positions`)) {
    const want = replayed.get(`${p.account_id} ${p.instrument}`) ?? FLAT;
    const average = want.quantity === 0n ? null : want.average;
    const stored = `${p.avg_num ?? 'null'}/${p.avg_den ?? 'null'} ~ ${p.average_price ?? 'null'}`;
    const expected = `${average?.n ?? 'null'}/${average?.d ?? 'null'} ~ ${roundedAverage(want) ?? 'null'}`;
    if (stored !== expected) out.push(`(f) account ${p.account_id} ${p.instrument}: stored average ${stored} != replay of fills ${expected}`);
  }
  return out;
}

export async function violations(rows: Rows, { lockUpsideBps = 10_000 }: { lockUpsideBps?: number } = {}): Promise<string[]> {
  const out: string[] = [];

  const [money] = await rows(`
    SELECT (SELECT coalesce(sum(total), 0) FROM balances)::text AS totals,
           (SELECT coalesce(sum(CASE WHEN kind = 'deposit' THEN amount ELSE -amount END), 0) FROM transfers)::text AS net`);
  if (money.totals !== money.net) out.push(`(a) sum of balances.total ${money.totals} != deposits - withdrawals ${money.net}`);

  for (const r of await rows(`SELECT instrument, sum(quantity)::text AS net FROM positions GROUP BY instrument HAVING sum(quantity) <> 0`)) {
    out.push(`(b) positions in ${r.instrument} sum to ${r.net}`);
  }

  out.push(...(await locksOfPositions(rows, lockUpsideBps)));
  for (const line of await staleLockGroups(rowsSql(rows))) out.push(`(h) ${line}`);

  for (const r of await rows(`
    WITH folded AS (
      SELECT account_id, instrument, sum(q) AS quantity FROM (
        SELECT f.taker_account_id AS account_id, l.instrument, CASE WHEN f.side = 'buy' THEN l.quantity ELSE -l.quantity END AS q
          FROM fills f JOIN fill_legs l ON l.fill_id = f.id WHERE NOT f.reverted
        UNION ALL
        SELECT f.maker_account_id, l.instrument, CASE WHEN f.side = 'buy' THEN -l.quantity ELSE l.quantity END
          FROM fills f JOIN fill_legs l ON l.fill_id = f.id WHERE NOT f.reverted
      ) x GROUP BY account_id, instrument
    )
    SELECT coalesce(p.account_id, f.account_id) AS account_id, coalesce(p.instrument, f.instrument) AS instrument,
           coalesce(p.quantity, 0)::text AS held, coalesce(f.quantity, 0)::text AS folded
      FROM positions p FULL JOIN folded f ON f.account_id = p.account_id AND f.instrument = p.instrument
     WHERE coalesce(p.quantity, 0) <> coalesce(f.quantity, 0)`)) {
    out.push(`(d) account ${r.account_id} ${r.instrument}: position ${r.held} != fold of fills ${r.folded}`);
  }

  for (const r of await rows(`
    SELECT r.id, r.state, f.id AS fill_id, f.reverted FROM rfqs r LEFT JOIN fills f ON f.rfq_id = r.id
     WHERE (r.state = 'filled') <> (f.id IS NOT NULL AND NOT f.reverted)`)) {
    out.push(`(e) rfq ${r.id} is ${r.state} with fill ${r.fill_id ?? 'none'} (reverted: ${r.reverted ?? '-'})`);
  }

  out.push(...(await averagesOfFills(rows)));

  for (const r of await rows(`
    SELECT a.id, a.open_rfqs, count(r.id)::int AS open
      FROM accounts a LEFT JOIN rfqs r ON r.account_id = a.id AND r.state IN ('pending', 'quoted', 'accepted', 'submitting')
     GROUP BY a.id, a.open_rfqs HAVING a.open_rfqs <> count(r.id)`)) {
    out.push(`(g) account ${r.id}: open_rfqs ${r.open_rfqs} != ${r.open} open RFQs`);
  }
  return out;
}

export async function expectInvariants(rows: Rows): Promise<void> {
  expect(await violations(rows)).toEqual([]);
}
