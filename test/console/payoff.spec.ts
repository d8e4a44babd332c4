import { payoffCurve, roundsOf, type PositionRow } from '../../console/src/payoff';
import { trimDecimal } from '../../console/src/money';

const position = (strike: string, kind: 'call' | 'put', quantity: string, asset = 'SOL', expiry = 1_800_000_000): PositionRow => ({
  instrument: `${asset}-X-${strike}-${kind === 'call' ? 'C' : 'P'}`,
  asset,
  strike,
  kind,
  expiry,
  quantity,
});

describe('console payoff at expiry', () => {
  it('groups positions by round, in expiry order', () => {
    const rounds = roundsOf([position('150', 'call', '1', 'SOL', 2), position('150', 'put', '1', 'ETH', 1), position('160', 'call', '-1', 'SOL', 2)]);
    expect(rounds.map((r) => [r.key, r.positions.length])).toEqual([
      ['ETH-1', 1],
      ['SOL-2', 2],
    ]);
  });

  it('a bought call spread pays 0 below the low strike, rises by the quantity, and is capped above the high strike', () => {
    const [round] = roundsOf([position('150', 'call', '10.00000000', 'SOL'), position('160', 'call', '-10.00000000', 'SOL')]);
    const { prices, payoffs } = payoffCurve(round, 321); // 0 … 320 in steps of 1
    const at = (price: number) => payoffs[prices.indexOf(price)];
    expect(at(0)).toBe(0);
    expect(at(150)).toBe(0);
    expect(at(155)).toBe(50);
    expect(at(160)).toBe(100);
    expect(at(320)).toBe(100);
  });

  it('a short put loses below its strike (negative payoff), in exact micro-units', () => {
    const [round] = roundsOf([position('2.5', 'put', '-0.000001')]);
    const { prices, payoffs } = payoffCurve(round, 6); // 0, 1, 2, 3, 4, 5
    expect(prices).toEqual([0, 1, 2, 3, 4, 5]);
    expect(payoffs[0]).toBe(-0.000002); // 2.5 * 0.000001 = 0.0000025, truncated to whole micro-units like the ledger
    expect(payoffs[5]).toBe(0);
  });

  it('shows a decimal exactly in its shortest form, and other text as it is', () => {
    expect(trimDecimal('1250.75000000')).toBe('1250.75');
    expect(trimDecimal('3.00000000')).toBe('3');
    expect(trimDecimal('-0.00000100')).toBe('-0.000001');
    expect(trimDecimal('9223372036854.77580700')).toBe('9223372036854.775807');
    expect(trimDecimal('n/a')).toBe('n/a');
    expect(trimDecimal(null)).toBe('—');
  });
});
