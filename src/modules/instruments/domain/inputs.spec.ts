import { MAX_EXPIRY, parseAsset, parsePositiveAmount, parseUnixSeconds } from './inputs';
import { invalidParamsMessage as problem } from '../../../../test/invalid-params';

describe('parseAsset', () => {
  it('takes the asset pattern and names the field', () => {
    expect(parseAsset('SOL')).toBe('SOL');
    expect(problem(() => parseAsset('sol'))).toMatch(/^asset must match/);
    expect(problem(() => parseAsset(undefined))).toBe('asset must be a string');
    expect(problem(() => parseAsset(5, 'params.asset'))).toBe('params.asset must be a string');
  });
});

describe('parseUnixSeconds', () => {
  it('takes integers of unix seconds up to 2099', () => {
    expect(parseUnixSeconds(1798358400, 'expiration')).toBe(1798358400);
    expect(parseUnixSeconds(MAX_EXPIRY - 1, 'expiration')).toBe(MAX_EXPIRY - 1);
    for (const bad of [1.5, '1798358400', null, -1, MAX_EXPIRY, Number.MAX_SAFE_INTEGER + 2, NaN]) {
      expect(problem(() => parseUnixSeconds(bad, 'expiration'))).toMatch(/^expiration must be/);
    }
  });
});

describe('parsePositiveAmount', () => {
  it('takes decimal strings, and JSON numbers where allowed, exactly', () => {
    expect(parsePositiveAmount('150', 'spot_price')).toBe(150_000_000n);
    expect(parsePositiveAmount('0.000001', 'spot_price')).toBe(1n);
    expect(parsePositiveAmount('1.50000000', 'spot_price')).toBe(1_500_000n);
    expect(parsePositiveAmount(152.5, 'spot_price', { allowNumber: true })).toBe(152_500_000n);
  });

  it('refuses zero, negatives, exponents, extra precision and wrong types, naming the field', () => {
    expect(problem(() => parsePositiveAmount('0', 'spot_price'))).toBe('spot_price must be greater than 0');
    expect(problem(() => parsePositiveAmount(0, 'spot_price', { allowNumber: true }))).toBe('spot_price must be greater than 0');
    expect(problem(() => parsePositiveAmount('1e3', 'spot_price', { allowNumber: true }))).toMatch(/^spot_price: "1e3" is not a valid decimal/);
    expect(problem(() => parsePositiveAmount(1e21, 'spot_price', { allowNumber: true }))).toMatch(/^spot_price: /);
    expect(problem(() => parsePositiveAmount('-1', 'spot_price'))).toMatch(/^spot_price: /);
    expect(problem(() => parsePositiveAmount('1.0000001', 'spot_price'))).toMatch(/too precise/);
    expect(problem(() => parsePositiveAmount(150, 'strikes[0]'))).toBe('strikes[0] must be a decimal string');
    expect(problem(() => parsePositiveAmount(true, 'spot_price', { allowNumber: true }))).toBe('spot_price must be a decimal string or number');
  });
});
