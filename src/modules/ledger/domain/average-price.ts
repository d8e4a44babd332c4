/**
 * Average price of an RFQ position (design.md section 8 names the field; its meaning is decided
 * here, see docs/ledger.md).
 *
 * 1. A package trades at one premium. Each leg's share of it (`allocatePremium`) is the leg's mark
 *    value at the fill, `q_i * mark_i`, plus the package's difference to its mark value,
 *    `premium - Σ q_j * mark_j`, spread over the legs in proportion to `|q_i * mark_i|` (to
 *    `|q_i|` when every mark is zero). The shares are in micro-USDC, sum exactly to the premium
 *    (largest remainders take the leftover micro-units) and keep the taker-buy orientation: a leg's
 *    trade price per contract is `share / q`, the same for both counterparties.
 * 2. The average price of a position is its average cost over the fills that made it, in fill
 *    order (`averagePrice`): a trade in the position's direction averages in; one against it
 *    reduces the position at the average it had; one that flips it starts the new position at its
 *    own price. Reverted fills are left out, so a revert recomputes the average exactly.
 *
 * Prices are micro-USDC per whole contract; the result is rounded half away from zero to 10^-6.
 */
import { MICRO, floorDiv } from '../../../common/decimal/decimal';

const abs = (x: bigint) => (x < 0n ? -x : x);

export interface PricedLeg {
  /** signed micro-contracts, taker-buy orientation */
  quantity: bigint;
  /** mark price at the fill, micro-USDC */
  mark: bigint;
}

/** Each leg's share of `premium` (micro-USDC, taker-buy orientation); the shares sum to `premium`. */
export function allocatePremium(legs: readonly PricedLeg[], premium: bigint): bigint[] {
  if (legs.length === 0) throw new RangeError('a package has at least one leg');
  // Work in micro^2: value_i = q_i * mark_i exactly.
  const values = legs.map((l) => l.quantity * l.mark);
  let weights = values.map(abs);
  if (weights.every((w) => w === 0n)) weights = legs.map((l) => abs(l.quantity));
  const weightSum = weights.reduce((s, w) => s + w, 0n);
  const residual = premium * MICRO - values.reduce((s, v) => s + v, 0n);
  // share_i = (value_i * W + residual * w_i) / (W * MICRO), exactly; the numerators sum to premium * W * MICRO.
  const den = weightSum * MICRO;
  const parts = values.map((v, i) => {
    const num = v * weightSum + residual * weights[i];
    const floor = floorDiv(num, den);
    return { i, floor, remainder: num - floor * den };
  });
  let left = premium - parts.reduce((s, p) => s + p.floor, 0n);
  const order = [...parts].sort((a, b) => (a.remainder === b.remainder ? a.i - b.i : a.remainder > b.remainder ? -1 : 1));
  for (const p of order) {
    if (left <= 0n) break;
    p.floor += 1n;
    left -= 1n;
  }
  return parts.map((p) => p.floor);
}

/** An exact rational, denominator positive. */
interface Ratio {
  n: bigint;
  d: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  a = abs(a);
  b = abs(b);
  while (b) [a, b] = [b, a % b];
  return a || 1n;
}

function ratio(n: bigint, d: bigint): Ratio {
  if (d === 0n) throw new RangeError('zero denominator');
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d);
  return { n: n / g, d: d / g };
}

export interface PositionTrade {
  /** signed micro-contracts added to the position */
  quantity: bigint;
  /** micro-USDC paid for them (negative: received) */
  paid: bigint;
}

/** Average price (micro-USDC per contract) of the position the trades leave; null when it is flat. */
export function averagePrice(trades: readonly PositionTrade[]): bigint | null {
  let q = 0n;
  let avg: Ratio | null = null;
  for (const t of trades) {
    if (t.quantity === 0n) continue;
    const price = ratio(t.paid * MICRO, t.quantity);
    if (q === 0n || (q > 0n) === (t.quantity > 0n)) {
      // Averages in: (avg * |q| + price * |d|) / (|q| + |d|).
      const held = abs(q);
      const added = abs(t.quantity);
      avg = avg === null || held === 0n ? price : ratio(avg.n * held * price.d + price.n * added * avg.d, avg.d * price.d * (held + added));
      q += t.quantity;
    } else if (abs(t.quantity) < abs(q)) {
      q += t.quantity; // reduces at the average
    } else {
      q += t.quantity;
      avg = q === 0n ? null : price; // closes, or flips at its own price
    }
  }
  return q === 0n || avg === null ? null : roundHalfAway(avg);
}

function roundHalfAway(r: Ratio): bigint {
  const q = abs(r.n) / r.d;
  const rem = abs(r.n) % r.d;
  const rounded = rem * 2n >= r.d ? q + 1n : q;
  return r.n < 0n ? -rounded : rounded;
}
