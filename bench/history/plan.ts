import { createHash } from 'node:crypto';
import { encodeWallet, formatRfq, publicKeyFromSeed } from '@legwork/protocol';
import { formatSymbol } from '../../src/modules/instruments/domain/symbol';

/**
 * The shape of the synthetic year (`npm run bench -- --history`): how many of each row, which
 * account ids play which part, the expirations and their instruments. Everything is a pure
 * function of the scale, so the generator and the figures agree without reading the database.
 */
export interface Scale {
  name: 'full' | 'quick';
  /** 1 or 1/50. */
  factor: number;
  accounts: number;
  makers: number;
  hotTakers: number;
  filled: number;
  unfilled: number;
  accountEvents: number;
  assets: number;
  settledPerAsset: number;
  openPerAsset: number;
  strikes: number;
  /** How deep the deep /query/rfq-fills page is (100,000 fills at full scale). */
  deepFills: number;
}

export function scaleOf(quick: boolean): Scale {
  const factor = quick ? 1 / 50 : 1;
  const n = (x: number) => Math.round(x * factor);
  return {
    name: quick ? 'quick' : 'full',
    factor,
    accounts: n(20_000),
    makers: quick ? 10 : 100,
    hotTakers: quick ? 5 : 20,
    filled: n(1_000_000),
    unfilled: n(3_000_000),
    accountEvents: n(5_000_000),
    assets: 5,
    // 490 settled + 10 open at full scale; 10 + 5 at 1/50.
    settledPerAsset: quick ? 2 : 98,
    openPerAsset: quick ? 1 : 2,
    strikes: 25,
    deepFills: n(100_000),
  };
}

export const DAY = 86_400;
/** The fee account (the app's, wallet of 32 zero bytes) is always account 1. */
export const FEE_ACCOUNT = 1;
/** The exchange's signing seed of every bench server (bench/lib/env.ts, EXCHANGE_SIGNING_KEY). */
export const EXCHANGE_SEED = Buffer.from('5e'.repeat(32), 'hex');

/** Account ids: 1 the fee account, then the makers, then the hot takers, then every other taker. */
export const makerId = (i: number) => 2 + i;
export const hotTakerId = (s: Scale, i: number) => 2 + s.makers + i;
export const firstPlainTaker = (s: Scale) => 2 + s.makers + s.hotTakers;

/** The seed of account `id` (deterministic: the figures sign in as the year's accounts). */
export function accountSeed(id: number): Buffer {
  return createHash('sha256').update(`legwork-bench-history-${id}`).digest();
}

export interface Account {
  id: number;
  wallet: string;
  publicKey: Uint8Array;
  roles: string[];
}

export function accounts(s: Scale): Account[] {
  const out: Account[] = [];
  for (let id = 2; id <= s.accounts; id++) {
    const publicKey = publicKeyFromSeed(accountSeed(id));
    out.push({ id, wallet: encodeWallet(publicKey), publicKey, roles: id < 2 + s.makers ? ['quoter'] : ['taker'] });
  }
  return out;
}

export interface Expiration {
  asset: string;
  assetIndex: number;
  expiry: number;
  settled: boolean;
  /** The index price the round's strikes are around (micro-units). */
  spot: bigint;
}

export interface YearInstrument {
  symbol: string;
  asset: string;
  expiry: number;
  strike: bigint;
  kind: 'call' | 'put';
}

const ASSETS: Array<[string, bigint]> = [
  ['YBTC', 60_000n],
  ['YETH', 3_000n],
  ['YSOL', 150n],
  ['YAVAX', 40n],
  ['YLINK', 20n],
];

/** `now` rounded down to the day, so that a rebuild on another day keeps the same shape. */
export function today(nowSeconds = Math.floor(Date.now() / 1000)): number {
  return Math.floor(nowSeconds / DAY) * DAY;
}

/** Per asset: settled rounds at 08:00 UTC spread over the past year, open ones in the next weeks. */
export function expirations(s: Scale, day0: number): Expiration[] {
  const out: Expiration[] = [];
  ASSETS.slice(0, s.assets).forEach(([asset, spot], a) => {
    for (let k = 0; k < s.settledPerAsset; k++) {
      const days = 365 - Math.floor((k * 360) / s.settledPerAsset) - a;
      out.push({ asset, assetIndex: a, expiry: day0 - days * DAY + 8 * 3600, settled: true, spot: spot * 1_000_000n });
    }
    for (let k = 0; k < s.openPerAsset; k++)
      out.push({ asset, assetIndex: a, expiry: day0 + (7 + 7 * k + a) * DAY + 8 * 3600, settled: false, spot: spot * 1_000_000n });
  });
  return out.sort((x, y) => x.expiry - y.expiry);
}

/** 25 strikes from 50% to 146% of the spot, calls and puts: 50 instruments a round. */
export function instruments(s: Scale, e: Expiration): YearInstrument[] {
  const out: YearInstrument[] = [];
  for (let k = 0; k < s.strikes; k++) {
    const strike = (e.spot * BigInt(50 + 4 * k)) / 100n;
    for (const kind of ['call', 'put'] as const)
      out.push({ symbol: formatSymbol({ asset: e.asset, expiry: e.expiry, strike, kind }), asset: e.asset, expiry: e.expiry, strike, kind });
  }
  return out;
}

/** The settlement price of a settled round: the spot moved by a few percent, by round. */
export function settlementPrice(e: Expiration): bigint {
  return (e.spot * BigInt(90 + (e.expiry % 21))) / 100n;
}

/** A small deterministic PRNG (mulberry32): the same year at every build. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const decimal = (micro: bigint) => formatRfq(micro);
