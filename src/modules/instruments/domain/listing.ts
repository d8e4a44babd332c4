/**
 * What create-instruments lists (docs/spec/design.md section 2): the strikes (given, or the default grid
 * around the spot), each as a call and a put, named by their symbols. Pure: the time is a parameter.
 */
import { I64_MAX, MAX_STRIKES, formatRfq } from '@legwork/protocol';
import { invalid, parseAsset, parsePositiveAmount, parseUnixSeconds } from './inputs';
import { strikeGrid } from './strike-grid';
import { type OptionKind, formatSymbol, utcDateKey } from './symbol';

export interface CreateInstrumentsInput {
  asset: unknown;
  expiration: unknown;
  spot_price: unknown;
  strikes?: unknown;
}

interface ListedTerms {
  symbol: string;
  strike: bigint;
  kind: OptionKind;
}

export interface Listing {
  asset: string;
  /** unix seconds */
  expiration: number;
  /** `YYYY-MM-DD`, the UTC date of the expiration */
  utcDate: string;
  /** Ascending by strike, the call before the put. */
  instruments: ListedTerms[];
}

function parseStrikes(value: unknown): bigint[] {
  if (!Array.isArray(value)) throw invalid('strikes must be an array of decimal strings');
  if (value.length === 0) throw invalid('strikes must not be empty (omit it for the default grid)');
  if (value.length > MAX_STRIKES) throw invalid(`strikes must have at most ${MAX_STRIKES} items`);
  const strikes = value.map((v, i) => parsePositiveAmount(v, `strikes[${i}]`));
  // The same strike written twice ("150", "150.0") lists one instrument pair.
  return [...new Set(strikes)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Checks a create-instruments command and returns what it lists; INVALID_PARAMS names the field. */
export function planListing(input: CreateInstrumentsInput, nowSeconds: number): Listing {
  const asset = parseAsset(input.asset);
  const expiration = parseUnixSeconds(input.expiration, 'expiration');
  if (expiration <= nowSeconds) throw invalid('expiration must be in the future');
  const spot = parsePositiveAmount(input.spot_price, 'spot_price', { allowNumber: true });
  const strikes = input.strikes === undefined ? strikeGrid(spot) : parseStrikes(input.strikes);

  const instruments: ListedTerms[] = [];
  for (const strike of strikes) {
    if (strike > I64_MAX) throw invalid('spot_price is too large: its strikes do not fit in 64 bits');
    for (const kind of ['call', 'put'] as const) {
      let symbol: string;
      try {
        symbol = formatSymbol({ asset, expiry: expiration, strike, kind });
      } catch (error) {
        if (error instanceof RangeError) throw invalid(`strike ${formatRfq(strike)} gives no valid symbol: ${error.message}`);
        throw error;
      }
      instruments.push({ symbol, strike, kind });
    }
  }
  return { asset, expiration, utcDate: utcDateKey(expiration), instruments };
}
