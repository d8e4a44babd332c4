import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DecimalError, formatHttp, formatRfq, parseHttpDecimal, parseRfqSigned, parseRfqUnsigned, toRfqDecimal } from '../src/index';
import { loadVector } from './vectors';

const v = loadVector('decimals.json');

describe('decimals.json: signed_valid', () => {
  for (const c of v.signed_valid) {
    it(`parses ${JSON.stringify(c.text)} to ${c.micro} and formats ${c.canonical}`, () => {
      assert.equal(parseRfqSigned(c.text), BigInt(c.micro));
      assert.equal(formatRfq(BigInt(c.micro)), c.canonical);
      assert.equal(toRfqDecimal(c.text), c.canonical);
    });
  }
});

describe('decimals.json: signed_invalid', () => {
  for (const c of v.signed_invalid) {
    it(`refuses ${JSON.stringify(c.text)}`, () => {
      assert.throws(() => parseRfqSigned(c.text), DecimalError);
      assert.throws(() => parseRfqUnsigned(c.text), DecimalError);
    });
  }
});

describe('decimals.json: signed_invalid_json_values', () => {
  for (const value of v.signed_invalid_json_values) {
    it(`refuses JSON ${JSON.stringify(value)}`, () => {
      assert.throws(() => parseRfqSigned(value), (e: unknown) => e instanceof DecimalError && e.fault === 'not_a_string');
      assert.throws(() => parseRfqUnsigned(value), DecimalError);
    });
  }
});

describe('decimals.json: unsigned', () => {
  for (const c of v.unsigned_valid) {
    it(`parses ${JSON.stringify(c.text)} to ${c.micro}`, () => assert.equal(parseRfqUnsigned(c.text), BigInt(c.micro)));
  }
  for (const c of v.unsigned_invalid) {
    it(`refuses ${JSON.stringify(c.text)}`, () => assert.throws(() => parseRfqUnsigned(c.text), DecimalError));
  }
});

describe('decimals.json: http_8dp', () => {
  for (const c of v.http_8dp) {
    it(`formats ${c.text} as ${c.http} and reads it back`, () => {
      const micro = parseRfqSigned(c.text);
      assert.equal(formatHttp(micro), c.http);
      assert.equal(parseHttpDecimal(c.http), micro);
    });
  }
  it('refuses an HTTP value that is not exact in micro-units, or has 9 places', () => {
    assert.throws(() => parseHttpDecimal('0.00000001'), (e: unknown) => e instanceof DecimalError && e.fault === 'too_precise');
    assert.throws(() => parseHttpDecimal('1.000000000'), DecimalError);
    assert.equal(parseHttpDecimal('1.00000000'), 1_000_000n);
  });
});

describe('decimal edges', () => {
  it('gives the fault of each refusal', () => {
    const fault = (text: unknown) => {
      try {
        parseRfqSigned(text);
      } catch (e) {
        return (e as DecimalError).fault;
      }
      return 'accepted';
    };
    assert.equal(fault('1.0000001'), 'too_precise');
    assert.equal(fault('9223372036854.775808'), 'out_of_range');
    assert.equal(fault('-0'), 'not_canonical');
    assert.equal(fault(1), 'not_a_string');
  });
  it('formats bigint micro-units and refuses them out of range', () => {
    assert.equal(toRfqDecimal(-2_000_000n), '-2');
    assert.throws(() => formatRfq(-(1n << 63n)), RangeError);
  });
});
