import { DecimalError, formatRfq, parseRfqUnsigned } from '@legwork/protocol';
import { ASSET_PATTERN } from '../../instruments/domain/symbol';

/**
 * A maker's limits on the firm quotes it has out (docs/spec/design.md section 15): every field
 * optional (absent = no limit). Decimals are micro-units; per-asset maps are keyed by asset.
 */
export interface MakerLimits {
  maxOpenQuotes?: number;
  maxOpenNotional?: bigint;
  maxQuoteNotional?: bigint;
  maxOpenDelta?: Record<string, bigint>;
  maxOpenVega?: Record<string, bigint>;
  priceBandBps?: number;
  protection?: ProtectionSettings;
}

/** Maker protection after fills: when the fills of the last `windowSeconds` exceed a threshold, the maker is frozen. */
export interface ProtectionSettings {
  windowSeconds: number;
  maxFills?: number;
  maxFillNotional?: bigint;
  maxFillDelta?: Record<string, bigint>;
  /** 0: frozen until rfq.maker.reset_protection. */
  frozenSeconds: number;
}

/** A refused limits document: the field (`limits.max_open_delta.SOL`) and why; `precision` for a decimal that is not canonical. */
export class LimitsInvalid extends Error {
  constructor(
    readonly path: string,
    message: string,
    readonly precision = false,
  ) {
    super(`${path} ${message}`);
    this.name = 'LimitsInvalid';
  }
}

/** Integers are JSON numbers; a day of seconds caps neither bps nor counts, so the bound is the int32 range. */
const MAX_INTEGER = 2_147_483_647;

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function integerAt(path: string, value: unknown, minimum: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < minimum || value > MAX_INTEGER) {
    throw new LimitsInvalid(path, `must be an integer from ${minimum} to ${MAX_INTEGER}`);
  }
  return value;
}

function decimalAt(path: string, value: unknown): bigint {
  try {
    return parseRfqUnsigned(value);
  } catch (error) {
    if (!(error instanceof DecimalError)) throw error;
    if (error.fault === 'not_a_string') throw new LimitsInvalid(path, 'must be an RfqDecimal string');
    throw new LimitsInvalid(path, `must be a canonical unsigned decimal string with at most 6 fractional digits, got ${JSON.stringify(value)}`, true);
  }
}

function assetMapAt(path: string, value: unknown): Record<string, bigint> {
  if (!isPlainObject(value)) throw new LimitsInvalid(path, 'must be an object of asset → RfqDecimal');
  const out: Record<string, bigint> = {};
  for (const asset of Object.keys(value).sort()) {
    if (!ASSET_PATTERN.test(asset)) throw new LimitsInvalid(`${path}.${asset}`, `is not an asset (${ASSET_PATTERN.source})`);
    out[asset] = decimalAt(`${path}.${asset}`, value[asset]);
  }
  return out;
}

/** Refuses a key outside `allowed`, in the order given. */
function onlyKeys(path: string, value: Record<string, unknown>, allowed: readonly string[]): void {
  const extra = Object.keys(value).find((key) => !allowed.includes(key));
  if (extra !== undefined) throw new LimitsInvalid(`${path}.${extra}`, `is not a field (allowed: ${allowed.join(', ')})`);
}

const PROTECTION_KEYS = ['window_seconds', 'max_fills', 'max_fill_notional', 'max_fill_delta', 'frozen_seconds'] as const;
const LIMIT_KEYS = ['max_open_quotes', 'max_open_notional', 'max_quote_notional', 'max_open_delta', 'max_open_vega', 'price_band_bps', 'protection'] as const;

function parseProtection(path: string, value: unknown): ProtectionSettings {
  if (!isPlainObject(value)) throw new LimitsInvalid(path, 'must be an object');
  onlyKeys(path, value, PROTECTION_KEYS);
  if (value.window_seconds === undefined) throw new LimitsInvalid(`${path}.window_seconds`, 'is required');
  if (value.frozen_seconds === undefined) throw new LimitsInvalid(`${path}.frozen_seconds`, 'is required');
  const out: ProtectionSettings = { windowSeconds: integerAt(`${path}.window_seconds`, value.window_seconds, 1), frozenSeconds: 0 };
  if (value.max_fills !== undefined) out.maxFills = integerAt(`${path}.max_fills`, value.max_fills, 0);
  if (value.max_fill_notional !== undefined) out.maxFillNotional = decimalAt(`${path}.max_fill_notional`, value.max_fill_notional);
  if (value.max_fill_delta !== undefined) out.maxFillDelta = assetMapAt(`${path}.max_fill_delta`, value.max_fill_delta);
  out.frozenSeconds = integerAt(`${path}.frozen_seconds`, value.frozen_seconds, 0);
  return out;
}

/** The limits document of rfq.maker.set_limits and the admin PUT, checked field by field in the documented order. */
export function parseLimits(value: unknown, path = 'limits'): MakerLimits {
  if (!isPlainObject(value)) throw new LimitsInvalid(path, 'must be an object');
  onlyKeys(path, value, LIMIT_KEYS);
  const out: MakerLimits = {};
  if (value.max_open_quotes !== undefined) out.maxOpenQuotes = integerAt(`${path}.max_open_quotes`, value.max_open_quotes, 0);
  if (value.max_open_notional !== undefined) out.maxOpenNotional = decimalAt(`${path}.max_open_notional`, value.max_open_notional);
  if (value.max_quote_notional !== undefined) out.maxQuoteNotional = decimalAt(`${path}.max_quote_notional`, value.max_quote_notional);
  if (value.max_open_delta !== undefined) out.maxOpenDelta = assetMapAt(`${path}.max_open_delta`, value.max_open_delta);
  if (value.max_open_vega !== undefined) out.maxOpenVega = assetMapAt(`${path}.max_open_vega`, value.max_open_vega);
  if (value.price_band_bps !== undefined) out.priceBandBps = integerAt(`${path}.price_band_bps`, value.price_band_bps, 0);
  if (value.protection !== undefined) out.protection = parseProtection(`${path}.protection`, value.protection);
  return out;
}

/** The wire form (as stored and answered): only the fields set, decimals as RfqDecimal strings. */
export type LimitsDocument = Record<string, unknown>;

const formatMap = (map: Record<string, bigint>) => Object.fromEntries(Object.entries(map).map(([asset, v]) => [asset, formatRfq(v)]));

export function limitsDocument(l: MakerLimits): LimitsDocument {
  const out: LimitsDocument = {};
  if (l.maxOpenQuotes !== undefined) out.max_open_quotes = l.maxOpenQuotes;
  if (l.maxOpenNotional !== undefined) out.max_open_notional = formatRfq(l.maxOpenNotional);
  if (l.maxQuoteNotional !== undefined) out.max_quote_notional = formatRfq(l.maxQuoteNotional);
  if (l.maxOpenDelta) out.max_open_delta = formatMap(l.maxOpenDelta);
  if (l.maxOpenVega) out.max_open_vega = formatMap(l.maxOpenVega);
  if (l.priceBandBps !== undefined) out.price_band_bps = l.priceBandBps;
  const p = l.protection;
  if (p) {
    const protection: LimitsDocument = { window_seconds: p.windowSeconds };
    if (p.maxFills !== undefined) protection.max_fills = p.maxFills;
    if (p.maxFillNotional !== undefined) protection.max_fill_notional = formatRfq(p.maxFillNotional);
    if (p.maxFillDelta) protection.max_fill_delta = formatMap(p.maxFillDelta);
    protection.frozen_seconds = p.frozenSeconds;
    out.protection = protection;
  }
  return out;
}

const lower = <T extends number | bigint>(a: T | undefined, b: T | undefined): T | undefined => (a === undefined ? b : b === undefined ? a : a < b ? a : b);
const higher = <T extends number>(a: T | undefined, b: T | undefined): T | undefined => (a === undefined ? b : b === undefined ? a : a > b ? a : b);

function lowerMap(a: Record<string, bigint> | undefined, b: Record<string, bigint> | undefined): Record<string, bigint> | undefined {
  if (!a || !b) return a ?? b;
  const out: Record<string, bigint> = { ...a };
  for (const [asset, v] of Object.entries(b)) out[asset] = lower(out[asset], v)!;
  return out;
}

/**
 * The stricter protection of two: the longer window, the lower thresholds, the longer freeze
 * (0, frozen until reset, is the longest).
 */
function stricterProtection(a: ProtectionSettings | undefined, b: ProtectionSettings | undefined): ProtectionSettings | undefined {
  if (!a || !b) return a ?? b;
  const out: ProtectionSettings = {
    windowSeconds: higher(a.windowSeconds, b.windowSeconds)!,
    frozenSeconds: a.frozenSeconds === 0 || b.frozenSeconds === 0 ? 0 : higher(a.frozenSeconds, b.frozenSeconds)!,
  };
  const maxFills = lower(a.maxFills, b.maxFills);
  const maxFillNotional = lower(a.maxFillNotional, b.maxFillNotional);
  const maxFillDelta = lowerMap(a.maxFillDelta, b.maxFillDelta);
  if (maxFills !== undefined) out.maxFills = maxFills;
  if (maxFillNotional !== undefined) out.maxFillNotional = maxFillNotional;
  if (maxFillDelta) out.maxFillDelta = maxFillDelta;
  return out;
}

/** The effective limits: per field, the stricter of the maker's and the operator's ceiling. */
export function effectiveLimits(maker: MakerLimits, admin: MakerLimits): MakerLimits {
  const out: MakerLimits = {};
  const set = <K extends keyof MakerLimits>(key: K, value: MakerLimits[K] | undefined) => {
    if (value !== undefined) out[key] = value;
  };
  set('maxOpenQuotes', lower(maker.maxOpenQuotes, admin.maxOpenQuotes));
  set('maxOpenNotional', lower(maker.maxOpenNotional, admin.maxOpenNotional));
  set('maxQuoteNotional', lower(maker.maxQuoteNotional, admin.maxQuoteNotional));
  set('maxOpenDelta', lowerMap(maker.maxOpenDelta, admin.maxOpenDelta));
  set('maxOpenVega', lowerMap(maker.maxOpenVega, admin.maxOpenVega));
  set('priceBandBps', lower(maker.priceBandBps, admin.priceBandBps));
  set('protection', stricterProtection(maker.protection, admin.protection));
  return out;
}

/** Limits that bound what is already out (count, notional, delta, vega): a respond under them is serialized per maker. */
export function boundsOpenQuotes(l: MakerLimits): boolean {
  return l.maxOpenQuotes !== undefined || l.maxOpenNotional !== undefined || l.maxOpenDelta !== undefined || l.maxOpenVega !== undefined;
}

/** Limits that need the quote's legs at the current marks. */
export function needsMarks(l: MakerLimits): boolean {
  return (
    l.maxOpenNotional !== undefined ||
    l.maxQuoteNotional !== undefined ||
    l.maxOpenDelta !== undefined ||
    l.maxOpenVega !== undefined ||
    l.priceBandBps !== undefined
  );
}
