import { formatRfq, parseRfqUnsigned } from '@legwork/protocol';
import { loadVector } from '../../../../test/vectors';
import { strikeGrid, strikeStep } from './strike-grid';

const { strike_grids } = loadVector('instruments.json');

describe('strike grids (instruments.json)', () => {
  for (const v of strike_grids) {
    it(`spot ${v.spot_price}: step ${v.step}, ${v.strikes} strikes ${v.first} .. ${v.last}`, () => {
      const spot = parseRfqUnsigned(v.spot_price);
      const grid = strikeGrid(spot);
      expect(formatRfq(strikeStep(spot))).toBe(v.step);
      expect(grid).toHaveLength(v.strikes);
      expect(grid.length * 2).toBe(v.instruments);
      expect(formatRfq(grid[0])).toBe(v.first);
      expect(formatRfq(grid[grid.length - 1])).toBe(v.last);
    });
  }
});

describe('strike grid rules', () => {
  it('is ascending, evenly spaced and within [0.5 spot, 1.5 spot]', () => {
    for (const text of ['150', '0.02', '3.3', '7', '123.456789', '0.000123']) {
      const spot = parseRfqUnsigned(text);
      const step = strikeStep(spot);
      const grid = strikeGrid(spot);
      grid.forEach((k, i) => {
        expect(k % step).toBe(0n);
        if (i > 0) expect(k - grid[i - 1]).toBe(step);
      });
      expect(2n * grid[0]).toBeGreaterThanOrEqual(spot);
      expect(2n * (grid[0] - step)).toBeLessThan(spot);
      expect(2n * grid[grid.length - 1]).toBeLessThanOrEqual(3n * spot);
      expect(2n * (grid[grid.length - 1] + step)).toBeGreaterThan(3n * spot);
    }
  });

  it('picks the largest 1/2/2.5/5 x 10^k not above 2.5 % of spot', () => {
    expect(formatRfq(strikeStep(parseRfqUnsigned('200')))).toBe('5');
    expect(formatRfq(strikeStep(parseRfqUnsigned('199.99')))).toBe('2.5');
    expect(formatRfq(strikeStep(parseRfqUnsigned('80')))).toBe('2');
    expect(formatRfq(strikeStep(parseRfqUnsigned('79.99')))).toBe('1');
    expect(formatRfq(strikeStep(parseRfqUnsigned('0.001')))).toBe('0.000025');
  });

  it('never steps below one micro-unit', () => {
    expect(strikeStep(39n)).toBe(1n);
    expect(strikeStep(1n)).toBe(1n);
    expect(strikeGrid(1n)).toEqual([1n]);
    expect(strikeGrid(4n)).toEqual([2n, 3n, 4n, 5n, 6n]);
    expect(() => strikeStep(0n)).toThrow(RangeError);
  });
});
