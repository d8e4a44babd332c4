import { cashFlows, foldPositions, legTrades, orientation, positionDeltas, positionsAfter, reverseCash, reverseDeltas } from './fold';

const M = 1_000_000n;
const legs = [
  { instrument: 'SOL-27DEC26-160-C', quantity: (3n * M) / 2n },
  { instrument: 'SOL-27DEC26-140-P', quantity: -2n * M },
];

describe('positionDeltas', () => {
  it('buy: the taker receives the quantities, the maker their negation, in the taker order', () => {
    expect(positionDeltas(legs, 'buy')).toEqual({
      taker: [
        { instrument: 'SOL-27DEC26-160-C', quantity: 1_500_000n },
        { instrument: 'SOL-27DEC26-140-P', quantity: -2_000_000n },
      ],
      maker: [
        { instrument: 'SOL-27DEC26-160-C', quantity: -1_500_000n },
        { instrument: 'SOL-27DEC26-140-P', quantity: 2_000_000n },
      ],
    });
  });

  it('sell: the taker receives the negation, the maker the quantities', () => {
    expect(positionDeltas(legs, 'sell')).toEqual({
      taker: [
        { instrument: 'SOL-27DEC26-160-C', quantity: -1_500_000n },
        { instrument: 'SOL-27DEC26-140-P', quantity: 2_000_000n },
      ],
      maker: [
        { instrument: 'SOL-27DEC26-160-C', quantity: 1_500_000n },
        { instrument: 'SOL-27DEC26-140-P', quantity: -2_000_000n },
      ],
    });
  });

  it('orientation', () => {
    expect([orientation('taker', 'buy'), orientation('maker', 'buy'), orientation('taker', 'sell'), orientation('maker', 'sell')]).toEqual([1n, -1n, -1n, 1n]);
  });
});

describe('cashFlows', () => {
  it('buy: the taker pays ask to the maker and the fee to the fee account', () => {
    expect(cashFlows({ side: 'buy', bid: 1_500_000n, ask: 2_250_000n, fee: 45_000n })).toEqual({
      taker: -2_295_000n,
      maker: 2_250_000n,
      feeAccount: 45_000n,
      price: 2_250_000n,
    });
  });

  it('sell: the maker pays bid to the taker', () => {
    expect(cashFlows({ side: 'sell', bid: 1_500_000n, ask: 2_250_000n, fee: 45_000n })).toEqual({
      taker: 1_455_000n,
      maker: -1_500_000n,
      feeAccount: 45_000n,
      price: 1_500_000n,
    });
  });

  it('a negative price flows the other way', () => {
    expect(cashFlows({ side: 'buy', bid: -3_000_000n, ask: -2_000_000n, fee: 0n })).toMatchObject({ taker: 2_000_000n, maker: -2_000_000n });
    expect(cashFlows({ side: 'sell', bid: -3_000_000n, ask: -2_000_000n, fee: 0n })).toMatchObject({ taker: -3_000_000n, maker: 3_000_000n });
  });

  it('is zero-sum', () => {
    for (const side of ['buy', 'sell'] as const) {
      const f = cashFlows({ side, bid: 7n, ask: 11n, fee: 3n });
      expect(f.taker + f.maker + f.feeAccount).toBe(0n);
    }
  });

  it('refuses a negative fee', () => {
    expect(() => cashFlows({ side: 'buy', bid: 0n, ask: 0n, fee: -1n })).toThrow(RangeError);
  });
});

describe('foldPositions and the revert', () => {
  it('adds deltas per instrument; a reverse brings every position back exactly', () => {
    const start = new Map([['SOL-27DEC26-160-C', 500_000n]]);
    const { taker } = positionDeltas(legs, 'buy');
    const after = foldPositions(start, taker);
    expect(after).toEqual(
      new Map([
        ['SOL-27DEC26-160-C', 2_000_000n],
        ['SOL-27DEC26-140-P', -2_000_000n],
      ]),
    );
    expect(foldPositions(after, reverseDeltas(taker))).toEqual(
      new Map([
        ['SOL-27DEC26-160-C', 500_000n],
        ['SOL-27DEC26-140-P', 0n],
      ]),
    );
    expect(start.get('SOL-27DEC26-160-C')).toBe(500_000n); // not mutated
  });

  it('taker and maker folds mirror each other', () => {
    const d = positionDeltas(legs, 'sell');
    const sum = foldPositions(foldPositions(new Map(), d.taker), d.maker);
    expect([...sum.values()]).toEqual([0n, 0n]);
  });

  it('reverseCash negates every flow', () => {
    const f = cashFlows({ side: 'buy', bid: 1n, ask: 2n, fee: 1n });
    expect(reverseCash(f)).toEqual({ taker: 3n, maker: -2n, feeAccount: -1n, price: 2n });
  });
});

describe('legTrades and positionsAfter (a fill as each account trades it)', () => {
  const priced = [
    { instrument: 'SOL-27DEC26-160-C', quantity: 1_500_000n, premium: 3_000_000n },
    { instrument: 'SOL-27DEC26-140-P', quantity: -2_000_000n, premium: -1_000_000n },
  ];

  it("the receiver of the legs as quoted pays each leg's premium share; the other side mirrors it", () => {
    const buy = legTrades(priced, 'buy');
    expect(buy.taker).toEqual([
      { instrument: 'SOL-27DEC26-160-C', quantity: 1_500_000n, paid: 3_000_000n },
      { instrument: 'SOL-27DEC26-140-P', quantity: -2_000_000n, paid: -1_000_000n },
    ]);
    expect(buy.maker).toEqual(buy.taker.map((t) => ({ instrument: t.instrument, quantity: -t.quantity, paid: -t.paid })));
    expect(legTrades(priced, 'sell').taker).toEqual(buy.maker);
  });

  it('positionsAfter averages each leg into the position held (or flat); both sides at the same price', () => {
    const { taker, maker } = legTrades(priced, 'buy');
    const held = new Map([['SOL-27DEC26-160-C', { quantity: 500_000n, average: { n: 1_000_000n, d: 1n } }]]);
    const after = positionsAfter(held, taker);
    // 0.5 at 1 + 1.5 at 2 (3 USDC for 1.5): 3.5 USDC for 2 contracts = 1.75
    expect(after[0]).toEqual({ instrument: 'SOL-27DEC26-160-C', delta: 1_500_000n, position: { quantity: 2_000_000n, average: { n: 1_750_000n, d: 1n } } });
    expect(after[1]).toEqual({ instrument: 'SOL-27DEC26-140-P', delta: -2_000_000n, position: { quantity: -2_000_000n, average: { n: 500_000n, d: 1n } } });
    expect(positionsAfter(new Map(), maker).map((p) => p.position.average)).toEqual([
      { n: 2_000_000n, d: 1n },
      { n: 500_000n, d: 1n },
    ]);
  });
});
