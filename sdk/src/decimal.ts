/**
 * Exact fixed-point decimals in micro-units (10^-6), held as `bigint` (design.md section 1).
 *
 * RFQ decimals (`RfqDecimal`, `RfqSignedDecimal`) travel as canonical strings with at most 6
 * fractional digits; HTTP money, price and quantity fields are strings with exactly 8. No
 * JavaScript `number` ever holds money in this SDK.
 */

/** 10^6: micro-units per unit (USDC and contracts have 6 decimals). */
export const MICRO = 1_000_000n;
/** 2^63 - 1, the largest signed 64-bit value (and the largest RFQ decimal in micro-units). */
export const I64_MAX = (1n << 63n) - 1n;
/** 2^64 - 1, the largest unsigned 64-bit value. */
export const U64_MAX = (1n << 64n) - 1n;

/** Why a decimal was refused. */
export type DecimalFault = 'not_a_string' | 'not_canonical' | 'too_precise' | 'out_of_range';

/** Thrown by every parser of this module for a value that is not an exact decimal of its kind. */
export class DecimalError extends Error {
  constructor(
    /** The reason. */
    readonly fault: DecimalFault,
    /** The refused value, as given. */
    readonly value: unknown,
  ) {
    super(`${typeof value === 'string' ? JSON.stringify(value) : `JSON ${value === null ? 'null' : typeof value}`} is not a valid decimal (${fault.replace(/_/g, ' ')})`);
    this.name = 'DecimalError';
  }
}

const DECIMAL = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;

function parse(text: unknown, maxPlaces: number, signed: boolean): bigint {
  if (typeof text !== 'string') throw new DecimalError('not_a_string', text);
  const m = DECIMAL.exec(text);
  if (!m) throw new DecimalError('not_canonical', text);
  const negative = m[1] === '-';
  if (negative && !signed) throw new DecimalError('not_canonical', text);
  const fraction = m[3] ?? '';
  if (fraction.length > maxPlaces) throw new DecimalError('too_precise', text);
  // Digits past the sixth (HTTP form only) must be zeros: the value has to be exact in micro-units.
  if (/[1-9]/.test(fraction.slice(6))) throw new DecimalError('too_precise', text);
  const abs = BigInt(m[2]) * MICRO + BigInt((fraction.slice(0, 6) + '000000').slice(0, 6));
  if (negative && abs === 0n) throw new DecimalError('not_canonical', text); // "-0", "-0.0"
  if (abs > I64_MAX) throw new DecimalError('out_of_range', text);
  return negative ? -abs : abs;
}

/**
 * Parses an `RfqSignedDecimal` ("1.5", "-0.000001") to micro-units. Refuses JSON numbers,
 * exponents, `+`, leading zeros, negative zero, more than 6 fractional digits, and values outside
 * `[-(2^63 - 1), 2^63 - 1]` micro-units. Trailing zeros ("1.50") are accepted.
 * @throws {DecimalError}
 */
export function parseRfqSigned(text: unknown): bigint {
  return parse(text, 6, true);
}

/**
 * Parses an `RfqDecimal` (no sign at all) to micro-units; otherwise as {@link parseRfqSigned}.
 * @throws {DecimalError}
 */
export function parseRfqUnsigned(text: unknown): bigint {
  return parse(text, 6, false);
}

/**
 * Micro-units to the shortest canonical RFQ form: `"1.5"`, `"0"`, `"-2"`, `"0.000001"`.
 * @throws {RangeError} outside the signed 64-bit range (minimum excluded)
 */
export function formatRfq(micro: bigint): string {
  if (micro > I64_MAX || micro < -I64_MAX) throw new RangeError(`${micro} micro-units is outside the RFQ decimal range`);
  const negative = micro < 0n;
  const abs = negative ? -micro : micro;
  const fraction = (abs % MICRO).toString().padStart(6, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${abs / MICRO}${fraction ? '.' + fraction : ''}`;
}

/** Micro-units to the HTTP form with exactly 8 fractional digits: `"12.50000000"`. */
export function formatHttp(micro: bigint): string {
  const negative = micro < 0n;
  const abs = negative ? -micro : micro;
  return `${negative ? '-' : ''}${abs / MICRO}.${(abs % MICRO).toString().padStart(6, '0')}00`;
}

/**
 * Reads an HTTP decimal (balances, positions, fills: up to 8 fractional digits, as
 * `"12.50000000"`) to micro-units. Refuses a value that is not exact in micro-units
 * (`"0.00000001"`), as the server does.
 * @throws {DecimalError}
 */
export function parseHttpDecimal(text: unknown): bigint {
  return parse(text, 8, true);
}

/**
 * An RFQ decimal for the wire: a `bigint` of micro-units is formatted, a string is checked
 * (signed) and returned in canonical form.
 * @throws {DecimalError | RangeError}
 */
export function toRfqDecimal(value: bigint | string): string {
  return formatRfq(typeof value === 'bigint' ? value : parseRfqSigned(value));
}
