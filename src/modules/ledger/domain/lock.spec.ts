import { formatRfq, parseRfqSigned, parseRfqUnsigned } from '@legwork/protocol';
import { loadVector } from '../../../../test/vectors';
import { type LockPosition, groupLock, netPositions, portfolioLock } from './lock';

const { locks } = loadVector('risk.json');
const u = parseRfqUnsigned;
const EXPIRY = 1798358400;

const toPositions = (v: any, asset = 'SOL', expiry = EXPIRY): LockPosition[] =>
  v.positions.map((p: any) => ({ asset, expiry, strike: u(p.strike), kind: p.kind, quantity: parseRfqSigned(p.qty) }));

describe('portfolio locks (risk.json)', () => {
  for (const v of locks) {
    it(`${v.name}: lock ${v.lock}`, () => {
      const lock = portfolioLock(toPositions(v), { indexByAsset: { SOL: u(v.index) }, lockUpsideBps: v.lock_upside_bps });
      expect(formatRfq(lock)).toBe(v.lock);
    });
  }
});

describe('lock rules', () => {
  it('sums independent (asset, expiry) groups', () => {
    const [shortCall, shortPut] = locks;
    const positions = [...toPositions(shortCall, 'SOL', EXPIRY), ...toPositions(shortPut, 'SOL', EXPIRY + 86_400), ...toPositions(shortCall, 'BTC', EXPIRY)];
    const indexByAsset = new Map([
      ['SOL', u('150')],
      ['BTC', u('150')],
    ]);
    expect(formatRfq(portfolioLock(positions, { indexByAsset, lockUpsideBps: 10_000 }))).toBe('580'); // 150 + 280 + 150
  });

  it('nets positions within a group (a covered call locks nothing)', () => {
    const p = (strike: string, quantity: string): LockPosition => ({
      asset: 'SOL',
      expiry: EXPIRY,
      strike: u(strike),
      kind: 'call',
      quantity: parseRfqSigned(quantity),
    });
    expect(portfolioLock([p('150', '-1'), p('150', '1')], { indexByAsset: {}, lockUpsideBps: 10_000 })).toBe(0n);
    expect(portfolioLock([], { indexByAsset: {}, lockUpsideBps: 10_000 })).toBe(0n);
  });

  it('stresses up to max(index, highest strike) * (1 + bps)', () => {
    const short = [{ strike: u('150'), kind: 'call' as const, quantity: -1_000_000n }];
    expect(formatRfq(groupLock(short, u('200'), 10_000))).toBe('250'); // U = 400
    expect(formatRfq(groupLock(short, u('100'), 5_000))).toBe('75'); // U = 225
    expect(formatRfq(groupLock(short, undefined, 10_000))).toBe('150'); // no index: U = 300
  });

  it('rounds a fractional lock up, never down', () => {
    // short 0.000001 call at 150
    const short = [{ strike: u('150'), kind: 'call' as const, quantity: -1n }];
    expect(groupLock(short, u('150'), 10_000)).toBe(150n); // U = 300: 150 micro-units, exact
    expect(groupLock(short, u('150'), 1)).toBe(1n); // U = 150.015: 0.015 micro-units -> 1
    expect(groupLock([{ strike: u('0.5'), kind: 'put', quantity: -333_333n }], u('1'), 10_000)).toBe(166_667n); // 0.1666665 -> 0.166667
  });
});

describe('netting before the lock', () => {
  const p = (strike: string, quantity: string, kind: 'call' | 'put' = 'call'): LockPosition => ({
    asset: 'SOL',
    expiry: EXPIRY,
    strike: u(strike),
    kind,
    quantity: parseRfqSigned(quantity),
  });

  it('netPositions sums entries of one instrument and drops zeros', () => {
    expect(netPositions([p('150', '-1'), p('160', '2'), p('160', '-2'), p('150', '0.5'), p('150', '1', 'put')])).toEqual([
      p('150', '-0.5'),
      p('150', '1', 'put'),
    ]);
  });

  it('a closed position does not leave its strike in the stress points (U)', () => {
    // short 150 call, plus a 200 call bought and sold: U stays max(150, 150) * 2 = 300, not 400
    const closed = [p('150', '-1'), p('200', '1'), p('200', '-1')];
    expect(formatRfq(portfolioLock(closed, { indexByAsset: { SOL: u('150') }, lockUpsideBps: 10_000 }))).toBe('150');
    expect(portfolioLock(closed, { indexByAsset: { SOL: u('150') }, lockUpsideBps: 10_000 })).toBe(
      portfolioLock([p('150', '-1')], { indexByAsset: { SOL: u('150') }, lockUpsideBps: 10_000 }),
    );
  });
});
