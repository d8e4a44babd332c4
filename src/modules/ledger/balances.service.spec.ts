import { AppError } from '../../common/errors/app-error';
import { I64_MAX } from '@legwork/protocol';
import { balanceViewOf, parseTransferRequest, totalAfterTransfer } from './balances.service';

const conflict = (message: RegExp) => expect.objectContaining({ code: 'CONFLICT', message: expect.stringMatching(message) });

describe('parseTransferRequest', () => {
  it('takes HTTP amounts exactly, in micro-units', () => {
    expect(parseTransferRequest({ amount: '1', reference: 'r' })).toEqual({ amount: 1_000_000n, reference: 'r' });
    expect(parseTransferRequest({ amount: '0.000001', reference: 'r' }).amount).toBe(1n);
    expect(parseTransferRequest({ amount: '12.34567800', reference: 'r' }).amount).toBe(12_345_678n);
    expect(parseTransferRequest({ amount: '9223372036854.775807', reference: 'r' }).amount).toBe(I64_MAX);
  });

  it.each([
    ['0', /greater than zero/],
    ['0.00000000', /greater than zero/],
    ['-1', /amount/],
    ['1.00000001', /too precise/],
    ['1.000000001', /too precise/],
    ['1e3', /amount/],
    ['01', /amount/],
    ['', /amount/],
    ['9223372036854.775808', /out of range/],
  ])('refuses amount %j', (amount, message) => {
    expect(() => parseTransferRequest({ amount, reference: 'r' })).toThrow(message);
    expect(() => parseTransferRequest({ amount, reference: 'r' })).toThrow(AppError);
  });

  it('refuses a JSON number as amount', () => {
    expect(() => parseTransferRequest({ amount: 1, reference: 'r' })).toThrow(/amount/);
  });

  it('takes a reference of 1 to 128 characters', () => {
    expect(parseTransferRequest({ amount: '1', reference: 'x'.repeat(128) }).reference).toHaveLength(128);
    for (const reference of ['', 'x'.repeat(129), 7, null, undefined]) {
      expect(() => parseTransferRequest({ amount: '1', reference })).toThrow(/reference must be a string of 1 to 128 characters/);
    }
  });
});

describe('totalAfterTransfer', () => {
  it('a deposit adds, also to an account with no ledger row yet', () => {
    expect(totalAfterTransfer(null, 'deposit', 5n)).toBe(5n);
    expect(totalAfterTransfer({ total: 10n, locked: 3n }, 'deposit', 5n)).toBe(15n);
  });

  it('a deposit may not take the total out of the bigint range', () => {
    expect(totalAfterTransfer({ total: I64_MAX - 1n, locked: 0n }, 'deposit', 1n)).toBe(I64_MAX);
    expect(() => totalAfterTransfer({ total: I64_MAX, locked: 0n }, 'deposit', 1n)).toThrow(conflict(/out of range/));
  });

  it('a withdrawal takes free balance down to exactly zero, not below', () => {
    expect(totalAfterTransfer({ total: 10n, locked: 3n }, 'withdrawal', 7n)).toBe(3n);
    expect(() => totalAfterTransfer({ total: 10n, locked: 3n }, 'withdrawal', 8n)).toThrow(
      conflict(/insufficient free balance: 0.00000700 available, 0.00000800 asked/),
    );
  });

  it('a withdrawal from an account never anchored, or with more locked than total, is refused', () => {
    expect(() => totalAfterTransfer(null, 'withdrawal', 1n)).toThrow(conflict(/insufficient/));
    expect(() => totalAfterTransfer({ total: 5n, locked: 9n }, 'withdrawal', 1n)).toThrow(conflict(/under-collateralized \(available -0.00000400\)/));
  });

  it('a deposit to a negative total (a settlement debt) repays it first: the total rises by the amount', () => {
    expect(totalAfterTransfer({ total: -30n, locked: 0n }, 'deposit', 20n)).toBe(-10n);
    expect(totalAfterTransfer({ total: -10n, locked: 0n }, 'deposit', 25n)).toBe(15n);
    expect(() => totalAfterTransfer({ total: -10n, locked: 0n }, 'withdrawal', 1n)).toThrow(conflict(/under-collateralized/));
  });

  it('balanceViewOf writes a negative available and total with a minus sign', () => {
    const row = balanceViewOf(1, { total: -1_500_000n, locked: 250_000n, updatedAt: new Date(0) }, new Date(0));
    expect([row.total, row.locked, row.available]).toEqual(['-1.50000000', '0.25000000', '-1.75000000']);
  });
});

describe('balanceViewOf', () => {
  const created = new Date('2026-01-02T03:04:05.678Z');

  it('formats the ledger row with 8 dp and available = total - locked', () => {
    const updatedAt = new Date('2026-02-01T00:00:00Z');
    expect(balanceViewOf(7, { total: 12_500_000n, locked: 2_000_001n, updatedAt }, created)).toEqual({
      account_id: 7,
      currency: 'USDC',
      available: '10.49999900',
      locked: '2.00000100',
      total: '12.50000000',
      updated_at: '2026-02-01T00:00:00.000Z',
    });
  });

  it('is a zero row as of the account creation when the account was never anchored', () => {
    expect(balanceViewOf(3, null, created)).toEqual({
      account_id: 3,
      currency: 'USDC',
      available: '0.00000000',
      locked: '0.00000000',
      total: '0.00000000',
      updated_at: '2026-01-02T03:04:05.678Z',
    });
  });

  it('shows a negative free balance as it is', () => {
    expect(balanceViewOf(1, { total: 1n, locked: 2n, updatedAt: created }, created).available).toBe('-0.00000100');
  });
});
