/**
 * The sandbox's market, set up as an admin would (the calls of `npm run demo`): SOL and ETH
 * options at two expiries, index prices that move (a random walk re-posted every 2 s, so marks
 * and the makers' quotes move with them and never go stale), and funded accounts.
 */
import { randomUUID } from 'node:crypto';
import { type Keypair, type LegworkHttp, MICRO, type Role, formatRfq } from '@legwork/sdk';
import { type LogLine, generateKeypair, nowSeconds, reason, utcDate } from '../common';

const DAY = 86_400;
/** Each asset's index starts here and walks. */
const ASSETS: ReadonlyArray<{ asset: string; spot: bigint }> = [
  { asset: 'SOL', spot: 150n * MICRO },
  { asset: 'ETH', spot: 3000n * MICRO },
];
/** Expiries 7 and 28 days out at 08:00 UTC (a rerun on the same DATA_DIR and day reuses them). */
const EXPIRIES_IN_DAYS = [7, 28];
const FEED_EVERY_MS = 2_000;
/** Largest move of one step, in basis points of the index. */
const STEP_BPS = 15n;

export interface FundedAccount {
  accountId: number;
  keypair: Keypair;
  seedHex: string;
}

/** A fresh wallet with an account of these roles holding `usdc`. */
export async function fundedAccount(admin: LegworkHttp, roles: Role[], usdc: string): Promise<FundedAccount> {
  const { keypair, seedHex } = generateKeypair();
  const { account_id } = await admin.createAccount({ wallet: keypair.wallet, roles });
  await admin.deposit(account_id, { amount: usdc, reference: `sandbox-${randomUUID()}` });
  return { accountId: account_id, keypair, seedHex };
}

/** Lists every asset's expiries around its starting index; the expirations, first the nearest. */
export async function listInstruments(admin: LegworkHttp, log: LogLine): Promise<number[]> {
  const expirations = EXPIRIES_IN_DAYS.map((days) => (Math.floor(nowSeconds() / DAY) + days) * DAY + 8 * 3600);
  const rounds = ASSETS.flatMap(({ asset, spot }) => expirations.map((expiration) => ({ asset, spot, expiration })));
  await Promise.all(
    rounds.map(async ({ asset, spot, expiration }) => {
      const listed = await admin.createInstruments({ asset, expiration, spot_price: formatRfq(spot) });
      log(`listed ${asset} options expiring ${utcDate(expiration)} around ${formatRfq(spot)} (${listed.created} new)`);
    }),
  );
  return expirations;
}

/** One step of the walk: at most ±STEP_BPS of the price, to the cent. */
function step(price: bigint): bigint {
  const bps = BigInt(Math.floor(Math.random() * Number(2n * STEP_BPS + 1n))) - STEP_BPS;
  const next = price + (price * bps) / 10_000n;
  return (next / 10_000n) * 10_000n;
}

/** Posts every asset's index (and a slowly moving flat IV) now, then every 2 s until stopped. */
export async function startFeed(admin: LegworkHttp, log: LogLine): Promise<{ stop: () => void; index: (asset: string) => bigint }> {
  const prices = new Map(ASSETS.map(({ asset, spot }) => [asset, spot]));
  let ivBps = 8_000n;
  const post = async () => {
    for (const [asset, price] of prices) await admin.marketData({ asset, index_price: formatRfq(price), iv: formatRfq(ivBps * 100n) });
  };
  await post();
  log(`market data: ${[...prices].map(([a, p]) => `${a} ${formatRfq(p)}`).join(', ')}, iv ${formatRfq(ivBps * 100n)}; moving every ${FEED_EVERY_MS / 1000} s`);
  let failures = 0;
  const timer = setInterval(() => {
    for (const [asset, price] of prices) prices.set(asset, step(price));
    ivBps = ivBps + BigInt(Math.floor(Math.random() * 21) - 10) * 10n;
    if (ivBps < 6_000n || ivBps > 10_000n) ivBps = 8_000n;
    post().then(
      () => (failures = 0),
      (error: unknown) => {
        if (++failures === 1) log(`market data post failed: ${reason(error)}`);
      },
    );
  }, FEED_EVERY_MS);
  return { stop: () => clearInterval(timer), index: (asset) => prices.get(asset)! };
}
