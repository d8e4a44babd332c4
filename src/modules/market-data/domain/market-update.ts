/**
 * POST /v1/admin/market-data (docs/spec/design.md section 6): `{ asset, index_price, iv?, ivs? }`, decimal
 * strings or JSON numbers. IVs are decimals (0.8 = 80 %) held in micro-units. Pure.
 */
import { invalid, parseAsset, parsePositiveAmount } from '../../instruments/domain/inputs';

/** The highest implied volatility accepted: 10 (1,000 %), in micro-units. */
export const MAX_IV = 10_000_000n;

export interface MarketDataInput {
  asset: unknown;
  index_price: unknown;
  iv?: unknown;
  ivs?: unknown;
}

export interface MarketUpdate {
  asset: string;
  /** micro-units */
  indexPrice: bigint;
  /** Flat IV for every open instrument of the asset, micro-units; null when not sent. */
  iv: bigint | null;
  /** Per-symbol IVs, micro-units, applied after the flat one. */
  ivs: Map<string, bigint>;
}

export function parseIv(value: unknown, field: string): bigint {
  const iv = parsePositiveAmount(value, field, { allowNumber: true });
  if (iv > MAX_IV) throw invalid(`${field} must be at most 10 (1000 %)`);
  return iv;
}

export function parseMarketUpdate(input: MarketDataInput): MarketUpdate {
  const asset = parseAsset(input.asset);
  const indexPrice = parsePositiveAmount(input.index_price, 'index_price', { allowNumber: true });
  const iv = input.iv === undefined || input.iv === null ? null : parseIv(input.iv, 'iv');
  const ivs = new Map<string, bigint>();
  if (input.ivs !== undefined && input.ivs !== null) {
    if (typeof input.ivs !== 'object' || Array.isArray(input.ivs)) throw invalid('ivs must be an object of symbol to iv');
    for (const [symbol, value] of Object.entries(input.ivs)) ivs.set(symbol, parseIv(value, `ivs.${symbol}`));
  }
  return { asset, indexPrice, iv, ivs };
}

/** A value with the unix second it was received. */
export interface Stamped {
  value: bigint;
  /** unix seconds */
  updatedAt: number;
}

/** docs/spec/design.md section 6: stale when older than `maxAgeSeconds`. */
export function isFresh(stamped: Stamped | undefined, nowSeconds: number, maxAgeSeconds: number): stamped is Stamped {
  return stamped !== undefined && nowSeconds - stamped.updatedAt <= maxAgeSeconds;
}
