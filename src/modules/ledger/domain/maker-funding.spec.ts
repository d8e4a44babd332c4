import type { FundingLeg } from './funding';
import { fillPositions, lockIndex, makerRequirement, type MakerFundingInput } from './maker-funding';

const M = 1_000_000n;
const EXPIRY = 1_798_358_400;
const call = (strike: bigint, quantity: bigint): FundingLeg => ({
  asset: 'SOL',
  expiry: EXPIRY,
  strike: strike * M,
  kind: 'call',
  quantity: quantity * M,
  index: 150n * M,
  mark: 13n * M,
});

const base = (over: Partial<MakerFundingInput> = {}): MakerFundingInput => ({
  anchored: true,
  freeBalance: 1_000n * M,
  currentLocked: 0n,
  positions: [],
  legs: [call(150n, 1n)],
  bid: 12n * M,
  ask: 13n * M,
  lockUpsideBps: 10_000,
  indexByAsset: { SOL: 150n * M },
  ...over,
});

describe('makerRequirement', () => {
  it('taker buys a call: the maker writes it, receives ask, must cover the lock (150 at index 150)', () => {
    expect(makerRequirement(base(), 'buy')).toEqual({
      required: 150n * M,
      funded: true,
      package_cash_delta: 13n * M,
      cash_debit: 0n,
      lock_increase: 150n * M,
      post_fill_locked: 150n * M,
    });
  });

  it('taker sells a call: the maker buys it, pays bid, no lock', () => {
    expect(makerRequirement(base(), 'sell')).toEqual({
      required: 12n * M,
      funded: true,
      package_cash_delta: -12n * M,
      cash_debit: 12n * M,
      lock_increase: 0n,
      post_fill_locked: 0n,
    });
  });

  it('a negative ask is a debit of the maker on a buy', () => {
    const r = makerRequirement(base({ bid: -3n * M, ask: -2n * M, legs: [call(150n, -1n)] }), 'buy');
    expect(r).toMatchObject({ package_cash_delta: -2n * M, cash_debit: 2n * M, lock_increase: 0n, required: 2n * M });
  });

  it('an under-collateralized maker (available < 0): a fill that lowers its available is refused, one that raises it goes through', () => {
    // Short 1 call 150 held at index 300: lock 450; available -10.
    const under = base({
      freeBalance: -10n * M,
      currentLocked: 450n * M,
      positions: [{ asset: 'SOL', expiry: EXPIRY, strike: 150n * M, kind: 'call', quantity: -M }],
      indexByAsset: { SOL: 300n * M },
    });
    // Writing another call lowers available (receives 13, locks 450 more).
    expect(makerRequirement(under, 'buy').funded).toBe(false);
    // Buying the call back at bid 12 releases the lock of 450 for 12: available rises.
    expect(makerRequirement(under, 'sell')).toMatchObject({ funded: true, package_cash_delta: -12n * M, post_fill_locked: 0n });
    // Buying it back above what it releases is refused (bid 451: available falls by 1).
    expect(makerRequirement({ ...under, bid: 451n * M }, 'sell').funded).toBe(false);
    // Exactly as much as it releases leaves available unchanged: not lower, so it goes through.
    expect(makerRequirement({ ...under, bid: 450n * M }, 'sell').funded).toBe(true);
  });

  it('unfunded when the free balance is short by one micro-unit, or never anchored', () => {
    expect(makerRequirement(base({ freeBalance: 150n * M - 1n }), 'buy').funded).toBe(false);
    expect(makerRequirement(base({ freeBalance: 150n * M }), 'buy').funded).toBe(true);
    expect(makerRequirement(base({ anchored: false, freeBalance: null }), 'sell').funded).toBe(false);
    expect(makerRequirement(base({ anchored: false, freeBalance: null, bid: 0n }), 'sell')).toMatchObject({ required: 0n, funded: false });
  });

  it('a hedging fill lowers the lock: no increase', () => {
    // The maker is short the 150 call already (locked 150); buying the 160 call back on a taker sell caps the loss at 10.
    const r = makerRequirement(
      base({
        currentLocked: 150n * M,
        positions: [{ asset: 'SOL', expiry: EXPIRY, strike: 150n * M, kind: 'call', quantity: -M }],
        legs: [call(160n, 1n)],
        bid: 0n,
      }),
      'sell',
    );
    expect(r).toMatchObject({ post_fill_locked: 10n * M, lock_increase: 0n, required: 0n });
  });

  it('counts the lock the maker already carries at a new index (not gated on writing)', () => {
    // Short the 150 call, locked 150 at index 150; the index is now 200 (U = 400): lock 250.
    const r = makerRequirement(
      base({
        currentLocked: 150n * M,
        positions: [{ asset: 'SOL', expiry: EXPIRY, strike: 150n * M, kind: 'call', quantity: -M }],
        legs: [call(160n, 1n)],
        bid: 0n,
        indexByAsset: { SOL: 200n * M },
      }),
      'sell',
    );
    // After buying the 160 call: payoff floor is -10 at S >= 160 → lock 10; no increase.
    expect(r.lock_increase).toBe(0n);
    const writes = makerRequirement(
      base({
        currentLocked: 150n * M,
        positions: [{ asset: 'SOL', expiry: EXPIRY, strike: 150n * M, kind: 'call', quantity: -M }],
        legs: [call(170n, 1n)],
        indexByAsset: { SOL: 200n * M },
      }),
      'buy',
    );
    // Short 150 and 170 calls at U = 400: lock = 250 + 230 = 480.
    expect(writes).toMatchObject({ post_fill_locked: 480n * M, lock_increase: 330n * M });
  });
});

describe('fillPositions and lockIndex', () => {
  it('orients the legs for the role', () => {
    expect(fillPositions([call(150n, 2n)], 'maker', 'buy')[0].quantity).toBe(-2n * M);
    expect(fillPositions([call(150n, 2n)], 'taker', 'buy')[0].quantity).toBe(2n * M);
    expect(fillPositions([call(150n, 2n)], 'maker', 'sell')[0].quantity).toBe(2n * M);
  });

  it('takes the given index per asset, else the leg index', () => {
    const positions = [{ asset: 'BTC', expiry: EXPIRY, strike: M, kind: 'put' as const, quantity: -M }];
    expect(lockIndex(positions, [call(150n, 1n)], { BTC: 5n })).toEqual(
      new Map([
        ['BTC', 5n],
        ['SOL', 150n * M],
      ]),
    );
  });
});
