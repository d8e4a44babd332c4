import { settlementPayments, type SettlingPosition } from './settlement';

const M = 1_000_000n;
const pos = (accountId: number, quantity: bigint, over: Partial<SettlingPosition> = {}): SettlingPosition => ({
  accountId,
  instrument: 'SOL-27DEC26-150-C',
  kind: 'call',
  strike: 150n * M,
  quantity,
  ...over,
});
const total = (p: Array<{ amount: bigint }>) => p.reduce((s, x) => s + x.amount, 0n);

describe('settlementPayments', () => {
  it('one short pays floor(|q| * intrinsic) to one long, exactly', () => {
    const p = settlementPayments([pos(1, -1_500_000n), pos(2, 1_500_000n)], 160n * M + 333_333n);
    // intrinsic 10.333333 × 1.5 = 15.4999995 → floor 15.499999
    expect(p).toEqual([
      { accountId: 1, instrument: 'SOL-27DEC26-150-C', quantity: -1_500_000n, amount: -15_499_999n },
      { accountId: 2, instrument: 'SOL-27DEC26-150-C', quantity: 1_500_000n, amount: 15_499_999n },
    ]);
  });

  it('puts pay below the strike; out of the money pays nothing', () => {
    const put = { instrument: 'SOL-27DEC26-140-P', kind: 'put' as const, strike: 140n * M };
    expect(settlementPayments([pos(1, -2n * M, put), pos(2, 2n * M, put)], 130n * M).map((x) => x.amount)).toEqual([-20n * M, 20n * M]);
    expect(settlementPayments([pos(1, -2n * M, put), pos(2, 2n * M, put)], 150n * M).map((x) => x.amount)).toEqual([0n, 0n]);
  });

  it('several longs share exactly what the shorts pay; leftover micro-units go to the largest remainders', () => {
    // intrinsic 0.5 per contract; shorts of 1 and 2 micro-contracts pay floor(0.5) = 0 and floor(1) = 1
    const p = settlementPayments([pos(7, -1n), pos(8, -2n), pos(3, 1n), pos(4, 1n), pos(5, 1n)], 150n * M + 500_000n);
    expect(p.filter((x) => x.amount < 0n).map((x) => x.amount)).toEqual([-1n]);
    expect(total(p)).toBe(0n);
    // pool 1 over three equal longs: the first by account id takes it
    expect(p.filter((x) => x.quantity > 0n)).toEqual([
      expect.objectContaining({ accountId: 3, amount: 1n }),
      expect.objectContaining({ accountId: 4, amount: 0n }),
      expect.objectContaining({ accountId: 5, amount: 0n }),
    ]);
  });

  it('pro rata with remainders, always zero-sum', () => {
    const p = settlementPayments([pos(1, -7n * M), pos(2, 3n * M), pos(3, 4n * M)], 150n * M + 1_000_001n);
    expect(total(p)).toBe(0n);
    const paid = -p[0].amount;
    expect(paid).toBe(7_000_007n);
    expect(p.slice(1).map((x) => x.amount)).toEqual([3_000_003n, 4_000_004n]);
  });

  it('settles every instrument of the round separately and skips zero positions', () => {
    const put = { instrument: 'SOL-27DEC26-160-P', kind: 'put' as const, strike: 160n * M };
    const p = settlementPayments([pos(1, -M), pos(2, M), pos(1, M, put), pos(2, -M, put), pos(9, 0n)], 155n * M);
    expect(p.map((x) => [x.accountId, x.instrument, x.amount])).toEqual([
      [1, 'SOL-27DEC26-150-C', -5n * M],
      [2, 'SOL-27DEC26-150-C', 5n * M],
      [2, 'SOL-27DEC26-160-P', -5n * M],
      [1, 'SOL-27DEC26-160-P', 5n * M],
    ]);
  });

  it('refuses an unbalanced instrument and a negative price', () => {
    expect(() => settlementPayments([pos(1, -M), pos(2, 2n * M)], 150n * M)).toThrow(/net to zero/);
    expect(() => settlementPayments([], -1n)).toThrow(RangeError);
  });
});
