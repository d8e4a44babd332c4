/**
 * A response schema's strings that can never need JSON escaping, written without the escape scan.
 *
 * The serializer (fast-json-stringify) scans every string it writes for characters JSON must escape;
 * for a read of 50 positions that is about a twentieth of the request's time (bench F1a). A string
 * the contract declares with a `pattern` made only of plain characters (digits, letters, `.`, `:`,
 * `_`, `+`, `-`; no wildcard, no negated class, no escape class but `\d` and escaped `.` and `-`),
 * anchored at both ends, cannot contain a quote, a backslash or a control character while it
 * matches: such strings get the serializer's `format: 'unsafe'` (no scan) in the copy of the schema
 * the route serializes with. The contract (OpenAPI) is unchanged. What the contract declares this
 * way is made by the exchange (decimals, ids, times): never text a client wrote.
 */

/**
 * One token of a plain pattern: a plain character, `\d`, `\.`, `\-`, a class of plain characters
 * and of ranges within digits, lower or upper case letters (`-` only first or last), a quantifier,
 * a group or an alternation.
 */
const PLAIN_TOKEN = /\\d|\\\.|\\-|\[-?(?:[0-9]-[0-9]|[a-z]-[a-z]|[A-Z]-[A-Z]|[A-Za-z0-9_.:+])+-?\]|[A-Za-z0-9_:+-]|[?+*()|]|\{\d+(?:,\d*)?\}/y;

/** Whether every string matching `pattern` is written as it is in JSON (see above). */
export function isPlainPattern(pattern: string): boolean {
  if (!pattern.startsWith('^') || !pattern.endsWith('$') || pattern.endsWith('\\$')) return false;
  const body = pattern.slice(1, -1);
  PLAIN_TOKEN.lastIndex = 0;
  while (PLAIN_TOKEN.lastIndex < body.length) {
    const at = PLAIN_TOKEN.lastIndex;
    if (!PLAIN_TOKEN.test(body) || PLAIN_TOKEN.lastIndex === at) return false;
  }
  return true;
}

/** A copy of `schema` whose strings with a plain pattern carry `format: 'unsafe'` (written without the escape scan). */
export function withPlainStrings<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map((item: unknown) => withPlainStrings(item)) as T;
  if (!schema || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = withPlainStrings(value);
  const isString = copy.type === 'string' || (Array.isArray(copy.type) && copy.type.includes('string'));
  if (isString && copy.format === undefined && typeof copy.pattern === 'string' && isPlainPattern(copy.pattern)) copy.format = 'unsafe';
  return copy as T;
}
