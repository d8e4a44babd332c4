import {
  DecimalError,
  I64_MAX,
  ceilDiv,
  floorDiv,
  formatHttp,
  formatRfq,
  formatRfqInRange,
  parseHttpAmount,
  parseHttpDecimal,
  parseRfqSigned,
  parseRfqUnsigned,
  toRfqDecimal,
} from '../src';
import { loadVector } from '../../../test/vectors';

const vectors: any = loadVector('decimals.json');

describe('RFQ decimals (vectors/decimals.json)', () => {
  it.each<any>(vectors.signed_valid.map((v: any) => [v.text, v.micro, v.canonical]))('parses signed %j', (text, micro, canonical) => {
    expect(parseRfqSigned(text)).toBe(BigInt(micro));
    expect(formatRfq(parseRfqSigned(text))).toBe(canonical);
  });

  it.each<any>(vectors.signed_invalid.map((v: any) => [v.text]))('refuses signed %j', (text) => {
    expect(() => parseRfqSigned(text)).toThrow(DecimalError);
    expect(() => parseRfqUnsigned(text)).toThrow(DecimalError);
  });

  it.each<any>(vectors.signed_invalid_json_values.map((v: unknown) => [v]))('refuses the JSON value %j', (value) => {
    expect(() => parseRfqSigned(value)).toThrow(expect.objectContaining({ fault: 'not_a_string' }));
    expect(() => parseRfqUnsigned(value)).toThrow(DecimalError);
  });

  it.each<any>(vectors.unsigned_valid.map((v: any) => [v.text, v.micro]))('parses unsigned %j', (text, micro) => {
    expect(parseRfqUnsigned(text)).toBe(BigInt(micro));
  });

  it.each<any>(vectors.unsigned_invalid.map((v: any) => [v.text]))('refuses unsigned %j', (text) => {
    expect(() => parseRfqUnsigned(text)).toThrow(DecimalError);
  });

  it.each<any>(vectors.http_8dp.map((v: any) => [v.text, v.http]))('formats %j for HTTP as %j', (text, http) => {
    expect(formatHttp(parseRfqSigned(text))).toBe(http);
  });

  it('names the fault: precision beyond 6 digits, off-pattern text', () => {
    expect(() => parseRfqSigned('1.0000001')).toThrow(expect.objectContaining({ fault: 'too_precise' }));
    expect(() => parseRfqSigned('1e3')).toThrow(expect.objectContaining({ fault: 'not_canonical' }));
    expect(() => parseRfqSigned(1)).toThrow(expect.objectContaining({ fault: 'not_a_string' }));
    expect(() => parseRfqSigned('9223372036854.775808')).toThrow(expect.objectContaining({ fault: 'out_of_range' }));
    expect(() => parseRfqSigned('-0')).toThrow(expect.objectContaining({ fault: 'not_canonical' }));
  });
});

describe('HTTP amounts', () => {
  it('accepts up to 8 digits when they fit micro-units', () => {
    expect(parseHttpAmount('1.50000000')).toBe(1_500_000n);
    expect(parseHttpAmount('0.000001')).toBe(1n);
    expect(parseHttpAmount(150, { allowNumber: true })).toBe(150_000_000n);
    expect(parseHttpAmount(0.02, { allowNumber: true })).toBe(20_000n);
  });
  it('refuses what is not representable or not a decimal', () => {
    expect(() => parseHttpAmount('1.00000001')).toThrow(DecimalError);
    expect(() => parseHttpAmount('1.000000001')).toThrow(DecimalError);
    expect(() => parseHttpAmount(150)).toThrow(DecimalError);
    expect(() => parseHttpAmount('-1')).toThrow(DecimalError);
    expect(parseHttpAmount('-1', { signed: true })).toBe(-1_000_000n);
    expect(() => parseHttpAmount(1e21, { allowNumber: true })).toThrow(DecimalError);
  });
});

describe('rounding division', () => {
  it('floors and ceils for both signs', () => {
    expect(floorDiv(7n, 2n)).toBe(3n);
    expect(floorDiv(-7n, 2n)).toBe(-4n);
    expect(ceilDiv(7n, 2n)).toBe(4n);
    expect(ceilDiv(-7n, 2n)).toBe(-3n);
    expect(ceilDiv(6n, 2n)).toBe(3n);
  });
});

describe('the forms the SDK sends and reads', () => {
  it.each<any>(vectors.signed_valid.map((v: any) => [v.text, v.canonical]))('writes %j canonically as %j', (text, canonical) => {
    expect(toRfqDecimal(text)).toBe(canonical);
    expect(formatRfqInRange(parseRfqSigned(text))).toBe(canonical);
  });
  it.each<any>(vectors.http_8dp.map((v: any) => [v.text, v.http]))('reads the HTTP form of %j back (%j)', (text, http) => {
    expect(parseHttpDecimal(http)).toBe(parseRfqSigned(text));
  });
  it('refuses to write a value outside the RFQ range, which formatRfq writes for messages', () => {
    expect(() => formatRfqInRange(-I64_MAX - 1n)).toThrow(RangeError);
    expect(() => toRfqDecimal(I64_MAX + 1n)).toThrow(RangeError);
    expect(formatRfq(-I64_MAX - 1n)).toBe('-9223372036854.775808');
    expect(toRfqDecimal(-2_000_000n)).toBe('-2');
  });
  it('refuses an HTTP value that is not exact in micro-units, a number, or 9 places', () => {
    expect(() => parseHttpDecimal('0.00000001')).toThrow(expect.objectContaining({ fault: 'too_precise' }));
    expect(() => parseHttpDecimal('1.000000000')).toThrow(DecimalError);
    expect(() => parseHttpDecimal(1)).toThrow(expect.objectContaining({ fault: 'not_a_string', value: 1 }));
    expect(parseHttpDecimal('-1.00000000')).toBe(-1_000_000n);
  });
});
