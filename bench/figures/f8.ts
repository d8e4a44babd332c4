import { Client } from 'pg';
import { Database } from '../../src/common/database/database';
import { refreshLockGroups, repriceAsset } from '../../src/modules/ledger/collateral.sql';
import type { FigureResult } from '../lib/report';
import { median } from '../lib/stats';
import { type Context, alternate } from './context';
import { clientTx } from '../lib/client-sql';

/** Accounts holding positions in the repriced asset. */
const ACCOUNTS = 10_000;
const ASSET = 'FEIGHT';
/** Two index prices the updates alternate between: every account's lock changes at each update. */
const INDEXES = [150_000_000n, 300_000_000n];

/**
 * F8: live collateral (docs/spec/design.md section 12). The reprice that follows one market-data update,
 * as the app runs it inside the update's transaction (the index row update, then `repriceAsset`:
 * one statement computing every lock on the asset from the group summaries and writing it), with 10,000 accounts holding
 * positions in the asset (each short 1 to 5 calls 150; half of them also long 1 call 200, the
 * other half also short 1 put 100: one or two groups of two strikes), against one set-based `UPDATE` of the same 10,000 balance rows, in the same run on the
 * same database. Measured in the bench process over one pg connection each; medians of rounds.
 */
export async function runF8(ctx: Context): Promise<FigureResult[]> {
  await migrate(ctx);

  const client = new Client({ connectionString: ctx.env.databaseUrl });
  await client.connect();
  try {
    const { first, last } = await seed(client);
    // The reprice runs in the transaction this client opens (BEGIN ... COMMIT below).
    const tx = clientTx(client);
    let flip = 0;
    const reprice = async () => {
      const index = INDEXES[flip++ % 2];
      const t0 = process.hrtime.bigint();
      await client.query('BEGIN');
      await client.query(`UPDATE index_prices SET index_price = $2, updated_at = now() WHERE asset = $1`, [ASSET, index.toString()]);
      const done = await repriceAsset(tx, ASSET, 10_000);
      await client.query('COMMIT');
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (done.changed !== ACCOUNTS) throw new Error(`reprice changed ${done.changed} locks: expected ${ACCOUNTS}`);
      return ms;
    };
    let bump = 0;
    const update = async () => {
      const t0 = process.hrtime.bigint();
      const res = await client.query(`UPDATE balances SET locked = locked + $3, updated_at = now() WHERE account_id BETWEEN $1 AND $2`, [
        first,
        last,
        (bump++ % 2 === 0 ? 1 : -1).toString(),
      ]);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (res.rowCount !== ACCOUNTS) throw new Error(`the baseline updated ${res.rowCount} rows`);
      return ms;
    };
    // Warm-up: caches, plans, hint bits.
    for (let i = 0; i < 2; i++) {
      await reprice();
      await update();
    }
    const perRound = ctx.quick ? 3 : 5;
    const rounds: Array<{ legwork: number; baseline: number }> = [];
    for (let r = 0; r < ctx.rounds; r++) {
      const { baseline, legwork } = await alternate(
        r,
        async () => median(await times(perRound, update)),
        async () => median(await times(perRound, reprice)),
      );
      rounds.push({ legwork, baseline });
      ctx.log(`F8 round ${r + 1}: reprice ${legwork.toFixed(1)} ms vs UPDATE ${baseline.toFixed(1)} ms`);
    }
    return [f8Figure(rounds, perRound)];
  } finally {
    await client.end();
  }
}

/** The schema: the app's migrations (the bench database may be fresh when F8 runs alone). */
async function migrate(ctx: Context): Promise<void> {
  const migrator = Database.dataSource(ctx.env.databaseUrl, 1);
  await migrator.initialize();
  await migrator.runMigrations({ transaction: 'each' });
  await migrator.destroy();
}

function f8Figure(rounds: Array<{ legwork: number; baseline: number }>, perRound: number): FigureResult {
  const ratio = median(rounds.map((x) => x.legwork / x.baseline));
  return {
    id: 'F8',
    title: `reprice after one index update, ${ACCOUNTS.toLocaleString('en-US')} accounts in the asset, ms`,
    unit: 'ms',
    baselineTitle: `one set-based UPDATE of the same ${ACCOUNTS.toLocaleString('en-US')} balance rows`,
    status: 'measured',
    legwork: median(rounds.map((x) => x.legwork)),
    baseline: median(rounds.map((x) => x.baseline)),
    ratioOf: 'reprice ms / UPDATE ms, median of per-round ratios (lower is better)',
    ratio,
    target: '<= 2.0',
    met: ratio <= 2,
    rounds,
    notes: [
      `Legwork: BEGIN; index row UPDATE; repriceAsset (one statement: locks of every holder computed and written); COMMIT. Baseline: UPDATE balances SET locked = locked ± 1 over the same rows (autocommit). ${perRound} operations per side per round, median; every lock changes at every reprice (index alternates 150 / 300).`,
    ],
  };
}

async function times(n: number, op: () => Promise<number>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await op());
  return out;
}

/** 10,000 accounts with balance rows and positions in FEIGHT (set-based inserts); the first and last account ids. */
async function seed(client: Client): Promise<{ first: number; last: number }> {
  const expiry = 2_000_000_000;
  await client.query(`INSERT INTO expirations (asset, expiry, utc_date) VALUES ($1, $2, '2033-05-18') ON CONFLICT DO NOTHING`, [ASSET, expiry]);
  const instruments = [
    ['FEIGHT-C150', 150_000_000, 'call'],
    ['FEIGHT-C200', 200_000_000, 'call'],
    ['FEIGHT-P100', 100_000_000, 'put'],
  ] as const;
  for (const [symbol, strike, kind] of instruments) {
    await client.query(`INSERT INTO instruments (symbol, asset, strike, kind, expiry) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`, [
      symbol,
      ASSET,
      strike,
      kind,
      expiry,
    ]);
  }
  await client.query(
    `INSERT INTO index_prices (asset, index_price, updated_at) VALUES ($1, $2, now()) ON CONFLICT (asset) DO UPDATE SET index_price = EXCLUDED.index_price`,
    [ASSET, INDEXES[0].toString()],
  );
  const ids = await client.query(`INSERT INTO accounts (wallet) SELECT 'f8-' || g || '-' || md5(random()::text) FROM generate_series(1, $1) g RETURNING id`, [
    ACCOUNTS,
  ]);
  const list = ids.rows.map((r) => Number(r.id)).sort((a, b) => a - b);
  if (list[list.length - 1] - list[0] !== ACCOUNTS - 1) throw new Error('F8 account ids are not contiguous');
  await client.query(`INSERT INTO balances (account_id, total, locked) SELECT unnest($1::bigint[]), 100000000000, 0`, [list.map(String)]);
  await client.query(
    `INSERT INTO positions (account_id, instrument, quantity)
     SELECT id, p.instrument, p.quantity
       FROM unnest($1::bigint[]) WITH ORDINALITY AS a(id, n)
       CROSS JOIN LATERAL (VALUES
         ('FEIGHT-C150', -1000000 * (1 + n % 5)),
         ('FEIGHT-C200', CASE WHEN n % 2 = 0 AND n % 5 <> 0 THEN 1000000 ELSE 0 END),
         ('FEIGHT-P100', CASE WHEN n % 2 = 1 THEN -1000000 ELSE 0 END)) AS p(instrument, quantity)
      WHERE p.quantity <> 0`,
    [list.map(String)],
  );
  // The group summaries, as the fills that made these positions would have left them.
  await refreshLockGroups(clientTx(client), list); // one statement on the figure's own connection
  await client.query('ANALYZE accounts, balances, positions, instruments, index_prices, lock_groups');
  return { first: list[0], last: list[list.length - 1] };
}
