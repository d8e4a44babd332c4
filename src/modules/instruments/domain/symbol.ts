/**
 * Instrument symbols (docs/spec/design.md section 2): `<ASSET>-<DDMMMYY>-<STRIKE>-<C|P>`, e.g. `SOL-27DEC26-152.5-C`.
 * The date is the UTC date of the expiry; STRIKE is the strike in the shortest RFQ form.
 */
import { ASSET_PATTERN, formatRfq, parseRfqUnsigned } from '@legwork/protocol';

import type { OptionKind } from '@legwork/protocol';

export type { OptionKind };
export { ASSET_PATTERN };
const SYMBOL_MAX_BYTES = 32;

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] as const;
const SYMBOL = new RegExp(`^([A-Z][A-Z0-9]{1,7})-([0-9]{2})(${MONTHS.join('|')})([0-9]{2})-((?:0|[1-9][0-9]*)(?:\\.[0-9]{1,6})?)-([CP])$`);

export interface SymbolTerms {
  asset: string;
  /** unix seconds */
  expiry: number;
  /** micro-units */
  strike: bigint;
  kind: OptionKind;
}

export interface ParsedSymbol {
  asset: string;
  /** `DDMMMYY`, the UTC date of the expiry */
  date: string;
  strike: bigint;
  kind: OptionKind;
}

function utcDate(expiry: number): Date {
  if (!Number.isSafeInteger(expiry)) throw new RangeError(`expiry ${expiry} is not an integer of unix seconds`);
  return new Date(expiry * 1000);
}

/** `DDMMMYY` of the UTC date of `expiry` (unix seconds). */
export function symbolDate(expiry: number): string {
  const d = utcDate(expiry);
  const day = String(d.getUTCDate()).padStart(2, '0');
  const year = String(d.getUTCFullYear() % 100).padStart(2, '0');
  return `${day}${MONTHS[d.getUTCMonth()]}${year}`;
}

/** `YYYY-MM-DD`: the key of the one-expiration-per-UTC-date rule. */
export function utcDateKey(expiry: number): string {
  return utcDate(expiry).toISOString().slice(0, 10);
}

/** Throws RangeError on a bad asset, a non-positive strike or a symbol longer than 32 bytes. */
export function formatSymbol({ asset, expiry, strike, kind }: SymbolTerms): string {
  if (!ASSET_PATTERN.test(asset)) throw new RangeError(`asset ${JSON.stringify(asset)} does not match ${ASSET_PATTERN}`);
  if (strike <= 0n) throw new RangeError('strike must be positive');
  const symbol = `${asset}-${symbolDate(expiry)}-${formatRfq(strike)}-${kind === 'call' ? 'C' : 'P'}`;
  if (Buffer.byteLength(symbol) > SYMBOL_MAX_BYTES) throw new RangeError(`symbol ${symbol} is longer than ${SYMBOL_MAX_BYTES} bytes`);
  return symbol;
}

/** The terms of a well-formed symbol, or null (bad shape, impossible date, non-canonical, zero or out-of-range strike, too long). */
export function parseSymbol(text: string): ParsedSymbol | null {
  if (typeof text !== 'string' || text.length > SYMBOL_MAX_BYTES) return null;
  const m = SYMBOL.exec(text);
  if (!m) return null;
  const [, asset, dd, mmm, yy, strikeText, cp] = m;
  const day = Number(dd);
  const month = MONTHS.indexOf(mmm as (typeof MONTHS)[number]);
  const probe = new Date(Date.UTC(2000 + Number(yy), month, day));
  if (day < 1 || probe.getUTCDate() !== day || probe.getUTCMonth() !== month) return null;
  let strike: bigint;
  try {
    strike = parseRfqUnsigned(strikeText);
  } catch {
    return null; // out of the 64-bit range
  }
  if (strike <= 0n || formatRfq(strike) !== strikeText) return null;
  return { asset, date: `${dd}${mmm}${yy}`, strike, kind: cp === 'C' ? 'call' : 'put' };
}
