/**
 * The desk's maker limits (docs/spec/design.md 15) as the CLI and the reference maker take them from
 * flags, and as they print them. Decimals are checked and written canonically here, so the
 * server never sees a value the user did not mean.
 */
import {
  type AssetDecimals,
  type LegworkClient,
  type MakerLimits,
  type MakerLimitsResult,
  type MakerProtectionLimits,
  type MakerQuote,
  formatRfq,
  parseRfqUnsigned,
} from '@legwork/sdk';
import { type ParsedArgs, UsageError, intSetting, utcDate } from './common';
import { table } from './format';

/** The limit flags, shared by `cli maker limits` and `npm run maker`. */
export const LIMIT_FLAGS = {
  'max-open-quotes': 'string',
  'max-open-notional': 'string',
  'max-quote-notional': 'string',
  'max-open-delta': 'strings',
  'max-open-vega': 'strings',
  'price-band-bps': 'string',
  'protect-window': 'string',
  'protect-max-fills': 'string',
  'protect-max-notional': 'string',
  'protect-max-delta': 'strings',
  'protect-frozen': 'string',
} as const;

export const LIMIT_USAGE = `  --max-open-quotes N          live quotes at most (0: the kill switch, no new quote)
  --max-open-notional USDC     sum of the live quotes' notionals at most
  --max-quote-notional USDC    one quote's notional at most
  --max-open-delta ASSET:D     |delta| summed over live quotes, per asset (repeatable, e.g. SOL:100)
  --max-open-vega ASSET:V      |vega| summed over live quotes, per asset (repeatable)
  --price-band-bps N           refuse a quote further than this from the mark (bps of its notional)
  --protect-window SECONDS     protection: count the fills of the last SECONDS
  --protect-max-fills N        protection: freeze after more fills than this in the window
  --protect-max-notional USDC  protection: ... or more notional
  --protect-max-delta ASSET:D  protection: ... or more |delta| per asset (repeatable)
  --protect-frozen SECONDS     protection: frozen this long (0: until reset-protection)
  Each flag accepts "none" to remove that limit.`;

/** A change of limits: a value sets it, null removes it. */
type Change<T> = { [K in keyof T]?: T[K] | null };
export type LimitChanges = Change<Omit<MakerLimits, 'protection'>> & { protection?: Change<MakerProtectionLimits> };

type Flags = ParsedArgs['flags'];

function decimal(flag: string, text: string): string {
  try {
    return formatRfq(parseRfqUnsigned(text));
  } catch {
    throw new UsageError(`--${flag} must be a non-negative decimal with at most 6 decimals, got ${JSON.stringify(text)}`);
  }
}

function perAsset(flag: string, values: readonly string[]): AssetDecimals | null {
  if (values.length === 1 && values[0] === 'none') return null;
  const out: AssetDecimals = {};
  for (const text of values) {
    const at = text.lastIndexOf(':');
    const asset = text.slice(0, at);
    if (at <= 0 || !/^[A-Z0-9]{1,16}$/.test(asset)) throw new UsageError(`--${flag} is ASSET:DECIMAL (e.g. SOL:100), got ${JSON.stringify(text)}`);
    if (asset in out) throw new UsageError(`--${flag} names ${asset} twice`);
    out[asset] = decimal(flag, text.slice(at + 1));
  }
  return out;
}

/** Reads one flag into `into[key]` with `read`; "none" removes the limit. */
function take<T>(flags: Flags, flag: keyof typeof LIMIT_FLAGS, into: Record<string, unknown>, key: string, read: (text: string) => T): void {
  const value = flags[flag];
  if (typeof value !== 'string') return;
  into[key] = value === 'none' ? null : read(value);
}

/** The changes the limit flags ask for; null when no limit flag was given. */
export function limitsFromFlags(flags: Flags): LimitChanges | null {
  const changes: Record<string, unknown> = {};
  const int = (flag: string) => (text: string) => intSetting(`--${flag}`, text, 0);
  take(flags, 'max-open-quotes', changes, 'max_open_quotes', int('max-open-quotes'));
  take(flags, 'max-open-notional', changes, 'max_open_notional', (t) => decimal('max-open-notional', t));
  take(flags, 'max-quote-notional', changes, 'max_quote_notional', (t) => decimal('max-quote-notional', t));
  take(flags, 'price-band-bps', changes, 'price_band_bps', int('price-band-bps'));
  for (const [flag, key] of [
    ['max-open-delta', 'max_open_delta'],
    ['max-open-vega', 'max_open_vega'],
  ] as const) {
    const values = flags[flag];
    if (Array.isArray(values)) changes[key] = perAsset(flag, values);
  }
  const protection: Record<string, unknown> = {};
  take(flags, 'protect-window', protection, 'window_seconds', int('protect-window'));
  take(flags, 'protect-max-fills', protection, 'max_fills', int('protect-max-fills'));
  take(flags, 'protect-max-notional', protection, 'max_fill_notional', (t) => decimal('protect-max-notional', t));
  take(flags, 'protect-frozen', protection, 'frozen_seconds', int('protect-frozen'));
  const delta = flags['protect-max-delta'];
  if (Array.isArray(delta)) protection.max_fill_delta = perAsset('protect-max-delta', delta);
  if (Object.keys(protection).length > 0) changes.protection = protection;
  return Object.keys(changes).length > 0 ? changes : null;
}

function applied<T extends object>(current: T, changes: Change<T>): T {
  const out: Record<string, unknown> = { ...(current as Record<string, unknown>) };
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete out[key];
    else if (value !== undefined) out[key] = value;
  }
  return out as T;
}

/** Sets `changes` over the limits the server holds; the line saying what is now in force. */
export async function applyLimits(client: LegworkClient, changes: LimitChanges): Promise<string> {
  const current = await client.getMakerLimits();
  const result = await client.setMakerLimits(mergeLimits(current.limits, changes));
  const operator = Object.keys(result.admin_limits).length ? `; operator's: ${JSON.stringify(result.admin_limits)}` : '';
  return `limits set: ${JSON.stringify(result.limits)}${operator}`;
}

/**
 * The limits to send: `current` (what the server holds) with `changes` applied, so a flag changes
 * one limit and leaves the others (rfq.maker.set_limits replaces the whole set).
 */
export function mergeLimits(current: MakerLimits, changes: LimitChanges): MakerLimits {
  const { protection, ...rest } = changes;
  const out = applied<MakerLimits>(current, rest);
  if (protection) {
    const merged = applied<MakerProtectionLimits>(current.protection ?? {}, protection);
    if (Object.keys(merged).length > 0) out.protection = merged;
    else delete out.protection;
  }
  return out;
}

const perAssetText = (values: AssetDecimals | undefined) =>
  values && Object.keys(values).length > 0
    ? Object.entries(values)
        .map(([asset, value]) => `${asset} ${value}`)
        .join(', ')
    : null;

/** `name value` lines of a set of limits (none: "no limits"). */
function limitsText(limits: MakerLimits): string[] {
  const p = limits.protection;
  const rows: Array<[string, string | number | null | undefined]> = [
    ['max open quotes', limits.max_open_quotes],
    ['max open notional', limits.max_open_notional],
    ['max quote notional', limits.max_quote_notional],
    ['max open delta', perAssetText(limits.max_open_delta)],
    ['max open vega', perAssetText(limits.max_open_vega)],
    ['price band (bps)', limits.price_band_bps],
    ['protection window (s)', p?.window_seconds],
    ['protection max fills', p?.max_fills],
    ['protection max notional', p?.max_fill_notional],
    ['protection max delta', perAssetText(p?.max_fill_delta)],
    ['protection frozen (s)', p?.frozen_seconds],
  ];
  const set = rows.filter(([, value]) => value !== undefined && value !== null);
  return set.length === 0 ? ['    (no limits)'] : set.map(([name, value]) => `    ${name.padEnd(24)} ${String(value)}`);
}

/** The lines of `rfq.maker.get_limits`'s result. */
export function makerLimitLines(result: MakerLimitsResult): string[] {
  const u = result.usage;
  const p = result.protection;
  const frozen = p.frozen ? `FROZEN ${p.until === null ? 'until reset-protection' : `until ${utcDate(p.until)}`}` : 'not frozen';
  return [
    'your limits',
    ...limitsText(result.limits),
    "the operator's limits (the stricter of the two applies)",
    ...limitsText(result.admin_limits),
    'usage (live quotes at the current marks)',
    `    open quotes              ${u.open_quotes}`,
    `    open notional            ${u.open_notional}`,
    `    open delta               ${perAssetText(u.open_delta) ?? '0'}`,
    `    open vega                ${perAssetText(u.open_vega) ?? '0'}`,
    `protection: ${frozen}; window: ${p.window.fills} fill(s), notional ${p.window.notional}, delta ${perAssetText(p.window.delta) ?? '0'}`,
  ];
}

/** The RFQ errors with which a maker limit refuses a quote. */
export const LIMIT_REFUSALS: readonly string[] = ['RFQ_OPEN_LIMIT', 'RFQ_SIZE_INVALID', 'RFQ_PRICE_TOLERANCE'];

/** What a desk command answers: the JSON (`--json`), the readable lines, the exit code. */
export interface DeskOutput {
  json: unknown;
  lines: string[];
  code: number;
}

/** `rfq cancel <rfq_id>` and `rfq cancel-all`. */
export async function cancelCommand(client: LegworkClient, sub: 'cancel' | 'cancel-all', rest: readonly string[]): Promise<DeskOutput> {
  if (sub === 'cancel-all') {
    if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
    const result = await client.cancelAllRfqs();
    const lines = result.cancelled.length === 0 ? ['no pending or quoted RFQ to cancel'] : result.cancelled.map((id) => `cancelled rfq ${id}`);
    return { json: result, lines, code: 0 };
  }
  if (rest.length !== 1 || !/^[0-9a-f]{32}$/.test(rest[0])) throw new UsageError('usage: rfq cancel <rfq_id> (32 lowercase hex characters)');
  const result = await client.cancelRfq(rest[0]);
  return { json: result, lines: [`rfq ${result.rfq_id} cancelled at ${utcDate(result.cancelled_at)}: ${result.state}; its quote, if any, is void`], code: 0 };
}

/**
 * `maker limits [limit flags] [--replace]`: shows the limits, usage and protection; with flags,
 * sets them first (over those held unless `--replace`). `maker reset-protection`: lifts a freeze.
 */
export async function makerCommand(client: LegworkClient, flags: Flags, args: readonly string[]): Promise<DeskOutput> {
  const [sub, ...rest] = args;
  if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
  if (sub === 'quotes') return quotesCommand(client, flags.all === true);
  if (sub === 'reset-protection') {
    await client.resetProtection();
    const after = await client.getMakerLimits();
    return { json: after, lines: ['protection reset', ...makerLimitLines(after)], code: 0 };
  }
  if (sub !== 'limits') throw new UsageError(`unknown maker command ${sub === undefined ? '(none)' : JSON.stringify(sub)}: limits, quotes or reset-protection`);
  const changes = limitsFromFlags(flags);
  if (!changes && flags.replace) throw new UsageError('--replace needs limit flags: the limits to hold from now on');
  if (!changes) {
    const result = await client.getMakerLimits();
    return { json: result, lines: makerLimitLines(result), code: 0 };
  }
  const current = flags.replace ? {} : (await client.getMakerLimits()).limits;
  const result = await client.setMakerLimits(mergeLimits(current, changes));
  return { json: result, lines: ['limits set', ...makerLimitLines(result)], code: 0 };
}

/** A page of `rfq.maker.quotes` at most (the server's maximum). */
const QUOTES_PAGE = 500;

/**
 * `maker quotes [--all]` (docs/spec/design.md 19): the caller's live quotes (every kept one with
 * `--all`), newest first, every page, with their states: how a maker learns what became of a
 * quote whose reply it lost.
 */
async function quotesCommand(client: LegworkClient, all: boolean): Promise<DeskOutput> {
  const items: MakerQuote[] = [];
  let after: string | undefined;
  do {
    const page = await client.makerQuotes({ state: all ? 'all' : 'live', limit: QUOTES_PAGE, after });
    items.push(...page.items);
    after = page.next_cursor;
  } while (after);
  return { json: { items }, lines: makerQuoteLines(items, all), code: 0 };
}

/** The quotes as a table: full ids (to match against the maker's own records), prices, times, state. */
function makerQuoteLines(items: readonly MakerQuote[], all: boolean): string[] {
  if (items.length === 0) return [all ? '(no quotes)' : '(no live quotes; --all shows every kept quote)'];
  const received = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', ' UTC');
  return table(
    ['quote_id', 'rfq_id', 'nonce', 'bid', 'ask', 'expires', 'received', 'state'],
    items.map((q) => [q.quote_id, q.rfq_id, q.quote_nonce, q.bid, q.ask, utcDate(q.expires_at), received(q.received_at_ms), q.state]),
    [2, 3, 4],
  );
}
