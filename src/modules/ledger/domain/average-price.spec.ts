import { FLAT, addTrade, allocatePremium, averagePrice, roundedAverage } from './average-price';

const M = 1_000_000n;

describe('allocatePremium', () => {
  it('one leg takes the whole premium', () => {
    expect(allocatePremium([{ quantity: 2n * M, mark: 13n * M }], 27_500_000n)).toEqual([27_500_000n]);
  });

  it('a premium at the mark value prices every leg at its mark', () => {
    // long 1 call at 13.5, short 2 puts at 4.25: mark value 13.5 - 8.5 = 5
    expect(
      allocatePremium(
        [
          { quantity: M, mark: 13_500_000n },
          { quantity: -2n * M, mark: 4_250_000n },
        ],
        5n * M,
      ),
    ).toEqual([13_500_000n, -8_500_000n]);
  });

  it('spreads the difference to the mark value by absolute leg value, summing exactly', () => {
    // values 13.5 and -8.5 (|.| sum 22); premium 6.1: difference 1.1 → +0.675 and +0.425
    const shares = allocatePremium(
      [
        { quantity: M, mark: 13_500_000n },
        { quantity: -2n * M, mark: 4_250_000n },
      ],
      6_100_000n,
    );
    expect(shares).toEqual([14_175_000n, -8_075_000n]);
    expect(shares[0] + shares[1]).toBe(6_100_000n);
  });

  it('leftover micro-units go to the largest remainders; the sum is always the premium', () => {
    const legs = [
      { quantity: M, mark: M },
      { quantity: M, mark: M },
      { quantity: M, mark: M },
    ];
    expect(allocatePremium(legs, 1n)).toEqual([1n, 0n, 0n]);
    expect(allocatePremium(legs, 3_000_002n)).toEqual([1_000_001n, 1_000_001n, 1_000_000n]);
    for (const premium of [-7n, 0n, 5n, 12_345_678n, -9_999_999n]) {
      const shares = allocatePremium(
        [
          { quantity: 333_333n, mark: 7n },
          { quantity: -1n, mark: 3_000_000n },
          { quantity: 5n * M, mark: 0n },
        ],
        premium,
      );
      expect(shares.reduce((s, x) => s + x, 0n)).toBe(premium);
    }
  });

  it('every mark zero: by |quantity|', () => {
    expect(
      allocatePremium(
        [
          { quantity: M, mark: 0n },
          { quantity: -3n * M, mark: 0n },
        ],
        4n * M,
      ),
    ).toEqual([M, 3n * M]);
  });
});

describe('averagePrice', () => {
  it('one trade: its price per contract, for a long and for a short', () => {
    expect(averagePrice([{ quantity: 2n * M, paid: 27_500_000n }])).toBe(13_750_000n);
    expect(averagePrice([{ quantity: -2n * M, paid: -27_500_000n }])).toBe(13_750_000n);
  });

  it('adding averages in by quantity', () => {
    expect(
      averagePrice([
        { quantity: M, paid: 10n * M },
        { quantity: 3n * M, paid: 42n * M },
      ]),
    ).toBe(13n * M);
  });

  it('reducing keeps the average; closing is flat; flipping starts at the flipping price', () => {
    const open = [{ quantity: 2n * M, paid: 20n * M }];
    expect(averagePrice([...open, { quantity: -M, paid: -15n * M }])).toBe(10n * M);
    expect(averagePrice([...open, { quantity: -2n * M, paid: -30n * M }])).toBeNull();
    expect(averagePrice([...open, { quantity: -3n * M, paid: -36n * M }])).toBe(12n * M);
    expect(averagePrice([...open, { quantity: -2n * M, paid: -30n * M }, { quantity: -M, paid: -9n * M }])).toBe(9n * M);
  });

  it('rounds half away from zero to a micro-unit', () => {
    // 3 contracts for 10 micro-USDC: 3.333… micro per contract
    expect(averagePrice([{ quantity: 3n * M, paid: 10n }])).toBe(3n);
    expect(averagePrice([{ quantity: 2n * M, paid: 1n }])).toBe(1n); // 0.5 → 1
    expect(averagePrice([{ quantity: 2n * M, paid: -1n }])).toBe(-1n); // a negative price
  });

  it('no trades, or zero-quantity trades only: flat', () => {
    expect(averagePrice([])).toBeNull();
    expect(averagePrice([{ quantity: 0n, paid: 5n }])).toBeNull();
  });
});

describe('addTrade (the average cost stored with a position)', () => {
  it('folding trade by trade gives, after each one, the average of the whole history', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const trades: Array<{ quantity: bigint; paid: bigint }> = [];
    let position = FLAT;
    for (let i = 0; i < 400; i++) {
      const quantity = BigInt(Math.floor(random() * 2_000_001) - 1_000_000);
      const trade = { quantity, paid: BigInt(Math.floor(random() * 30_000_001) - 10_000_000) };
      trades.push(trade);
      position = addTrade(position, trade);
      expect(position.quantity).toBe(trades.reduce((s, t) => s + t.quantity, 0n));
      expect(roundedAverage(position)).toBe(averagePrice(trades));
    }
  });

  it('keeps the average exact: a fraction in lowest terms, never rounded between trades', () => {
    // 3 contracts for 10 USDC, then 3 more for 11: 3.5 exactly, though 10/3 rounds to 3.333333.
    const after = [
      { quantity: 3n * M, paid: 10n * M },
      { quantity: 3n * M, paid: 11n * M },
    ].reduce(addTrade, FLAT);
    expect(after).toEqual({ quantity: 6n * M, average: { n: 3_500_000n, d: 1n } });
    const third = addTrade(FLAT, { quantity: 3n * M, paid: 10n * M });
    expect(third.average).toEqual({ n: 10_000_000n, d: 3n });
    expect(roundedAverage(third)).toBe(3_333_333n);
  });

  it('a zero-quantity trade changes nothing; flat has no average', () => {
    const held = addTrade(FLAT, { quantity: M, paid: 5n * M });
    expect(addTrade(held, { quantity: 0n, paid: 9n })).toBe(held);
    expect(roundedAverage(addTrade(held, { quantity: -M, paid: -6n * M }))).toBeNull();
  });
});
