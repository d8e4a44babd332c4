import { formatRfq, parseRfqSigned, parseRfqUnsigned } from '@legwork/protocol';
import { loadVector } from '../../../../test/vectors';
import { legFee, maxFee, packageFee } from './fees';

const { fees } = loadVector('risk.json');

describe('taker fees (risk.json)', () => {
  for (const v of fees) {
    it(`q ${v.quantity} on ${v.index}, mark ${v.mark}: fee ${v.fee}, max ${v.max_fee_with_1pct}`, () => {
      const fee = legFee({
        quantity: parseRfqSigned(v.quantity),
        index: parseRfqUnsigned(v.index),
        mark: parseRfqUnsigned(v.mark),
        takerFeeBps: v.taker_fee_bps,
        tradeFeeCapBps: v.trade_fee_cap_bps,
      });
      expect(formatRfq(fee)).toBe(v.fee);
      expect(formatRfq(maxFee(fee, 100))).toBe(v.max_fee_with_1pct);
    });
  }
});

describe('fee rules', () => {
  const params = { takerFeeBps: 3, tradeFeeCapBps: 1250 };

  it('sums leg fees, each floored on its own', () => {
    const legs = fees.map((v: any) => ({
      quantity: parseRfqSigned(v.quantity),
      index: parseRfqUnsigned(v.index),
      mark: parseRfqUnsigned(v.mark),
    }));
    expect(formatRfq(packageFee(legs, params))).toBe('0.527499'); // 0.45 + 0.0625 + 0.014999
    expect(packageFee([], params)).toBe(0n);
  });

  it('floors the fee and rounds max_fee up; bigint bps work too', () => {
    // 1 micro-contract on 1 micro-unit: every fee floors to 0
    expect(legFee({ quantity: 1n, index: 1n, mark: 1n, ...params })).toBe(0n);
    expect(maxFee(0n, 100)).toBe(0n);
    expect(maxFee(1n, 100n)).toBe(2n);
    expect(maxFee(100n, 100)).toBe(101n);
    expect(legFee({ quantity: -10_000_000n, index: 150_000_000n, mark: 12_500_000n, takerFeeBps: 3n, tradeFeeCapBps: 1250n })).toBe(450_000n);
  });
});
