import { Client } from 'pg';
import { refreshLockGroups, repriceAsset } from '../../src/modules/ledger/collateral.sql';
import type { FigureResult } from '../lib/report';
import { median } from '../lib/stats';
import { absoluteFigure } from './measure';
import type { Scale } from './plan';
import type { HistoryOptions, Side } from './sides';
import { clientTx } from '../lib/client-sql';

/**
 * Two timed operations on the year side: a market-data update's reprice with every account of the
 * year (20,000; 400 at quick scale) holding the repriced asset (as F8, set-based seeding, the app's
 * `repriceAsset` in the update's transaction; against one UPDATE of the same balance rows), and
 * the settlement of a round with 10,000 positions (200 at quick scale) through the app's
 * POST /v1/admin/instruments/settle-expiration.
 */

const INDEXES = [150_000_000n, 300_000_000n];

async function timed(f: () => Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await f();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** Positions for accounts 2..last in `symbols` (F8's shape: short 1-5 of the first, half long one of the second, half short one of the third). */
async function seedHolders(c: Client, last: number, symbols: [string, string, string]): Promise<number[]> {
  await c.query(
    `INSERT INTO positions (account_id, instrument, quantity)
     SELECT n, p.instrument, p.quantity FROM generate_series(2, $1::bigint) n
      CROSS JOIN LATERAL (VALUES ($2, -1000000 * (1 + n % 5)), ($3, CASE WHEN n % 2 = 0 THEN 1000000 ELSE 0 END),
                                 ($4, CASE WHEN n % 2 = 1 THEN -1000000 ELSE 0 END)) AS p(instrument, quantity)
      WHERE p.quantity <> 0`,
    [last, ...symbols],
  );
  const ids = Array.from({ length: last - 1 }, (_, i) => i + 2);
  await refreshLockGroups(clientTx(c), ids); // one statement on the builder's own connection
  await c.query('ANALYZE positions, lock_groups, balances');
  return ids;
}

export async function repriceFigure(o: HistoryOptions, s: Scale, year: Side): Promise<FigureResult> {
  const round = await year.ex.listRound('HREP', 5, ['100', '150', '200']);
  const c = new Client({ connectionString: year.env.databaseUrl });
  await c.connect();
  try {
    const ids = await seedHolders(c, s.accounts, [round.symbol('150'), round.symbol('200'), round.symbol('100', 'put')]);
    // The reprice runs in the transaction this client opens (BEGIN ... COMMIT below).
    const tx = clientTx(c);
    let flip = 0;
    let changed = 0;
    const reprice = () =>
      timed(async () => {
        await c.query('BEGIN');
        await c.query(`UPDATE index_prices SET index_price = $2, updated_at = now() WHERE asset = $1`, ['HREP', INDEXES[flip++ % 2].toString()]);
        changed = (await repriceAsset(tx, 'HREP', 10_000)).changed;
        await c.query('COMMIT');
      });
    let bump = 0;
    const update = () =>
      timed(() =>
        c.query(`UPDATE balances SET locked = locked + $2, updated_at = now() WHERE account_id BETWEEN 2 AND $1`, [s.accounts, bump++ % 2 === 0 ? 1 : -1]),
      );
    for (let i = 0; i < 2; i++) {
      await reprice();
      await update();
    }
    const rounds: Array<{ legwork: number; baseline: number }> = [];
    for (let r = 0; r < o.rounds; r++) {
      const l: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < 3; i++) {
        if (r % 2 === 0) b.push(await update());
        l.push(await reprice());
        if (r % 2 === 1) b.push(await update());
      }
      rounds.push({ legwork: median(l), baseline: median(b) });
    }
    return repriceResult(o, ids.length, changed, rounds);
  } finally {
    await c.end();
  }
}

/** H-reprice from the rounds' medians (ms per reprice and per UPDATE). */
function repriceResult(o: HistoryOptions, accounts: number, changed: number, rounds: Array<{ legwork: number; baseline: number }>): FigureResult {
  const ratio = median(rounds.map((x) => x.legwork / x.baseline));
  o.log(`history: reprice of ${accounts} accounts ${median(rounds.map((x) => x.legwork)).toFixed(1)} ms (${changed} locks changed)`);
  return {
    ...absoluteFigure(
      {
        id: 'H-reprice',
        title: `market-data update repricing ${accounts.toLocaleString('en-US')} accounts on the year, ms`,
        unit: 'ms',
        target: '<= 2.0 x the UPDATE (as F8)',
        notes: [
          'BEGIN; index row UPDATE; repriceAsset (the app\u2019s one statement); COMMIT, on the year\u2019s copy, every account of the year holding the asset (F8\u2019s shape); baseline: UPDATE balances SET locked = locked \u00b1 1 over the same rows; 3 of each per round, medians',
        ],
        extra: { accounts, changed },
      },
      median(rounds.map((x) => x.legwork)),
      median(rounds.map((x) => x.baseline)),
      ratio <= 2,
      rounds,
    ),
    baselineTitle: `one UPDATE of the same ${accounts} balance rows`,
    ratio,
    ratioOf: 'reprice ms / UPDATE ms, median of per-round ratios',
  };
}

export async function settlementFigure(o: HistoryOptions, s: Scale, year: Side): Promise<FigureResult> {
  const positions = Math.round(10_000 * s.factor);
  const c = new Client({ connectionString: year.env.databaseUrl });
  await c.connect();
  const times: number[] = [];
  try {
    for (let r = 0; r < o.rounds; r++) {
      const round = await year.ex.listRound('HSET', 4 + r, ['150']);
      const call = round.symbol('150');
      await c.query(
        `INSERT INTO positions (account_id, instrument, quantity) SELECT n, $2, CASE WHEN n % 2 = 0 THEN 1000000 ELSE -1000000 END FROM generate_series(2, $1::bigint) n`,
        [positions + 1, call],
      );
      await refreshLockGroups(
        clientTx(c), // one statement on the builder's own connection
        Array.from({ length: positions }, (_, i) => i + 2),
      );
      const ms = await timed(() =>
        year.ex.admin('POST', '/v1/admin/instruments/settle-expiration', { asset: 'HSET', expiration: round.expiry, settlement_price: '160' }),
      );
      const settled = Number((await c.query(`SELECT count(*) AS n FROM positions WHERE instrument = $1 AND settled`, [call])).rows[0].n);
      if (settled !== positions) throw new Error(`settlement settled ${settled} of ${positions} positions`);
      times.push(ms);
    }
  } finally {
    await c.end();
  }
  o.log(`history: settlement of ${positions} positions: ${times.map((t) => t.toFixed(0)).join(', ')} ms`);
  return absoluteFigure(
    {
      id: 'H-settle',
      title: `settlement of a round with ${positions.toLocaleString('en-US')} positions on the year, ms`,
      unit: 'ms',
      target: 'timed (no target)',
      notes: [
        `POST /v1/admin/instruments/settle-expiration (settlement_price 160) of a one-instrument round whose ${positions} positions (half long, half short one call) were written into the year's copy; one round per bench round${s.factor < 1 ? '; 1/50 of the full 10,000 at quick scale' : ''}`,
      ],
      extra: { positions, ms: times },
    },
    median(times),
    null,
    null,
    times.map((t) => ({ legwork: t, baseline: NaN })),
  );
}
