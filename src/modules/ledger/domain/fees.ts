/**
 * Taker fees (docs/spec/design.md section 6). Per leg, q = |quantity|:
 *   fee = min(floor(q * index * takerFeeBps / 10000), floor(q * mark * tradeFeeCapBps / 10000))
 * q, index and mark are micro-units, so each product is in micro^2: it is divided by MICRO once,
 * together with the 10000, and floored exactly once. Makers pay no fee.
 */
import { MICRO, ceilDiv, floorDiv } from '@legwork/protocol';

/** Basis points, as configured (an integer number or a bigint). */
export type Bps = number | bigint;

export interface FeeLeg {
  /** signed micro-contracts; only |quantity| matters */
  quantity: bigint;
  /** index price, micro-units */
  index: bigint;
  /** mark price, micro-units */
  mark: bigint;
}

export interface FeeParams {
  takerFeeBps: Bps;
  tradeFeeCapBps: Bps;
}

const BPS = 10_000n;

export function legFee({ quantity, index, mark, takerFeeBps, tradeFeeCapBps }: FeeLeg & FeeParams): bigint {
  const q = quantity < 0n ? -quantity : quantity;
  const onNotional = floorDiv(q * index * BigInt(takerFeeBps), BPS * MICRO);
  const cap = floorDiv(q * mark * BigInt(tradeFeeCapBps), BPS * MICRO);
  return onNotional < cap ? onNotional : cap;
}

export function packageFee(legs: readonly FeeLeg[], params: FeeParams): bigint {
  return legs.reduce((sum, leg) => sum + legFee({ ...leg, ...params }), 0n);
}

/** ceil(fee * (10000 + toleranceBps) / 10000) */
export function maxFee(fee: bigint, toleranceBps: Bps): bigint {
  return ceilDiv(fee * (BPS + BigInt(toleranceBps)), BPS);
}
