import { type AuditValue, LONE_SURROGATE } from './audit-chain';

/**
 * A field whose value is a credential or a signature, at any depth (docs/spec/design.md section
 * 20): the audit log says it was there, never what it was (a signature can be replayed where a
 * nonce is not checked, a secret is a secret). `private` and `mnemonic` are kept from before.
 */
const SECRET_KEY = /(sig|signature|secret|token|pass|password|key|jwt|cookie|authorization|seed|private|mnemonic)/i;
export const REDACTED = '[redacted]';
/** Strings longer than this are cut, their length noted: a row stays small whatever was sent (section 20). */
const MAX_STRING = 1024;

/** A string over MAX_STRING characters: its first MAX_STRING, and how long it was. */
function cut(value: string): string {
  return value.length <= MAX_STRING ? value : `${value.slice(0, MAX_STRING)}…[cut: ${value.length} characters]`;
}

/** Levels of a request body the log keeps; deeper is the pipe's 400 anyway (MAX_JSON_DEPTH). */
const MAX_LEVELS = 16;
const TOO_DEEP = '(deeper than 16 levels)';

/**
 * A request body (or path parameters) as the audit log stores it: secret fields replaced by
 * `[redacted]`, long strings cut, and every value in a form that canonical JSON and the database both keep exactly
 * (a number that is not a safe integer becomes its text, as JSON.parse read it; NUL and lone
 * surrogates, which PostgreSQL's jsonb refuses, become U+FFFD). A command that failed validation
 * is recorded with what was sent, so this takes any value.
 */
export function redactParams(value: unknown, level = 1): AuditValue {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'boolean':
      return value;
    case 'number':
      return Number.isSafeInteger(value) ? value : String(value);
    case 'string':
      return cut(value).replaceAll('\u0000', '\uFFFD').replace(LONE_SURROGATE, '\uFFFD');
    case 'bigint':
      return value.toString();
    case 'object':
      if (level > MAX_LEVELS) return TOO_DEEP;
      if (Array.isArray(value)) return value.map((item) => redactParams(item, level + 1));
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([key, item]) => [
          redactParams(key) as string,
          SECRET_KEY.test(key) ? REDACTED : redactParams(item, level + 1),
        ]),
      );
    default:
      return null;
  }
}
