import { portfolioLock } from '../../../src/modules/ledger/domain/lock';
import { Http } from '../clients';
import { Environment, type TestApp } from '../harness';
import { type Rows, appRows } from '../invariants';
import { type Round, expirationIn, listRound } from '../rfq-support';
import { M, balanceOf, feeAccountId, marketData, positionsOf } from './ledger';

/**
 * The app of the ledger e2e files (ledger.e2e-spec.ts, ledger-funding.e2e-spec.ts,
 * ledger-settlement.e2e-spec.ts), each booting its own: SOL listed twice (a round to trade, a round
 * to pause) at index 150 and IV 0.8, ETH listed with no market data.
 */
export const INDEX = 150n * M;
export const IV = 800_000n;
/** The fee and lock parameters the app runs with (its defaults). */
export const PARAMS = { takerFeeBps: 3, tradeFeeCapBps: 1250, takerFeeToleranceBps: 100, lockUpsideBps: 10_000 };
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export interface LedgerApp {
  env: Environment;
  app: TestApp;
  admin: Http;
  rows: Rows;
  sol: Round;
  paused: Round;
  eth: Round;
  feeId: number;
}

export async function startLedgerApp(): Promise<LedgerApp> {
  const env = await Environment.create({ MARKET_DATA_MAX_AGE_SECONDS: '3600', SWEEP_INTERVAL_MS: '500' });
  const app = await env.start();
  const admin = new Http(app.url).admin();
  const rows = appRows(app);
  const sol = await listRound(app, 'SOL', expirationIn(10));
  const paused = await listRound(app, 'SOL', expirationIn(12));
  const eth = await listRound(app, 'ETH', expirationIn(10));
  await marketData(app, 'SOL', '150', '0.8');
  return { env, app, admin, rows, sol, paused, eth, feeId: feeAccountId(app) };
}

/** The lock of `positions` ([strike, kind, quantity]) on `round` at `index`. */
export function lockOn(round: Round, positions: Array<[string, 'call' | 'put', bigint]>, index = INDEX): bigint {
  return portfolioLock(
    positions.map(([strike, kind, quantity]) => ({ asset: round.asset, expiry: round.expiry, strike: BigInt(strike) * M, kind, quantity })),
    { indexByAsset: { [round.asset]: index }, lockUpsideBps: 10_000 },
  );
}

/** Each account's balance and positions (open and settled), to compare before and after. */
export async function snapshotOf(app: TestApp, ...accounts: number[]) {
  return Promise.all(accounts.map(async (id) => ({ balance: await balanceOf(app, id), positions: await positionsOf(app, id, 'all') })));
}
