import { parseHttpDecimal } from '@legwork/protocol';

/**
 * A maker's limits as the console reads and writes them (docs/spec/design.md section 15:
 * `GET/PUT /v1/admin/accounts/{account_id}/maker-limits`). Everything the console knows of the
 * wire shape is here: parsing is tolerant (a decimal as a string or a number, an absent or null
 * field as no limit), so that the page survives a field the server adds or spells differently.
 */

export type AssetAmounts = Record<string, string>;

interface Protection {
  window_seconds?: number;
  max_fills?: number;
  max_fill_notional?: string;
  max_fill_delta?: AssetAmounts;
  frozen_seconds?: number;
}

export interface MakerLimits {
  max_open_quotes?: number;
  max_open_notional?: string;
  max_quote_notional?: string;
  max_open_delta?: AssetAmounts;
  max_open_vega?: AssetAmounts;
  price_band_bps?: number;
  protection?: Protection;
}

export interface MakerLimitsView {
  account_id: number | null;
  /** The maker's own (rfq.maker.set_limits). */
  limits: MakerLimits;
  /** The operator's ceiling (PUT maker-limits). */
  admin_limits: MakerLimits;
  usage: { open_quotes: number; open_notional: string; open_delta: AssetAmounts; open_vega: AssetAmounts };
  protection: { frozen: boolean; until: number | null; window: { fills: number; notional: string; delta: AssetAmounts } };
}

type Loose = Record<string, unknown>;
const record = (v: unknown): Loose => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Loose) : {});
const decimal = (v: unknown): string | undefined =>
  typeof v === 'string' && v !== '' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : undefined;
const integer = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : undefined;
const amounts = (v: unknown): AssetAmounts | undefined => {
  const entries = Object.entries(record(v)).flatMap(([asset, d]) => (decimal(d) === undefined ? [] : [[asset, decimal(d)!] as const]));
  return v === undefined || v === null ? undefined : Object.fromEntries(entries);
};
/** The object without its undefined fields (what JSON would send anyway, but comparable in tests). */
const defined = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

function parseProtection(v: unknown): Protection | undefined {
  if (v === undefined || v === null) return undefined;
  const p = record(v);
  return defined({
    window_seconds: integer(p.window_seconds),
    max_fills: integer(p.max_fills),
    max_fill_notional: decimal(p.max_fill_notional),
    max_fill_delta: amounts(p.max_fill_delta),
    frozen_seconds: integer(p.frozen_seconds),
  });
}

function parseLimits(v: unknown): MakerLimits {
  const l = record(v);
  return defined({
    max_open_quotes: integer(l.max_open_quotes),
    max_open_notional: decimal(l.max_open_notional),
    max_quote_notional: decimal(l.max_quote_notional),
    max_open_delta: amounts(l.max_open_delta),
    max_open_vega: amounts(l.max_open_vega),
    price_band_bps: integer(l.price_band_bps),
    protection: parseProtection(l.protection),
  });
}

/** GET (and PUT's answer) of the maker-limits route, read tolerantly. */
export function parseMakerLimitsView(body: unknown): MakerLimitsView {
  const b = record(body);
  const usage = record(b.usage);
  const protection = record(b.protection);
  const window = record(protection.window);
  return {
    account_id: integer(b.account_id) ?? null,
    limits: parseLimits(b.limits),
    admin_limits: parseLimits(b.admin_limits),
    usage: {
      open_quotes: integer(usage.open_quotes) ?? 0,
      open_notional: decimal(usage.open_notional) ?? '0',
      open_delta: amounts(usage.open_delta) ?? {},
      open_vega: amounts(usage.open_vega) ?? {},
    },
    protection: {
      frozen: protection.frozen === true,
      until: integer(protection.until) ?? null,
      window: { fills: integer(window.fills) ?? 0, notional: decimal(window.notional) ?? '0', delta: amounts(window.delta) ?? {} },
    },
  };
}

/** What PUT sends: `{ limits }`, the admin ceiling. */
export const makerLimitsBody = (limits: MakerLimits) => ({ limits });

const stricterDecimal = (a?: string, b?: string) => (a === undefined ? b : b === undefined ? a : parseHttpDecimal(a) <= parseHttpDecimal(b) ? a : b);
const stricterInteger = (a?: number, b?: number) => (a === undefined ? b : b === undefined ? a : Math.min(a, b));
function stricterAmounts(a?: AssetAmounts, b?: AssetAmounts): AssetAmounts | undefined {
  if (!a || !b) return a ?? b;
  const assets = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return Object.fromEntries(assets.map((asset) => [asset, stricterDecimal(a[asset], b[asset])!]));
}

/** The limit in force for each field: the stricter of the maker's and the admin's (design.md section 15). */
export function effectiveLimits(own: MakerLimits, admin: MakerLimits): MakerLimits {
  return defined({
    max_open_quotes: stricterInteger(own.max_open_quotes, admin.max_open_quotes),
    max_open_notional: stricterDecimal(own.max_open_notional, admin.max_open_notional),
    max_quote_notional: stricterDecimal(own.max_quote_notional, admin.max_quote_notional),
    max_open_delta: stricterAmounts(own.max_open_delta, admin.max_open_delta),
    max_open_vega: stricterAmounts(own.max_open_vega, admin.max_open_vega),
    price_band_bps: stricterInteger(own.price_band_bps, admin.price_band_bps),
  });
}

/** `{ SOL: "10", ETH: "2.5" }` ↔ `SOL=10, ETH=2.5` (the form's text for a per-asset limit). */
export const formatAssetAmounts = (map: AssetAmounts | undefined) =>
  Object.entries(map ?? {})
    .map(([asset, d]) => `${asset}=${d}`)
    .join(', ');

const DECIMAL = /^\d+(\.\d+)?$/;

export function parseAssetAmounts(text: string, field: string): AssetAmounts | undefined {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0) return undefined;
  return Object.fromEntries(
    parts.map((part) => {
      const match = /^([A-Z][A-Z0-9]{0,15})\s*[=:]\s*(\S+)$/.exec(part);
      if (!match || !DECIMAL.test(match[2])) throw new Error(`${field}: "${part}" is not ASSET=decimal`);
      return [match[1], match[2]];
    }),
  );
}

/** One field of the limits form: its name (the wire field; `protection.` inside protection), label and kind. */
export interface LimitField {
  name: string;
  label: string;
  kind: 'integer' | 'decimal' | 'assets';
}

export const LIMIT_FIELDS: LimitField[] = [
  { name: 'max_open_quotes', label: 'Open quotes (0: kill switch)', kind: 'integer' },
  { name: 'max_open_notional', label: 'Open notional (USDC)', kind: 'decimal' },
  { name: 'max_quote_notional', label: 'Notional of one quote (USDC)', kind: 'decimal' },
  { name: 'max_open_delta', label: 'Open delta per asset', kind: 'assets' },
  { name: 'max_open_vega', label: 'Open vega per asset', kind: 'assets' },
  { name: 'price_band_bps', label: 'Price band (bps of notional)', kind: 'integer' },
];

export const PROTECTION_FIELDS: LimitField[] = [
  { name: 'protection.window_seconds', label: 'Window (seconds)', kind: 'integer' },
  { name: 'protection.max_fills', label: 'Fills in the window', kind: 'integer' },
  { name: 'protection.max_fill_notional', label: 'Filled notional in the window (USDC)', kind: 'decimal' },
  { name: 'protection.max_fill_delta', label: 'Filled delta per asset in the window', kind: 'assets' },
  { name: 'protection.frozen_seconds', label: 'Frozen for (seconds; 0: until reset)', kind: 'integer' },
];

type LimitValue = string | number | AssetAmounts | Protection | undefined;
const valueAt = (limits: MakerLimits, name: string): LimitValue => {
  const [head, tail] = name.split('.');
  return tail ? (limits.protection as Record<string, LimitValue> | undefined)?.[tail] : (limits as Record<string, LimitValue>)[head];
};
/** A field's value as text: `SOL=1, ETH=2` for per-asset amounts. */
const valueText = (value: LimitValue): string => (typeof value === 'object' ? formatAssetAmounts(value as AssetAmounts) : String(value));

/** A limit as the page shows it: "—" for no limit. */
export function formatLimit(limits: MakerLimits, field: LimitField): string {
  const value = valueAt(limits, field.name);
  if (value === undefined) return '—';
  return valueText(value) || '—';
}

/** The form's text of each field (empty: no limit). */
export const fieldsFromLimits = (limits: MakerLimits): Record<string, string> =>
  Object.fromEntries(
    [...LIMIT_FIELDS, ...PROTECTION_FIELDS].map((f) => {
      const v = valueAt(limits, f.name);
      return [f.name, v === undefined ? '' : valueText(v)];
    }),
  );

function fieldValue(field: LimitField, text: string): number | string | AssetAmounts | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  if (field.kind === 'assets') return parseAssetAmounts(t, field.label);
  if (field.kind === 'integer') {
    if (!/^\d+$/.test(t)) throw new Error(`${field.label}: a whole number >= 0`);
    return Number(t);
  }
  if (!DECIMAL.test(t)) throw new Error(`${field.label}: a decimal >= 0`);
  return t;
}

/** The limits the form says (an empty field: no limit); throws naming the field that is not valid. */
export function limitsFromFields(values: Record<string, string>): MakerLimits {
  const limits: Record<string, unknown> = {};
  for (const field of LIMIT_FIELDS) limits[field.name] = fieldValue(field, values[field.name] ?? '');
  const protection: Record<string, unknown> = {};
  for (const field of PROTECTION_FIELDS) protection[field.name.slice('protection.'.length)] = fieldValue(field, values[field.name] ?? '');
  const given = defined(protection);
  if (Object.keys(given).length > 0) {
    if (given.window_seconds === undefined || given.frozen_seconds === undefined) throw new Error('Protection: a window and a frozen time are both needed');
    limits.protection = given;
  }
  return defined(limits);
}
