import { type Instrument, compareInstruments, inRound, instrumentRecord, isTradable } from './instrument';

const base: Instrument = {
  symbol: 'SOL-27DEC26-152.5-C',
  asset: 'SOL',
  strike: 152_500_000n,
  kind: 'call',
  expiry: 1798358400,
  paused: false,
  settled: false,
  settlementPrice: null,
  createdAt: 1790000000,
};
const make = (over: Partial<Instrument>): Instrument => ({ ...base, ...over });

describe('instrument record', () => {
  it('gives strikes and settlement prices in RFQ form and times in unix seconds', () => {
    expect(instrumentRecord(base)).toEqual({
      symbol: 'SOL-27DEC26-152.5-C',
      asset: 'SOL',
      strike: '152.5',
      kind: 'call',
      expiry: 1798358400,
      paused: false,
      settled: false,
      settlement_price: null,
      created_at: 1790000000,
    });
    expect(instrumentRecord(make({ settled: true, settlementPrice: 160_000_001n })).settlement_price).toBe('160.000001');
  });
});

describe('listing order', () => {
  it('orders by asset, expiry, strike, then call before put', () => {
    const list = [
      make({ symbol: 'e', asset: 'SOL', expiry: 2, strike: 1n, kind: 'put' }),
      make({ symbol: 'd', asset: 'SOL', expiry: 2, strike: 1n, kind: 'call' }),
      make({ symbol: 'f', asset: 'SOL', expiry: 2, strike: 10n, kind: 'call' }),
      make({ symbol: 'c', asset: 'SOL', expiry: 1, strike: 99n, kind: 'put' }),
      make({ symbol: 'a', asset: 'BTC', expiry: 9, strike: 5n, kind: 'put' }),
      make({ symbol: 'b', asset: 'ETH', expiry: 1, strike: 5n, kind: 'call' }),
    ];
    expect(list.sort(compareInstruments).map((i) => i.symbol)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  });

  it('compares strikes as exact integers, not text', () => {
    expect(compareInstruments(make({ strike: 9_000_000n }), make({ strike: 10_000_000n }))).toBeLessThan(0);
  });
});

describe('rounds and tradability', () => {
  it('a round without an asset holds every asset at the expiry', () => {
    expect(inRound(base, { asset: null, expiry: base.expiry })).toBe(true);
    expect(inRound(base, { asset: 'SOL', expiry: base.expiry })).toBe(true);
    expect(inRound(base, { asset: 'BTC', expiry: base.expiry })).toBe(false);
    expect(inRound(base, { asset: null, expiry: base.expiry + 1 })).toBe(false);
  });

  it('tradable: open, not paused, expiry in the future', () => {
    expect(isTradable(base, base.expiry - 1)).toBe(true);
    expect(isTradable(base, base.expiry)).toBe(false);
    expect(isTradable(make({ paused: true }), 0)).toBe(false);
    expect(isTradable(make({ settled: true }), 0)).toBe(false);
  });
});
