import { parseRfqSigned, parseRfqUnsigned } from '@legwork/protocol';
import type { OptionKind } from '../../instruments/domain/symbol';
import { type FundingInput, type FundingLeg, fundingRequirement, fundingSides, fundingView } from './funding';
import type { LockPosition } from './lock';

const u = parseRfqUnsigned;
const s = parseRfqSigned;
const EXPIRY = 1798358400;

const leg = (strike: string, kind: OptionKind, quantity: string, mark: string): FundingLeg => ({
  asset: 'SOL',
  expiry: EXPIRY,
  strike: u(strike),
  kind,
  quantity: s(quantity),
  index: u('150'),
  mark: u(mark),
});
const position = (asset: string, strike: string, kind: OptionKind, quantity: string): LockPosition => ({
  asset,
  expiry: EXPIRY,
  strike: u(strike),
  kind,
  quantity: s(quantity),
});

function view(over: Partial<FundingInput>): FundingInput {
  return {
    anchored: true,
    freeBalance: u('100'),
    currentLocked: 0n,
    positions: [],
    legs: [leg('150', 'call', '1', '13.694767')],
    bid: u('13.6'),
    ask: u('13.7'),
    takerFeeBps: 3,
    tradeFeeCapBps: 1250,
    takerFeeToleranceBps: 100,
    lockUpsideBps: 10_000,
    indexByAsset: { SOL: u('150') },
    ...over,
  };
}

describe('funding requirement', () => {
  it('buyer, not a writer: premium plus max fee, no lock', () => {
    expect(fundingRequirement(view({}), 'buy')).toEqual({
      required: u('13.74545'),
      estimate: false,
      funded: true,
      package_cash_delta: s('-13.7'),
      cash_debit: u('13.7'),
      fee: u('0.045'), // min(150 * 3 bp, 13.694767 * 12.5 %)
      max_fee: u('0.04545'),
      writer: false,
      lock_increase: 0n,
      post_fill_locked: 0n,
    });
  });

  it('seller of a call is a writer: receives the bid, the lock grows', () => {
    expect(fundingRequirement(view({}), 'sell')).toEqual({
      required: u('150.04545'),
      estimate: false,
      funded: false, // 100 < 150.04545
      package_cash_delta: u('13.6'),
      cash_debit: 0n,
      fee: u('0.045'),
      max_fee: u('0.04545'),
      writer: true,
      lock_increase: u('150'),
      post_fill_locked: u('150'),
    });
    expect(fundingRequirement(view({ freeBalance: u('150.04545') }), 'sell').funded).toBe(true);
  });

  it('a spread that shorts the lower strike locks the width; a negative ask is cash in', () => {
    const spread = view({ legs: [leg('150', 'call', '-1', '13.694767'), leg('160', 'call', '1', '9.5')], ask: s('-3'), bid: s('-3.2') });
    const buy = fundingRequirement(spread, 'buy');
    expect(buy.package_cash_delta).toBe(u('3'));
    expect(buy.cash_debit).toBe(0n);
    expect(buy.fee).toBe(u('0.09')); // two legs of 0.045
    expect(buy.max_fee).toBe(u('0.0909'));
    expect(buy.writer).toBe(true);
    expect(buy.post_fill_locked).toBe(u('10'));
    expect(buy.lock_increase).toBe(u('10'));
    expect(buy.required).toBe(u('10.0909'));
    const sell = fundingRequirement(spread, 'sell'); // long the 150, short the 160: capped loss is 0
    expect(sell.package_cash_delta).toBe(s('-3.2'));
    expect(sell.cash_debit).toBe(u('3.2'));
    expect(sell.writer).toBe(true);
    expect(sell.post_fill_locked).toBe(0n);
    expect(sell.lock_increase).toBe(0n);
    expect(sell.required).toBe(u('3.2909'));
  });

  it("writer is about the legs' instruments after the fill, and the lock covers the whole portfolio", () => {
    const existing = [position('SOL', '150', 'call', '-1'), position('BTC', '100000', 'call', '-1')];
    const base = { positions: existing, currentLocked: u('100150'), indexByAsset: { SOL: u('150'), BTC: u('100000') }, freeBalance: u('1000') };
    // buying the 160 call over a short 150 call: short remains, but not in a leg's instrument
    const cover = fundingRequirement(view({ ...base, legs: [leg('160', 'call', '1', '9.5')] }), 'buy');
    expect(cover.writer).toBe(false);
    expect(cover.post_fill_locked).toBe(u('100010'));
    expect(cover.lock_increase).toBe(0n);
    // selling one more 150 call: short 2, the SOL group lock doubles
    const more = fundingRequirement(view(base), 'sell');
    expect(more.writer).toBe(true);
    expect(more.post_fill_locked).toBe(u('100300'));
    expect(more.lock_increase).toBe(u('150'));
    // buying the 150 call back closes the short: not a writer, the lock falls
    const close = fundingRequirement(view(base), 'buy');
    expect(close.writer).toBe(false);
    expect(close.post_fill_locked).toBe(u('100000'));
  });

  it('estimate and funded flags', () => {
    const never = view({ anchored: false, freeBalance: null });
    const buy = fundingRequirement(never, 'buy');
    const sell = fundingRequirement(never, 'sell');
    expect([buy.estimate, buy.funded]).toEqual([false, false]); // not a writer: exact, but no anchor
    expect([sell.estimate, sell.funded]).toEqual([true, false]); // writer over a never-anchored portfolio
    const poor = fundingRequirement(view({ freeBalance: u('13.745449') }), 'buy');
    expect([poor.estimate, poor.funded]).toEqual([false, false]);
    const exact = fundingRequirement(view({ freeBalance: u('13.74545') }), 'buy');
    expect([exact.estimate, exact.funded]).toEqual([false, true]);
  });
});

describe('funding view (RfqTakerFunding wire form)', () => {
  it("formats every decimal as an RFQ string, in the contract's fields only", () => {
    const wire = fundingView(view({}));
    expect(wire).toEqual({
      anchored: true,
      free_balance: '100',
      buy: {
        required: '13.74545',
        estimate: false,
        funded: true,
        package_cash_delta: '-13.7',
        cash_debit: '13.7',
        fee: '0.045',
        max_fee: '0.04545',
        writer: false,
        lock_increase: '0',
        post_fill_locked: '0',
      },
      sell: {
        required: '150.04545',
        estimate: false,
        funded: false,
        package_cash_delta: '13.6',
        cash_debit: '0',
        fee: '0.045',
        max_fee: '0.04545',
        writer: true,
        lock_increase: '150',
        post_fill_locked: '150',
      },
    });
    expect(JSON.parse(JSON.stringify(wire))).toEqual(wire);
  });

  it('a side without a price is null; an unanchored account has a null free balance', () => {
    const sides = fundingSides(view({ bid: null }));
    expect(sides.sell).toBeNull();
    expect(sides.buy?.required).toBe(u('13.74545'));
    const wire = fundingView(view({ anchored: false, freeBalance: null, ask: null }));
    expect(wire.free_balance).toBeNull();
    expect(wire.buy).toBeNull();
    expect(wire.sell?.estimate).toBe(true);
  });
});
