/**
 * Mark price (docs/spec/design.md section 6): Black-76 with r = 0 on the index price as the forward,
 * T = seconds / (365 * 86400), rounded down to micro-units. Floats inside, bigint out.
 */
import { MICRO } from '@legwork/protocol';
import type { OptionKind } from '../../instruments/domain/symbol';

const SECONDS_PER_YEAR = 365 * 86_400;

export interface MarkInput {
  /** micro-units */
  index: bigint;
  /** micro-units */
  strike: bigint;
  kind: OptionKind;
  /** micro-units of volatility: 800000 = 0.8 = 80 % */
  iv: bigint;
  secondsToExpiry: number;
}

/**
 * Standard normal CDF, Hart (1968) algorithm 5666 as given by G. West, "Better approximations to
 * cumulative normal functions" (2005): double precision (absolute error ~1e-15) on the whole line.
 */
export function normalCdf(x: number): number {
  const a = Math.abs(x);
  let tail: number;
  if (a > 37) {
    tail = 0;
  } else {
    const e = Math.exp((-a * a) / 2);
    if (a < 7.07106781186547) {
      let n = 3.52624965998911e-2 * a + 0.700383064443688;
      n = n * a + 6.37396220353165;
      n = n * a + 33.912866078383;
      n = n * a + 112.079291497871;
      n = n * a + 221.213596169931;
      n = n * a + 220.206867912376;
      let d = 8.83883476483184e-2 * a + 1.75566716318264;
      d = d * a + 16.064177579207;
      d = d * a + 86.7807322029461;
      d = d * a + 296.564248779674;
      d = d * a + 637.333633378831;
      d = d * a + 793.826512519948;
      d = d * a + 440.413735824752;
      tail = (e * n) / d;
    } else {
      let c = a + 0.65;
      c = a + 4 / c;
      c = a + 3 / c;
      c = a + 2 / c;
      c = a + 1 / c;
      tail = e / c / 2.506628274631;
    }
  }
  return x > 0 ? 1 - tail : tail;
}

/** max(S - K, 0) for a call, max(K - S, 0) for a put; exact. */
export function intrinsic(kind: OptionKind, underlying: bigint, strike: bigint): bigint {
  const v = kind === 'call' ? underlying - strike : strike - underlying;
  return v > 0n ? v : 0n;
}

/** Black-76 mark in micro-units, rounded down; intrinsic value at or after expiry or with zero IV. */
export function markPrice({ index, strike, kind, iv, secondsToExpiry }: MarkInput): bigint {
  const floor = intrinsic(kind, index, strike);
  const t = secondsToExpiry / SECONDS_PER_YEAR;
  if (!(t > 0) || iv <= 0n || index <= 0n || strike <= 0n) return floor;

  const f = Number(index) / 1e6;
  const k = Number(strike) / 1e6;
  const sd = (Number(iv) / 1e6) * Math.sqrt(t);
  const d1 = (Math.log(f / k) + (sd * sd) / 2) / sd;
  const d2 = d1 - sd;
  const price = kind === 'call' ? f * normalCdf(d1) - k * normalCdf(d2) : k * normalCdf(-d2) - f * normalCdf(-d1);

  // The exact price lies in [intrinsic, forward] (call) or [intrinsic, strike] (put); clamping keeps
  // float noise from putting a deep in-the-money mark one micro-unit under its intrinsic value.
  const ceiling = kind === 'call' ? index : strike;
  const micro = BigInt(Math.floor(price * Number(MICRO)));
  return micro < floor ? floor : micro > ceiling ? ceiling : micro;
}
