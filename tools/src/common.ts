/**
 * Small helpers shared by the maker, the CLI and the demo: command-line flags, seeds, URLs and
 * readable log lines. Everything that talks to the exchange goes through `@legwork/sdk` only.
 */
import { randomBytes } from 'node:crypto';
import { Keypair, type RfqLeg, parseRfqSigned } from '@legwork/sdk';

/** How a flag takes its value: one string, a repeatable string, or none. */
export type FlagKind = 'string' | 'strings' | 'boolean';

export interface ParsedArgs {
  positional: string[];
  flags: Record<string, string | string[] | boolean | undefined>;
}

/** A usage mistake: printed without a stack trace, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * Parses `--name value`, `--name=value` and boolean `--name` flags (names from `spec` only, an
 * unknown flag is a UsageError). Everything else is positional. `--` ends the flags.
 */
export function parseArgs(argv: readonly string[], spec: Record<string, FlagKind>): ParsedArgs {
  const positional: string[] = [];
  const flags: ParsedArgs['flags'] = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const kind = spec[name];
    if (!kind) throw new UsageError(`unknown flag --${name}`);
    if (kind === 'boolean') {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      flags[name] = true;
      continue;
    }
    let value: string;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      if (i + 1 >= argv.length) throw new UsageError(`--${name} needs a value`);
      value = argv[++i];
    }
    if (kind === 'strings') flags[name] = [...((flags[name] as string[] | undefined) ?? []), value];
    else flags[name] = value;
  }
  return { positional, flags };
}

/** A flag value, else an environment variable, else the default. */
export function setting(flags: ParsedArgs['flags'], flag: string, envName: string | null, fallback?: string): string | undefined {
  const value = flags[flag];
  if (typeof value === 'string') return value;
  if (envName && process.env[envName] !== undefined && process.env[envName] !== '') return process.env[envName];
  return fallback;
}

/** A positive integer setting. */
export function intSetting(name: string, text: string | undefined, fallback: number, min = 0): number {
  if (text === undefined) return fallback;
  if (!/^[0-9]+$/.test(text) || Number(text) < min || !Number.isSafeInteger(Number(text)))
    throw new UsageError(`${name} must be an integer >= ${min}, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** A non-negative decimal setting in micro-units. */
export function microSetting(name: string, text: string | undefined, fallback: bigint): bigint {
  if (text === undefined) return fallback;
  try {
    const value = parseRfqSigned(text);
    if (value < 0n) throw new Error('negative');
    return value;
  } catch {
    throw new UsageError(`${name} must be a non-negative decimal with at most 6 decimals, got ${JSON.stringify(text)}`);
  }
}

/** The key pair of a 32-byte hex seed (64 hex characters, optional 0x). */
export function keypairFromHex(hex: string, what = 'seed'): Keypair {
  const clean = hex.trim().replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]{64}$/.test(clean)) throw new UsageError(`${what} must be 64 hex characters (a 32-byte ed25519 seed)`);
  return Keypair.fromSeed(new Uint8Array(Buffer.from(clean, 'hex')));
}

/** A fresh seed and its key pair. */
export function generateKeypair(): { seedHex: string; keypair: Keypair } {
  const seed = randomBytes(32);
  return { seedHex: seed.toString('hex'), keypair: Keypair.fromSeed(new Uint8Array(seed)) };
}

/** `http://host:port` → `ws://host:port/client` (https → wss). */
export function wsUrlOf(httpUrl: string): string {
  const url = new URL(httpUrl);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`the server URL must be http(s)://..., got ${httpUrl}`);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.pathname = url.pathname.replace(/\/+$/, '') + '/client';
  return url.toString();
}

/** The base URL without a trailing slash. */
export function httpUrlOf(text: string): string {
  try {
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error();
  } catch {
    throw new UsageError(`the server URL must be http(s)://host:port, got ${JSON.stringify(text)}`);
  }
  return text.replace(/\/+$/, '');
}

/** `SYMBOL:QTY` (the quantity after the last colon, signed) → an RFQ leg. */
export function parseLeg(text: string): RfqLeg {
  const at = text.lastIndexOf(':');
  if (at <= 0 || at === text.length - 1) throw new UsageError(`a leg is SYMBOL:QUANTITY (e.g. SOL-29NOV25-150-C:10), got ${JSON.stringify(text)}`);
  const instrument = text.slice(0, at);
  const quantity = text.slice(at + 1);
  try {
    if (parseRfqSigned(quantity) === 0n) throw new Error('zero');
  } catch {
    throw new UsageError(`leg ${JSON.stringify(text)}: the quantity must be a non-zero decimal with at most 6 decimals`);
  }
  return { instrument, quantity };
}

/** `+10 SOL-...-150-C` */
function describeLeg(leg: RfqLeg): string {
  return `${leg.quantity.startsWith('-') ? '' : '+'}${leg.quantity} ${leg.instrument}`;
}

export function describeLegs(legs: readonly RfqLeg[]): string {
  return legs.map(describeLeg).join(', ');
}

/** An id shortened for log lines (the full id stays available in JSON output). */
export function short(id: string, length = 8): string {
  return id.length > length + 1 ? `${id.slice(0, length)}…` : id;
}

/** `HH:MM:SS` UTC of unix seconds. */
export function clock(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().slice(11, 19);
}

/** `2025-11-29 08:00 UTC` */
export function utcDate(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** A log sink: one readable line per call. */
export type LogLine = (line: string) => void;

/** `HH:MM:SS.mmm tag     text` on stdout. */
export function logger(tag: string, write: (text: string) => void = (text) => process.stdout.write(text + '\n')): LogLine {
  const label = tag.padEnd(6);
  return (line) => write(`${new Date().toISOString().slice(11, 23)} ${label} ${line}`);
}

/** The message of an error, with the RFQ error code or HTTP status when there is one. */
export function reason(error: unknown): string {
  if (error instanceof Error) {
    const e = error as Error & { error?: unknown; status?: unknown; errorName?: unknown; reason?: unknown };
    if (typeof e.status === 'number') return `HTTP ${e.status}: ${typeof e.error === 'string' ? e.error : e.message}`;
    // An RFQ refusal names its reason too (docs/errors.md): RFQ_STATE_CONFLICT (quoted_by_another): ...
    const why = typeof e.reason === 'string' && e.reason !== '' ? ` (${e.reason})` : '';
    if (typeof e.error === 'string' && !e.message.includes(e.error)) return `${e.error}${why}: ${e.message}`;
    if (typeof e.errorName === 'string' && !e.message.includes(e.errorName)) return `${e.errorName}: ${e.message}`;
    return e.message;
  }
  return String(error);
}
