/**
 * Exact fixed-point decimals in micro-units (10^-6), held as bigint; no JavaScript `number` ever
 * holds money. docs/spec/design.md section 1: RFQ decimals (`RfqDecimal`, `RfqSignedDecimal`) are canonical
 * text with at most 6 fractional digits; HTTP amounts are output with exactly 8 fractional digits.
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
    super(`${describe(value)} is not a valid decimal (${fault.replace(/_/g, ' ')})`);
    this.name = 'DecimalError';
  }
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : `JSON ${value === null ? 'null' : typeof value}`;
}

const SIGNED = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;

/** Digits to micro-units; `fraction` has at most `places` digits, the result is exact. */
function toMicro(negative: boolean, whole: string, fraction: string | undefined, text: unknown): bigint {
  const frac = fraction ?? '';
  if (frac.length > 6) {
    if (/[1-9]/.test(frac.slice(6))) throw new DecimalError('too_precise', text);
  }
  const micro = BigInt(whole) * MICRO + BigInt((frac.slice(0, 6) + '000000').slice(0, 6));
  return negative ? -micro : micro;
}

/** RfqSignedDecimal: canonical text, at most 6 fractional digits, range [-(2^63-1), 2^63-1]. */
export function parseRfqSigned(text: unknown): bigint {
  if (typeof text !== 'string') throw new DecimalError('not_a_string', text);
  const m = SIGNED.exec(text);
  if (!m) throw new DecimalError('not_canonical', text);
  if (m[3] !== undefined && m[3].length > 6) throw new DecimalError('too_precise', text);
  const value = toMicro(m[1] === '-', m[2], m[3], text);
  if (m[1] === '-' && value === 0n) throw new DecimalError('not_canonical', text);
  if (value > I64_MAX || value < -I64_MAX) throw new DecimalError('out_of_range', text);
  return value;
}

/** RfqDecimal: as signed, but no sign at all. */
export function parseRfqUnsigned(text: unknown): bigint {
  if (typeof text === 'string' && text.startsWith('-')) throw new DecimalError('not_canonical', text);
  return parseRfqSigned(text);
}

/**
 * Shortest canonical RFQ form: "1.5", "0", "-2", "0.000001". Any bigint is written, so a message
 * can name a sum outside the RFQ range; {@link formatRfqInRange} is the checked form for the wire.
 */
export function formatRfq(micro: bigint): string {
  const negative = micro < 0n;
  const abs = negative ? -micro : micro;
  const whole = abs / MICRO;
  const frac = (abs % MICRO).toString().padStart(6, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${frac ? '.' + frac : ''}`;
}

/**
 * {@link formatRfq} for a value that must be a valid RFQ decimal (what the SDK sends).
 * @throws {RangeError} outside `[-(2^63 - 1), 2^63 - 1]` micro-units
 */
export function formatRfqInRange(micro: bigint): string {
  if (micro > I64_MAX || micro < -I64_MAX) throw new RangeError(`${micro} micro-units is outside the RFQ decimal range`);
  return formatRfq(micro);
}

/**
 * An RFQ decimal for the wire: a bigint of micro-units is formatted, a string is checked (signed)
 * and returned in canonical form.
 * @throws {DecimalError | RangeError}
 */
export function toRfqDecimal(value: bigint | string): string {
  return formatRfqInRange(typeof value === 'bigint' ? value : parseRfqSigned(value));
}

/** HTTP form: exactly 8 fractional digits ("12.50000000"). */
export function formatHttp(micro: bigint): string {
  const negative = micro < 0n;
  const abs = negative ? -micro : micro;
  return `${negative ? '-' : ''}${abs / MICRO}.${(abs % MICRO).toString().padStart(6, '0')}00`;
}

/**
 * HTTP input amount: a decimal string with up to 8 fractional digits, or (where `allowNumber`)
 * a finite JSON number written without exponent. The value must be representable in micro-units
 * (USDC has 6 decimals): "1.00000001" is refused, "1.00000000" is accepted.
 */
export function parseHttpAmount(value: unknown, opts: { allowNumber?: boolean; signed?: boolean } = {}): bigint {
  let text: string;
  if (typeof value === 'number' && opts.allowNumber) {
    if (!Number.isFinite(value)) throw new DecimalError('not_canonical', value);
    text = String(value);
    if (/e/i.test(text)) throw new DecimalError('not_canonical', value);
  } else if (typeof value === 'string') {
    text = value;
  } else {
    throw new DecimalError('not_a_string', value);
  }
  const m = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]{1,8}))?$/.exec(text);
  if (!m) {
    if (/^-?(0|[1-9][0-9]*)\.[0-9]{9,}$/.test(text)) throw new DecimalError('too_precise', value);
    throw new DecimalError('not_canonical', value);
  }
  if (m[1] === '-' && !opts.signed) throw new DecimalError('not_canonical', value);
  const micro = toMicro(m[1] === '-', m[2], m[3], value);
  if (m[1] === '-' && micro === 0n) throw new DecimalError('not_canonical', value);
  if (micro > I64_MAX || micro < -I64_MAX) throw new DecimalError('out_of_range', value);
  return micro;
}

/**
 * Reads an HTTP decimal as the server writes it (balances, positions, fills: a signed string with
 * up to 8 fractional digits, "12.50000000"); refuses a value not exact in micro-units.
 * @throws {DecimalError}
 */
export function parseHttpDecimal(text: unknown): bigint {
  return parseHttpAmount(text, { signed: true });
}

/** floor(a / b) for bigint with b > 0 (BigInt division truncates toward zero). */
export function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n ? q - 1n : q;
}

/** ceil(a / b) for bigint with b > 0. */
export function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a > 0n ? q + 1n : q;
}
