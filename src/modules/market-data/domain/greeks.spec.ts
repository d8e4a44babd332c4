import { parseRfqSigned, parseRfqUnsigned } from '@legwork/protocol';
import { loadVector } from '../../../../test/vectors';
import { greeks } from './greeks';

const { greeks: vectors } = loadVector('risk.json');
const u = parseRfqUnsigned;
const abs = (x: bigint) => (x < 0n ? -x : x);

describe('Black-76 greeks (risk.json)', () => {
  for (const v of vectors) {
    it(`${v.kind} K=${v.strike} on ${v.index}, iv ${v.iv}, ${v.seconds_to_expiry}s ~ delta ${v.delta_approx}, vega ${v.vega_approx}`, () => {
      const g = greeks({ index: u(v.index), strike: u(v.strike), kind: v.kind, iv: u(v.iv), secondsToExpiry: v.seconds_to_expiry });
      expect(abs(g.delta - parseRfqSigned(v.delta_approx))).toBeLessThanOrEqual(BigInt(v.tolerance_micro));
      expect(abs(g.vega - parseRfqSigned(v.vega_approx))).toBeLessThanOrEqual(BigInt(v.tolerance_micro));
    });
  }
});

describe('greeks at the edges', () => {
  const base = { index: u('150'), iv: u('0.8'), secondsToExpiry: 30 * 86_400 };

  it('is the intrinsic payoff at expiry or with zero IV', () => {
    expect(greeks({ ...base, strike: u('100'), kind: 'call', secondsToExpiry: 0 })).toEqual({ delta: 1_000_000n, vega: 0n });
    expect(greeks({ ...base, strike: u('200'), kind: 'call', iv: 0n })).toEqual({ delta: 0n, vega: 0n });
    expect(greeks({ ...base, strike: u('200'), kind: 'put', secondsToExpiry: -5 })).toEqual({ delta: -1_000_000n, vega: 0n });
    expect(greeks({ ...base, strike: u('100'), kind: 'put', iv: 0n })).toEqual({ delta: 0n, vega: 0n });
  });

  it('keeps put-call parity of delta (call - put = 1) within rounding, and one vega for both', () => {
    for (const strike of ['100', '140', '150', '160', '220']) {
      const call = greeks({ ...base, strike: u(strike), kind: 'call' });
      const put = greeks({ ...base, strike: u(strike), kind: 'put' });
      expect(abs(call.delta - put.delta - 1_000_000n)).toBeLessThanOrEqual(1n);
      expect(call.vega).toBe(put.vega);
    }
  });

  it('rounds toward zero on both signs', () => {
    const put = greeks({ ...base, strike: u('160'), kind: 'put' });
    expect(put.delta < 0n).toBe(true);
    const call = greeks({ ...base, strike: u('160'), kind: 'call' });
    // call - put = 1 exactly before rounding, so truncating both toward zero never gains a micro-unit.
    expect(call.delta - put.delta <= 1_000_000n).toBe(true);
  });
});
