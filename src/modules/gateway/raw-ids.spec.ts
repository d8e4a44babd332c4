import { isIntegerToken, rawIdTokens } from './raw-ids';

describe('rawIdTokens', () => {
  it('reads the last id member of a request, skipping strings, escapes and nested ids', () => {
    expect(rawIdTokens('{"a":"}\\"id\\":1","params":{"id":[{"id":2}]},"id":123456789012345678901}')).toEqual(['123456789012345678901']);
    expect(rawIdTokens(' { "id" : 1 , "\\u0069d" : 98765432109876543210 } ')).toEqual(['98765432109876543210']);
    expect(rawIdTokens('[{"id":"x"}, 5, [ {"id":1} ], {"method":"m"}, {"id": -12345678901234567890}]')).toEqual([
      '"x"',
      undefined,
      undefined,
      undefined,
      '-12345678901234567890',
    ]);
    expect(rawIdTokens('"text"')).toEqual([]);
  });
  it('skips deep nesting without recursion', () => {
    const deep = '['.repeat(100000) + ']'.repeat(100000);
    expect(rawIdTokens(`{"params":${deep},"id":1}`)).toEqual(['1']);
  });
});

describe('isIntegerToken', () => {
  it.each([
    ['12345678901234567890', true],
    ['-12345678901234567890', true],
    ['1.5e300', true],
    ['123456789012345678900e-2', true],
    ['12345678901234567890.0', true],
    ['12345678901234567890.5', false],
    ['1234567890123456789012e-5', false],
  ])('%s: %s', (token, integer) => {
    expect(isIntegerToken(token)).toBe(integer);
  });
});
