/**
 * Default strikes of create-instruments (docs/spec/design.md section 2): every multiple of `step` in
 * [0.5 * spot, 1.5 * spot], `step` the largest of 1, 2, 2.5, 5 times a power of ten that is
 * <= spot * 0.025. All values in micro-units; exact bigint arithmetic.
 */
import { ceilDiv, floorDiv } from '@legwork/protocol';

/** The grid step in micro-units; never below 1 micro-unit (spot < 0.00004 gives step 0.000001). */
export function strikeStep(spot: bigint): bigint {
  if (spot <= 0n) throw new RangeError('spot must be positive');
  // c <= spot * 0.025  <=>  40 * c <= spot
  let best = 1n;
  for (let p = 1n; 40n * p <= spot; p *= 10n) {
    // 2.5 * p is a whole number of micro-units only from p = 10 (0.000025) on.
    const candidates = p >= 10n ? [p, 2n * p, (5n * p) / 2n, 5n * p] : [p, 2n * p, 5n * p];
    for (const c of candidates) if (40n * c <= spot && c > best) best = c;
  }
  return best;
}

/** Every multiple of the step in [0.5 * spot, 1.5 * spot], ascending. */
export function strikeGrid(spot: bigint): bigint[] {
  const step = strikeStep(spot);
  const first = ceilDiv(spot, 2n * step); // smallest k with k * step >= spot / 2
  const last = floorDiv(3n * spot, 2n * step); // largest k with k * step <= 3 * spot / 2
  const strikes: bigint[] = [];
  for (let k = first; k <= last; k++) strikes.push(k * step);
  return strikes;
}
