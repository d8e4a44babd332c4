import { MAX_IV, isFresh, parseIv, parseMarketUpdate } from './market-update';
import { invalidParamsMessage as problem } from '../../../../test/invalid-params';

describe('parseMarketUpdate', () => {
  it('takes the index, a flat iv and per-symbol ivs, strings or numbers, in micro-units', () => {
    const u = parseMarketUpdate({ asset: 'SOL', index_price: 150.25, iv: '0.8', ivs: { 'SOL-27DEC26-150-C': 0.65 } });
    expect(u).toEqual({ asset: 'SOL', indexPrice: 150_250_000n, iv: 800_000n, ivs: new Map([['SOL-27DEC26-150-C', 650_000n]]) });
    expect(parseMarketUpdate({ asset: 'SOL', index_price: '150' })).toEqual({ asset: 'SOL', indexPrice: 150_000_000n, iv: null, ivs: new Map() });
  });

  it('refuses a bad asset, index or iv, naming the field', () => {
    expect(problem(() => parseMarketUpdate({ asset: 'sol', index_price: '1' }))).toMatch(/^asset must match/);
    expect(problem(() => parseMarketUpdate({ asset: 'SOL', index_price: '0' }))).toBe('index_price must be greater than 0');
    expect(problem(() => parseMarketUpdate({ asset: 'SOL', index_price: '1e3' }))).toMatch(/^index_price: /);
    expect(problem(() => parseMarketUpdate({ asset: 'SOL', index_price: '1', iv: 0 }))).toBe('iv must be greater than 0');
    expect(problem(() => parseMarketUpdate({ asset: 'SOL', index_price: '1', iv: '10.000001' }))).toBe('iv must be at most 10 (1000 %)');
    expect(problem(() => parseMarketUpdate({ asset: 'SOL', index_price: '1', ivs: ['0.8'] }))).toMatch(/^ivs must be an object/);
    expect(problem(() => parseMarketUpdate({ asset: 'SOL', index_price: '1', ivs: { 'SOL-27DEC26-150-C': 'x' } }))).toMatch(/^ivs\.SOL-27DEC26-150-C: /);
  });

  it('takes an iv of exactly 10', () => {
    expect(parseIv('10', 'iv')).toBe(MAX_IV);
  });
});

describe('isFresh', () => {
  it('is fresh up to and including the maximum age', () => {
    expect(isFresh({ value: 1n, updatedAt: 100 }, 130, 30)).toBe(true);
    expect(isFresh({ value: 1n, updatedAt: 100 }, 131, 30)).toBe(false);
    expect(isFresh(undefined, 100, 30)).toBe(false);
  });
});
