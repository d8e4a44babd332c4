import { ROUTE_NAMES, routeDeclaration } from '@legwork/protocol';
import { isPlainPattern, withPlainStrings } from './plain-strings';

/** Characters JSON must escape (and the lone surrogate halves a scan would catch). */
const ESCAPED = ['"', '\\', '\n', '\u0000', '\u001f', '\ud800'];

describe('plain strings (written without the escape scan)', () => {
  it('takes every pattern the contract declares on a response, and no string matching one needs escaping', () => {
    const patterns = new Set<string>();
    const walk = (schema: unknown): void => {
      if (Array.isArray(schema)) return schema.forEach(walk);
      if (!schema || typeof schema !== 'object') return;
      const pattern = (schema as { pattern?: unknown }).pattern;
      if (typeof pattern === 'string') patterns.add(pattern);
      Object.values(schema).forEach(walk);
    };
    for (const name of ROUTE_NAMES) {
      const declaration = routeDeclaration(name);
      walk(declaration.response);
      for (const other of Object.values(declaration.responses ?? {})) walk(other.schema);
    }
    expect(patterns.size).toBeGreaterThanOrEqual(5);
    for (const pattern of patterns) {
      expect([pattern, isPlainPattern(pattern)]).toEqual([pattern, true]);
      const re = new RegExp(pattern);
      for (const c of ESCAPED) for (const s of [c, `1${c}`, `${c}1`, `1.${c}`, `A${c}`]) expect(re.test(s)).toBe(false);
    }
  });

  it.each([
    ['^.*$', 'a wildcard'],
    ['^[^"]+$', 'a negated class'],
    ['^\\S+$', 'an escape class other than \\d'],
    ['^[a-z]+', 'no end anchor'],
    ['[a-z]+$', 'no start anchor'],
    ['^[a-z]+\\$', 'an escaped dollar, not an anchor'],
    ['^[--z]+$', 'a range across punctuation (it holds the backslash)'],
    ['^[ -~]+$', 'a range from space (it holds the quote)'],
    ['^[a-z\\\\]+$', 'a backslash in a class'],
    ['^a b$', 'a space'],
  ])('refuses %s: %s', (pattern) => {
    expect(isPlainPattern(pattern)).toBe(false);
  });

  it('marks only strings of plain patterns, in a copy: nested, in arrays and in unions with null', () => {
    const schema = {
      type: 'object',
      properties: {
        price: { type: 'string', pattern: '^-?[0-9]+\\.[0-9]{8}$' },
        maybe: { type: ['string', 'null'], pattern: '^[0-9a-f]{32}$' },
        note: { type: 'string' },
        loose: { type: 'string', pattern: '^.+$' },
        when: { type: 'string', format: 'date-time', pattern: '^[0-9]+$' },
        rows: { type: 'array', items: { type: 'string', pattern: '^[A-Z][A-Z0-9]{1,7}$' } },
      },
    };
    const copy = withPlainStrings(schema);
    expect(copy.properties.price).toEqual({ ...schema.properties.price, format: 'unsafe' });
    expect(copy.properties.maybe).toEqual({ ...schema.properties.maybe, format: 'unsafe' });
    expect(copy.properties.rows.items).toEqual({ ...schema.properties.rows.items, format: 'unsafe' });
    expect([copy.properties.note, copy.properties.loose, copy.properties.when]).toEqual([
      schema.properties.note,
      schema.properties.loose,
      schema.properties.when,
    ]);
    expect(schema.properties.price).not.toHaveProperty('format');
  });
});
