import { parseRfqUnsigned } from '@legwork/protocol';
import { loadVector } from '../../../../test/vectors';
import { ASSET_PATTERN, formatSymbol, parseSymbol, symbolDate, utcDateKey } from './symbol';

const { symbols } = loadVector('instruments.json');

describe('instrument symbols (instruments.json)', () => {
  for (const v of symbols) {
    it(`formats and parses ${v.symbol}`, () => {
      const strike = parseRfqUnsigned(v.strike);
      expect(formatSymbol({ asset: v.asset, expiry: v.expiry, strike, kind: v.kind })).toBe(v.symbol);
      expect(parseSymbol(v.symbol)).toEqual({ asset: v.asset, date: symbolDate(v.expiry), strike, kind: v.kind });
    });
  }
});

describe('symbol rules', () => {
  it('uses the UTC date of the expiry', () => {
    const midnight = 1798329600; // 2026-12-27T00:00:00Z (the vectors' expiry is 08:00 that day)
    expect(symbolDate(1798358400)).toBe('27DEC26');
    expect(symbolDate(midnight)).toBe('27DEC26');
    expect(symbolDate(midnight - 1)).toBe('26DEC26');
    expect(utcDateKey(midnight)).toBe('2026-12-27');
    expect(utcDateKey(midnight + 86399)).toBe('2026-12-27');
    expect(utcDateKey(midnight + 86400)).toBe('2026-12-28');
    expect(utcDateKey(1799136000)).toBe('2027-01-05');
  });

  it('checks the asset pattern', () => {
    expect(ASSET_PATTERN.test('SOL')).toBe(true);
    expect(ASSET_PATTERN.test('BONK1234')).toBe(true);
    for (const bad of ['S', 'sol', '1SOL', 'BONK12345', 'SO-L']) expect(ASSET_PATTERN.test(bad)).toBe(false);
    expect(() => formatSymbol({ asset: 'sol', expiry: 1798358400, strike: 1_000_000n, kind: 'call' })).toThrow(RangeError);
  });

  it('refuses a zero strike and a symbol over 32 bytes', () => {
    expect(() => formatSymbol({ asset: 'SOL', expiry: 1798358400, strike: 0n, kind: 'call' })).toThrow(RangeError);
    const strike = parseRfqUnsigned('123456789012.123456');
    expect(() => formatSymbol({ asset: 'ABCDEFGH', expiry: 1798358400, strike, kind: 'put' })).toThrow(/32 bytes/);
  });

  it('rejects malformed symbols', () => {
    for (const bad of [
      'SOL-27DEC26-150-X',
      'SOL-27Dec26-150-C',
      'SOL-32DEC26-150-C',
      'SOL-30FEB26-150-C',
      'SOL-00JAN26-150-C',
      'SOL-27DEC26-150.0-C',
      'SOL-27DEC26-0-C',
      'SOL-27DEC26-0150-C',
      'SOL-27DEC26--150-C',
      'SOL-7DEC26-150-C',
      'sol-27DEC26-150-C',
      'SOL-27DEC26-9999999999999999999-C',
      'SOL-27DEC26-1.0000001-C',
      'SOL-27DEC26-150-C ',
      '',
    ]) {
      expect(parseSymbol(bad)).toBeNull();
    }
    expect(parseSymbol('SOL-29FEB28-150-C')).not.toBeNull(); // leap year
  });
});
