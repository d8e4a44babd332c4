/**
 * Field parsers of the instrument and market-data commands. They take what a client sent
 * (`unknown`) and return the exact value, or throw INVALID_PARAMS naming the field, so a command
 * is safe from any transport (HTTP, JSON-RPC, a job).
 */
import { DecimalError, MAX_EXPIRY, parseHttpAmount } from '@legwork/protocol';
import { AppError } from '../../../common/errors/app-error';
import { ASSET_PATTERN } from './symbol';

/** 2100-01-01T00:00:00Z (the contract's bound): a symbol carries a two-digit year, so later expirations cannot be named. */
export { MAX_EXPIRY };

export function invalid(message: string): AppError {
  return new AppError('INVALID_PARAMS', message);
}

export function parseAsset(value: unknown, field = 'asset'): string {
  if (typeof value !== 'string') throw invalid(`${field} must be a string`);
  if (!ASSET_PATTERN.test(value)) throw invalid(`${field} must match ${ASSET_PATTERN.source}`);
  return value;
}

/** An integer of unix seconds (JSON number) in [0, 2100-01-01). */
export function parseUnixSeconds(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw invalid(`${field} must be an integer of unix seconds`);
  if (value < 0 || value >= MAX_EXPIRY) throw invalid(`${field} must be between 0 and ${MAX_EXPIRY - 1}`);
  return value;
}

/**
 * A decimal > 0 in micro-units: a decimal string, or (`allowNumber`) a JSON number without
 * exponent, at most 8 fractional digits and exact in micro-units (docs/spec/design.md section 1).
 */
export function parsePositiveAmount(value: unknown, field: string, opts: { allowNumber?: boolean } = {}): bigint {
  let micro: bigint;
  try {
    micro = parseHttpAmount(value, { allowNumber: opts.allowNumber });
  } catch (error) {
    if (error instanceof DecimalError) {
      const expected = opts.allowNumber ? 'a decimal string or number' : 'a decimal string';
      throw invalid(error.fault === 'not_a_string' ? `${field} must be ${expected}` : `${field}: ${error.message}`);
    }
    throw error;
  }
  if (micro <= 0n) throw invalid(`${field} must be greater than 0`);
  return micro;
}
