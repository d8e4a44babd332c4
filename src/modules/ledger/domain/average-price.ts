/**
 * Average price of an RFQ position (docs/spec/design.md section 8 names the field; its meaning is decided
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
import { MICRO, floorDiv } from '@legwork/protocol';

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

/** An exact rational, denominator positive, in lowest terms. */
export interface Ratio {
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

/**
 * A position and its exact average cost (micro-USDC per contract, a rational): what the ledger
 * stores per (account, instrument) and updates at every fill (`addTrade`), so that reading an
 * average never replays the fills.
 */
export interface PositionCost {
  /** signed micro-contracts */
  quantity: bigint;
  /** null when flat */
  average: Ratio | null;
}

export const FLAT: PositionCost = { quantity: 0n, average: null };

/**
 * The position after one more trade: in the position's direction (or from flat) it averages in,
 * `(avg * |q| + price * |d|) / (|q| + |d|)`; against it, smaller, it reduces at the average; against
 * it, as large or larger, it closes (flat) or flips at the trade's own price.
 */
export function addTrade(position: PositionCost, t: PositionTrade): PositionCost {
  if (t.quantity === 0n) return position;
  const q = position.quantity;
  const quantity = q + t.quantity;
  const price = ratio(t.paid * MICRO, t.quantity);
  const avg = position.average;
  if (q === 0n || q > 0n === t.quantity > 0n) {
    const held = abs(q);
    const added = abs(t.quantity);
    return {
      quantity,
      average: avg === null || held === 0n ? price : ratio(avg.n * held * price.d + price.n * added * avg.d, avg.d * price.d * (held + added)),
    };
  }
  if (abs(t.quantity) < abs(q)) return { quantity, average: avg }; // reduces at the average
  return { quantity, average: quantity === 0n ? null : price }; // closes, or flips at its own price
}

/** The average price of the position, rounded half away from zero to a micro-unit; null when flat. */
export function roundedAverage(position: PositionCost): bigint | null {
  return position.quantity === 0n || position.average === null ? null : roundHalfAway(position.average);
}

/** Average price (micro-USDC per contract) of the position the trades leave, in order; null when it is flat. */
export function averagePrice(trades: readonly PositionTrade[]): bigint | null {
  return roundedAverage(trades.reduce(addTrade, FLAT));
}

function roundHalfAway(r: Ratio): bigint {
  const q = abs(r.n) / r.d;
  const rem = abs(r.n) % r.d;
  const rounded = rem * 2n >= r.d ? q + 1n : q;
  return r.n < 0n ? -rounded : rounded;
}
