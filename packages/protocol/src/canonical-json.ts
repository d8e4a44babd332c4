/**
 * RFC 8785 (JSON Canonicalization Scheme) for the values the exchange hashes or signs as JSON:
 * strings, integers, booleans, null, and objects and arrays of them (the admin audit log of
 * section 16, the RFQ transcript of section 18). Never a float: none of those objects holds one
 * (money is a decimal string), and refusing floats keeps the number rule to integers only.
 */

/** A UTF-16 surrogate without its pair: such a string has no UTF-8 form. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Object keys sorted by their UTF-16 code units, no whitespace, strings escaped as ECMAScript's
 * JSON.stringify escapes them (which is what RFC 8785 specifies), integers in their shortest
 * decimal form. A float, an unsafe integer, a string with a lone surrogate or any other type is
 * refused: it could not be written back the same way, and a hash over it would not be reproducible.
 */
export function canonicalJson(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isSafeInteger(value)) throw new Error(`not an integer canonical JSON can hold: ${value}`);
      return Object.is(value, -0) ? '0' : String(value);
    case 'string':
      if (value.search(LONE_SURROGATE) >= 0) throw new Error('a string with a lone surrogate has no UTF-8 form');
      return JSON.stringify(value);
    case 'object':
      if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
      return `{${Object.keys(value)
        .sort()
        .map((key) => `${canonicalJson(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
        .join(',')}}`;
    default:
      throw new Error(`a ${typeof value} has no JSON form`);
  }
}
