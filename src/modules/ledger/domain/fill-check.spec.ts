import { checkFill, type FillCheckInput, revertOutcome, type RevertInput } from './fill-check';
import type { FundingLeg } from './funding';

const M = 1_000_000n;
const EXPIRY = 1_798_358_400;
const params = { takerFeeBps: 3, tradeFeeCapBps: 1250, takerFeeToleranceBps: 100, lockUpsideBps: 10_000 };
const leg = (strike: bigint, kind: 'call' | 'put', quantity: bigint, mark = 13n * M): FundingLeg => ({
  asset: 'SOL',
  expiry: EXPIRY,
  strike: strike * M,
  kind,
  quantity,
  index: 150n * M,
  mark,
});
// Buying 1 call 150: fee = min(150 * 3 / 10000, 13 * 0.125) = 0.045
const input = (over: Partial<FillCheckInput> = {}): FillCheckInput => ({
  side: 'buy',
  bid: 12n * M,
  ask: 13n * M,
  maxFee: 45_450n,
  legs: [leg(150n, 'call', M)],
  taker: { balance: { total: 100n * M, locked: 0n }, positions: [] },
  maker: { balance: { total: 1_000n * M, locked: 0n }, positions: [] },
  indexByAsset: { SOL: 150n * M },
  params,
  ...over,
});

describe('checkFill', () => {
  it('a funded buy: premium and fee move, the maker locks its written call', () => {
    expect(checkFill(input())).toEqual({
      ok: true,
      fee: 45_000n,
      cash: { taker: -13_045_000n, maker: 13n * M, feeAccount: 45_000n, price: 13n * M },
      taker: { total: 86_955_000n, locked: 0n },
      maker: { total: 1_013n * M, locked: 150n * M },
    });
  });

  it('a fee above the frozen max_fee: RFQ_PRICE_TOLERANCE (checked first)', () => {
    const d = checkFill(input({ maxFee: 44_999n, taker: { balance: null, positions: [] } }));
    expect(d).toMatchObject({ ok: false, error: 'RFQ_PRICE_TOLERANCE' });
  });

  it('the fee at fill may be below the frozen max_fee', () => {
    expect(checkFill(input({ maxFee: 46_000n }))).toMatchObject({ ok: true, fee: 45_000n });
  });

  it('a taker short of cash + max_fee, or never anchored: RFQ_TAKER_UNFUNDED', () => {
    // required = 13 + ceil(0.045 * 1.01) = 13.04545
    expect(checkFill(input({ taker: { balance: { total: 13_045_449n, locked: 0n }, positions: [] } }))).toMatchObject({
      ok: false,
      error: 'RFQ_TAKER_UNFUNDED',
    });
    expect(checkFill(input({ taker: { balance: { total: 13_045_450n, locked: 0n }, positions: [] } }))).toMatchObject({ ok: true });
    expect(checkFill(input({ taker: { balance: null, positions: [] } }))).toMatchObject({ ok: false, error: 'RFQ_TAKER_UNFUNDED' });
  });

  it('a maker that cannot cover its lock: RFQ_BALANCE_INSUFFICIENT', () => {
    expect(checkFill(input({ maker: { balance: { total: 150n * M - 1n, locked: 0n }, positions: [] } }))).toMatchObject({
      ok: false,
      error: 'RFQ_BALANCE_INSUFFICIENT',
    });
    expect(checkFill(input({ maker: { balance: null, positions: [] } }))).toMatchObject({ ok: false, error: 'RFQ_BALANCE_INSUFFICIENT' });
  });

  it('a sell: the maker pays bid, the taker writes and locks', () => {
    const d = checkFill(input({ side: 'sell', taker: { balance: { total: 150_050_000n, locked: 0n }, positions: [] } }));
    expect(d).toEqual({
      ok: true,
      fee: 45_000n,
      cash: { taker: 11_955_000n, maker: -12n * M, feeAccount: 45_000n, price: 12n * M },
      taker: { total: 162_005_000n, locked: 150n * M },
      maker: { total: 988n * M, locked: 0n },
    });
  });

  it("the ledger's final check: a non-writer whose shorts reprice at a new index", () => {
    // The taker is short the 150 call with 150 locked (index 150); the index is now 200, so its lock is 250.
    // Buying a put is not writing (lock_increase 0) but would leave total - locked < 0.
    const taker = {
      balance: { total: 160n * M, locked: 150n * M },
      positions: [{ asset: 'SOL', expiry: EXPIRY, strike: 150n * M, kind: 'call' as const, quantity: -M }],
    };
    const d = checkFill(input({ taker, legs: [leg(100n, 'put', M, 2n * M)], ask: M, indexByAsset: { SOL: 200n * M } }));
    expect(d).toMatchObject({ ok: false, error: 'RFQ_ATTESTATION_FAILED' });
  });
});

describe('checkFill with an under-collateralized account (design.md section 12)', () => {
  const shortCall = { asset: 'SOL', expiry: EXPIRY, strike: 150n * M, kind: 'call' as const, quantity: -M };
  // Index 300: the short call locks 450; total 440 leaves available -10.
  const under = { balance: { total: 440n * M, locked: 450n * M }, positions: [shortCall] };

  it('as a taker its free_balance is 0: an accept that needs funds is RFQ_TAKER_UNFUNDED', () => {
    expect(checkFill(input({ taker: under, indexByAsset: { SOL: 300n * M } }))).toMatchObject({ ok: false, error: 'RFQ_TAKER_UNFUNDED' });
  });

  it('as a maker: a fill that raises its available goes through, and it stays negative', () => {
    // The taker sells the maker back its call at bid 12: the maker pays 12 and releases 450.
    const taker = { balance: { total: 1_000n * M, locked: 0n }, positions: [] };
    const d = checkFill(input({ side: 'sell', taker, maker: under, indexByAsset: { SOL: 300n * M } }));
    expect(d).toMatchObject({ ok: true, maker: { total: 428n * M, locked: 0n } });
  });

  it('as a maker: a fill that lowers its available is RFQ_BALANCE_INSUFFICIENT', () => {
    expect(checkFill(input({ maker: under, indexByAsset: { SOL: 300n * M } }))).toMatchObject({ ok: false, error: 'RFQ_BALANCE_INSUFFICIENT' });
  });
});

describe('revertOutcome', () => {
  const legs = [{ asset: 'SOL', expiry: EXPIRY, strike: 150n * M, kind: 'call' as const, quantity: M }];
  const filled = (over: Partial<RevertInput> = {}): RevertInput => ({
    side: 'buy',
    price: 13n * M,
    fee: 45_000n,
    legs,
    taker: { balance: { total: 86_955_000n, locked: 0n }, positions: [{ ...legs[0] }] },
    maker: { balance: { total: 1_013n * M, locked: 150n * M }, positions: [{ ...legs[0], quantity: -M }] },
    feeAccount: { total: 45_000n, locked: 0n },
    indexByAsset: { SOL: 150n * M },
    lockUpsideBps: 10_000,
    ...over,
  });

  it('undoes the fill exactly', () => {
    expect(revertOutcome(filled())).toEqual({
      ok: true,
      cash: { taker: 13_045_000n, maker: -13n * M, feeAccount: -45_000n, price: 13n * M },
      taker: { total: 100n * M, locked: 0n },
      maker: { total: 1_000n * M, locked: 0n },
      feeAccount: { total: 0n, locked: 0n },
    });
  });

  it('undoes a sell', () => {
    const d = revertOutcome(
      filled({
        side: 'sell',
        price: 12n * M,
        taker: { balance: { total: 162_005_000n, locked: 150n * M }, positions: [{ ...legs[0], quantity: -M }] },
        maker: { balance: { total: 988n * M, locked: 0n }, positions: [{ ...legs[0] }] },
      }),
    );
    expect(d).toMatchObject({ ok: true, taker: { total: 150_050_000n, locked: 0n }, maker: { total: 1_000n * M, locked: 0n } });
  });

  it('refuses when the premium received has been withdrawn', () => {
    const d = revertOutcome(filled({ maker: { balance: { total: 160n * M, locked: 150n * M }, positions: [{ ...legs[0], quantity: -M }] } }));
    // maker after: total 147, lock 0 → fine; withdraw more and it is not
    expect(d.ok).toBe(true);
    const short = revertOutcome(filled({ maker: { balance: { total: 12n * M, locked: 0n }, positions: [{ ...legs[0], quantity: -M }] } }));
    expect(short).toMatchObject({ ok: false, message: expect.stringMatching(/maker's free balance/) });
  });

  it('refuses when the fee has been taken out of the fee account', () => {
    expect(revertOutcome(filled({ feeAccount: { total: 0n, locked: 0n } }))).toMatchObject({ ok: false, message: expect.stringMatching(/fee account/) });
  });

  it('refuses when the reverted long hedged a short written since', () => {
    // The taker holds the 150 call and wrote the 160 call against it (locked 0); reverting the long leaves a naked short.
    const taker = { balance: { total: 90n * M, locked: 0n }, positions: [{ ...legs[0] }, { ...legs[0], strike: 160n * M, quantity: -M }] };
    expect(revertOutcome(filled({ taker }))).toMatchObject({ ok: false, message: expect.stringMatching(/taker's free balance/) });
  });
});
