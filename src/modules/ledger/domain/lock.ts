/**
 * Portfolio lock (docs/spec/design.md section 6): the sum over (asset, expiry) groups of open positions of
 * max(0, -min payoff(S)), payoff(S) = sum of q_i * intrinsic_i(S), for S in
 * {0, every strike of the group, U = max(index, highest strike) * (1 + lockUpsideBps / 10000)}.
 *
 * Rounding: the payoff is evaluated exactly (prices scaled by 10000 so U is a whole number, products
 * q * intrinsic kept in micro^2 units) and converted to micro-units once per group, rounding UP, so a
 * lock is never understated. An asset with no index price stresses up to its highest strike * (1 + bps).
 */
import { MICRO, ceilDiv } from '@legwork/protocol';
import type { OptionKind } from '../../instruments/domain/symbol';
import { intrinsic } from '../../market-data/domain/black76';
import type { Bps } from './fees';

export interface LockPosition {
  asset: string;
  /** unix seconds */
  expiry: number;
  /** micro-units */
  strike: bigint;
  kind: OptionKind;
  /** signed micro-contracts, long positive */
  quantity: bigint;
}

export type IndexByAsset = ReadonlyMap<string, bigint> | Readonly<Record<string, bigint | undefined>>;

export interface LockParams {
  indexByAsset: IndexByAsset;
  lockUpsideBps: Bps;
}

const BPS = 10_000n;

function isIndexMap(indexByAsset: IndexByAsset): indexByAsset is ReadonlyMap<string, bigint> {
  return indexByAsset instanceof Map;
}

export function indexOf(indexByAsset: IndexByAsset, asset: string): bigint | undefined {
  return isIndexMap(indexByAsset) ? indexByAsset.get(asset) : indexByAsset[asset];
}

/** Lock of one (asset, expiry) group, micro-units, rounded up. */
export function groupLock(positions: readonly Pick<LockPosition, 'strike' | 'kind' | 'quantity'>[], index: bigint | undefined, lockUpsideBps: Bps): bigint {
  const open = positions.filter((p) => p.quantity !== 0n);
  if (open.length === 0) return 0n;
  const highest = open.reduce((max, p) => (p.strike > max ? p.strike : max), 0n);
  const top = index !== undefined && index > highest ? index : highest;
  // Stress points in micro-units * 10000 (U exact).
  const points = [0n, ...open.map((p) => p.strike * BPS), top * (BPS + BigInt(lockUpsideBps))];
  let worst = 0n;
  for (const s of points) {
    const payoff = open.reduce((sum, p) => sum + p.quantity * intrinsic(p.kind, s, p.strike * BPS), 0n);
    if (payoff < worst) worst = payoff;
  }
  return ceilDiv(-worst, MICRO * BPS);
}

/** Net positions: one entry per (asset, expiry, strike, kind), zero quantities dropped. */
export function netPositions(positions: readonly LockPosition[]): LockPosition[] {
  const net = new Map<string, LockPosition>();
  for (const p of positions) {
    const key = `${p.asset}\u0000${p.expiry}\u0000${p.strike}\u0000${p.kind}`;
    const held = net.get(key);
    net.set(key, held ? { ...held, quantity: held.quantity + p.quantity } : { ...p });
  }
  return [...net.values()].filter((p) => p.quantity !== 0n);
}

/**
 * Lock of a whole account: the sum of its (asset, expiry) group locks. Entries of one instrument
 * are netted first, so a position that a fill closes (or a revert undoes) does not leave its
 * strike in the group's stress points.
 */
export function portfolioLock(positions: readonly LockPosition[], { indexByAsset, lockUpsideBps }: LockParams): bigint {
  const groups = new Map<string, LockPosition[]>();
  for (const p of netPositions(positions)) {
    const key = `${p.asset}\u0000${p.expiry}`;
    const group = groups.get(key);
    if (group) group.push(p);
    else groups.set(key, [p]);
  }
  let total = 0n;
  for (const group of groups.values()) total += groupLock(group, indexOf(indexByAsset, group[0].asset), lockUpsideBps);
  return total;
}
