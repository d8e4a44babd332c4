/**
 * The lock formula in SQL (collateral.sql.ts, used by the reprice of every market-data update)
 * equals lock.ts's on the real database: on the contract's vectors (vectors/risk.json `locks`)
 * and on random portfolios (several assets, one without an index row, several expiries, odd
 * strikes and quantities down to one micro-unit, large sizes, several LOCK_UPSIDE_BPS), seeded.
 * Rows are written straight into the tables (accounts, expirations, instruments, positions,
 * index_prices) of a migrated database.
 */
import { randomBytes } from 'node:crypto';
import { parseRfqSigned } from '@legwork/protocol';
import { Database } from '../../src/common/database/database';
import { locksOf } from '../../src/modules/ledger/collateral.sql';
import { type LockPosition, portfolioLock } from '../../src/modules/ledger/domain/lock';
import { loadVector } from '../vectors';
import { Environment, type TestApp } from './harness';
import { prng } from './support/prng';

const SEED = Number(process.env.LOCK_SQL_SEED ?? 7);

let env: Environment;
let app: TestApp;
let sql: (text: string, params?: unknown[]) => Promise<any[]>;
let expiryBase = 1_900_000_000;
const instrumentOf = new Map<string, string>();

beforeAll(async () => {
  env = await Environment.create();
  app = await env.start();
  const db = app.app.get(Database).dataSource;
  sql = (text, params) => db.query(text, params);
});
afterAll(async () => {
  await app?.close();
  await env?.destroy();
});

async function account(): Promise<number> {
  const [row] = await sql(`INSERT INTO accounts (wallet) VALUES ($1) RETURNING id`, [`lock-sql-${randomBytes(12).toString('hex')}`]);
  return Number(row.id);
}

async function instrument(p: Omit<LockPosition, 'quantity'>): Promise<string> {
  const key = `${p.asset} ${p.expiry} ${p.strike} ${p.kind}`;
  const known = instrumentOf.get(key);
  if (known) return known;
  const day = new Date(p.expiry * 1000).toISOString().slice(0, 10);
  await sql(`INSERT INTO expirations (asset, expiry, utc_date) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, [p.asset, p.expiry, day]);
  const symbol = `${p.asset}-${p.expiry}-${p.strike}-${p.kind}`;
  await sql(`INSERT INTO instruments (symbol, asset, strike, kind, expiry) VALUES ($1, $2, $3, $4, $5)`, [
    symbol,
    p.asset,
    p.strike.toString(),
    p.kind,
    p.expiry,
  ]);
  instrumentOf.set(key, symbol);
  return symbol;
}

async function hold(accountId: number, positions: readonly LockPosition[]): Promise<void> {
  for (const p of positions) {
    await sql(`INSERT INTO positions (account_id, instrument, quantity) VALUES ($1, $2, $3)`, [accountId, await instrument(p), p.quantity.toString()]);
  }
}

async function setIndex(asset: string, price: bigint): Promise<void> {
  await sql(
    `INSERT INTO index_prices (asset, index_price, updated_at) VALUES ($1, $2, now()) ON CONFLICT (asset) DO UPDATE SET index_price = EXCLUDED.index_price`,
    [asset, price.toString()],
  );
}

describe('Lock in SQL = lock.ts: the vectors and the column bound', () => {
  it('agrees with the vectors of vectors/risk.json', async () => {
    const vector = loadVector('risk.json');
    for (const [n, v] of (vector.locks as any[]).entries()) {
      // One asset per vector (its own index), so the vectors do not share a group.
      const asset = `V${n}`;
      const expiry = expiryBase;
      await setIndex(asset, parseRfqSigned(v.index));
      const positions: LockPosition[] = v.positions.map((p: any) => ({
        asset,
        expiry,
        strike: parseRfqSigned(p.strike),
        kind: p.kind,
        quantity: parseRfqSigned(p.qty),
      }));
      const id = await account();
      await hold(id, positions);
      const [fromSql] = (await locksOf(app.app.get(Database), [id], v.lock_upside_bps)).values();
      expect([v.name, fromSql]).toEqual([v.name, parseRfqSigned(v.lock)]);
      expect([v.name, portfolioLock(positions, { indexByAsset: { [asset]: parseRfqSigned(v.index) }, lockUpsideBps: v.lock_upside_bps })]).toEqual([
        v.name,
        parseRfqSigned(v.lock),
      ]);
    }
  });

  it('a lock beyond the bigint column is written as its maximum (the update of everyone else does not fail)', async () => {
    await setIndex('HUGE', 1_000_000_000_000_000n);
    const id = await account();
    await hold(id, [{ asset: 'HUGE', expiry: expiryBase, strike: 1n, kind: 'call', quantity: -9_000_000_000_000_000n }]);
    expect(await locksOf(app.app.get(Database), [id], 10_000)).toEqual(new Map([[id, 9_223_372_036_854_775_807n]]));
  });
});

describe('Lock in SQL = lock.ts: random portfolios', () => {
  it(`agrees with lock.ts on 300 random portfolios (seed ${SEED})`, async () => {
    const random = prng(SEED);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    const assets = ['RA', 'RB', 'RC']; // RC has no index row: it stresses to its highest strike
    const index = new Map<string, bigint>([
      ['RA', 123_456_789n],
      ['RB', 20_000_000_001n],
    ]);
    for (const [asset, price] of index) await setIndex(asset, price);
    expiryBase += 86_400;
    const expiries = [expiryBase, expiryBase + 86_400];
    const strikes = [1n, 99_999_999n, 100_000_000n, 123_456_789n, 150_000_001n, 30_000_000_000n];
    const portfolios: Array<{ id: number; positions: LockPosition[] }> = [];
    for (let n = 0; n < 300; n++) {
      const id = await account();
      const seen = new Set<string>();
      const positions: LockPosition[] = [];
      const count = 1 + Math.floor(random() * 6);
      for (let i = 0; i < count; i++) {
        const p = { asset: pick(assets), expiry: pick(expiries), strike: pick(strikes), kind: pick(['call', 'put'] as const) };
        const key = `${p.asset} ${p.expiry} ${p.strike} ${p.kind}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const size = random() < 0.2 ? BigInt(1 + Math.floor(random() * 3)) : BigInt(Math.floor(random() * 5_000_000_000)) * (random() < 0.1 ? 1_000n : 1n) + 1n;
        positions.push({ ...p, quantity: random() < 0.55 ? -size : size });
      }
      await hold(id, positions);
      portfolios.push({ id, positions });
    }
    const db = app.app.get(Database);
    for (const bps of [10_000, 0, 2_500, 123]) {
      const fromSql = await locksOf(
        db,
        portfolios.map((p) => p.id),
        bps,
      );
      const mismatches = portfolios
        .map((p) => ({ id: p.id, sql: fromSql.get(p.id), ts: portfolioLock(p.positions, { indexByAsset: index, lockUpsideBps: bps }) }))
        .filter((x) => x.sql !== x.ts);
      expect([bps, mismatches]).toEqual([bps, []]);
      // Not all zero: the portfolios do lock.
      expect(portfolios.filter((p) => fromSql.get(p.id)! > 0n).length).toBeGreaterThan(100);
    }
  });
});
