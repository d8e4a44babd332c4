/**
 * Black-76 greeks per contract (docs/spec/design.md section 15): the same inputs as the mark
 * (black76.ts: r = 0, the index price as the forward, T in years of 365 days). Delta is `N(d1)`
 * for a call and `N(d1) - 1` for a put; vega is USDC per 1.00 of implied volatility
 * (`F * n(d1) * sqrt(T)`). Both micro-units rounded toward zero. Floats inside, bigint out.
 */
import { MICRO } from '@legwork/protocol';
import { type MarkInput, normalCdf } from './black76';

const SECONDS_PER_YEAR = 365 * 86_400;
const INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);

export interface Greeks {
  /** micro-units of delta per contract: 545649 = 0.545649 */
  delta: bigint;
  /** micro-units of USDC per 1.00 of IV per contract */
  vega: bigint;
}

/** Toward zero, to micro-units. */
const micro = (value: number): bigint => BigInt(Math.trunc(value * Number(MICRO)));

/**
 * Delta and vega of one contract. At or after expiry, with zero IV or a non-positive price, the
 * option is its intrinsic payoff: delta 1 (call) or -1 (put) in the money, 0 otherwise; vega 0.
 */
export function greeks({ index, strike, kind, iv, secondsToExpiry }: MarkInput): Greeks {
  const t = secondsToExpiry / SECONDS_PER_YEAR;
  if (!(t > 0) || iv <= 0n || index <= 0n || strike <= 0n) {
    const inTheMoney = kind === 'call' ? index > strike : index < strike;
    return { delta: inTheMoney ? (kind === 'call' ? MICRO : -MICRO) : 0n, vega: 0n };
  }
  const f = Number(index) / 1e6;
  const k = Number(strike) / 1e6;
  const sqrtT = Math.sqrt(t);
  const sd = (Number(iv) / 1e6) * sqrtT;
  const d1 = (Math.log(f / k) + (sd * sd) / 2) / sd;
  const nd1 = normalCdf(d1);
  const density = INV_SQRT_2PI * Math.exp((-d1 * d1) / 2);
  // N(d1) - 1 = -N(-d1), which keeps a deep out-of-the-money put's delta exact near zero.
  const delta = kind === 'call' ? nd1 : -normalCdf(-d1);
  return { delta: micro(delta), vega: micro(f * density * sqrtT) };
}
