import { bigint, bigintColumn, wholeNumeric } from './columns';

describe('bigintColumn', () => {
  it('reads the database strings as bigint, without losing a digit, and keeps null', () => {
    expect(bigintColumn.from('18446744073709551615')).toBe(18446744073709551615n);
    expect(bigintColumn.from('-9223372036854775808')).toBe(-9223372036854775808n);
    expect(bigintColumn.from(null)).toBeNull();
  });

  it('writes bigint as its decimal string, and passes null and undefined through', () => {
    expect(bigintColumn.to(-9223372036854775808n)).toBe('-9223372036854775808');
    expect(bigintColumn.to(null)).toBeNull();
    expect(bigintColumn.to(undefined)).toBeUndefined();
  });
});

describe('column options', () => {
  it('bigint: NOT NULL unless nullable, the default only when given', () => {
    expect(bigint('total', { default: 0 })).toEqual({ name: 'total', type: 'bigint', transformer: bigintColumn, nullable: false, default: 0 });
    expect(bigint('ended_at', { nullable: true })).toEqual({ name: 'ended_at', type: 'bigint', transformer: bigintColumn, nullable: true });
  });

  it('wholeNumeric: precision with scale 0 when given, plain numeric otherwise', () => {
    expect(wholeNumeric('quote_nonce', { nullable: true, precision: 20 })).toEqual({
      name: 'quote_nonce',
      type: 'numeric',
      transformer: bigintColumn,
      nullable: true,
      precision: 20,
      scale: 0,
    });
    expect(wholeNumeric('worst')).toEqual({ name: 'worst', type: 'numeric', transformer: bigintColumn, nullable: false });
  });
});
