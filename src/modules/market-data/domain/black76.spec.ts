import { parseRfqUnsigned } from '@legwork/protocol';
import { loadVector } from '../../../../test/vectors';
import { markPrice, normalCdf } from './black76';

const { marks } = loadVector('risk.json');
const u = parseRfqUnsigned;

describe('Black-76 marks (risk.json)', () => {
  for (const v of marks) {
    it(`${v.kind} K=${v.strike} on ${v.index}, iv ${v.iv}, ${v.seconds_to_expiry}s ~ ${v.mark_approx}`, () => {
      const mark = markPrice({ index: u(v.index), strike: u(v.strike), kind: v.kind, iv: u(v.iv), secondsToExpiry: v.seconds_to_expiry });
      const diff = mark - u(v.mark_approx);
      expect(diff < 0n ? -diff : diff).toBeLessThanOrEqual(BigInt(v.tolerance_micro));
    });
  }
});

describe('Black-76 sanity', () => {
  it('has an accurate normal CDF', () => {
    expect(normalCdf(0)).toBe(0.5);
    expect(Math.abs(normalCdf(1) - 0.8413447460685429)).toBeLessThan(1e-14);
    expect(Math.abs(normalCdf(-2) - 0.022750131948179195)).toBeLessThan(1e-15);
    expect(Math.abs(normalCdf(-8) - 6.22096057427178e-16)).toBeLessThan(1e-20);
    expect(Math.abs(normalCdf(3.7) - 0.9998922002665226)).toBeLessThan(1e-13);
    expect(Math.abs(normalCdf(0.5) + normalCdf(-0.5) - 1)).toBeLessThan(1e-15);
  });

  it('satisfies put-call parity (C - P = F - K, r = 0) within float rounding', () => {
    const cases = [
      { index: '150', strike: '160', iv: '0.6', secondsToExpiry: 2_592_000 },
      { index: '100000', strike: '87500', iv: '0.45', secondsToExpiry: 90 * 86_400 },
      { index: '0.02', strike: '0.0215', iv: '1.2', secondsToExpiry: 3_600 },
    ];
    for (const c of cases) {
      const args = { index: u(c.index), strike: u(c.strike), iv: u(c.iv), secondsToExpiry: c.secondsToExpiry };
      const call = markPrice({ ...args, kind: 'call' });
      const put = markPrice({ ...args, kind: 'put' });
      const gap = call - put - (args.index - args.strike);
      expect(gap >= -1n && gap <= 1n).toBe(true); // each side floors independently
    }
  });

  it('is the intrinsic value at or after expiry and with zero IV', () => {
    const base = { index: u('150'), strike: u('140'), iv: u('0.8') };
    expect(markPrice({ ...base, kind: 'call', secondsToExpiry: 0 })).toBe(u('10'));
    expect(markPrice({ ...base, kind: 'put', secondsToExpiry: -5 })).toBe(0n);
    expect(markPrice({ ...base, iv: 0n, kind: 'call', secondsToExpiry: 86_400 })).toBe(u('10'));
    expect(markPrice({ ...base, iv: 0n, kind: 'put', secondsToExpiry: 86_400 })).toBe(0n);
  });

  it('stays within [intrinsic, forward] and rises with time and volatility', () => {
    const base = { index: u('150'), strike: u('150'), kind: 'call' as const };
    const short = markPrice({ ...base, iv: u('0.8'), secondsToExpiry: 86_400 });
    const long = markPrice({ ...base, iv: u('0.8'), secondsToExpiry: 30 * 86_400 });
    const wild = markPrice({ ...base, iv: u('1.6'), secondsToExpiry: 30 * 86_400 });
    expect(short).toBeGreaterThan(0n);
    expect(long).toBeGreaterThan(short);
    expect(wild).toBeGreaterThan(long);
    expect(markPrice({ ...base, iv: u('50'), secondsToExpiry: 10 * 365 * 86_400 })).toBeLessThanOrEqual(u('150'));
  });
});
