import { buildAsyncApiDocument } from '../gateway/asyncapi/asyncapi-document';
import { METHOD_NAMES as RPC_METHODS } from '@legwork/protocol';
import { type Follow, type JsonNode, exampleOf, renderJsonRpcReference } from './json-rpc-reference';

describe('JSON-RPC reference page', () => {
  const doc = buildAsyncApiDocument({ version: '0.1.0', served: RPC_METHODS.map((name) => ({ name, access: { kind: 'public' } as const })) });
  const html = renderJsonRpcReference(doc);

  it('has a section per method with params, result, errors and a three-part example', () => {
    for (const method of RPC_METHODS) {
      const id = method.replace(/[^A-Za-z0-9]+/g, '-');
      const start = html.indexOf(`<section class="method" id="${id}"`);
      expect(start).toBeGreaterThan(0);
      const section = html.slice(start, html.indexOf('</section>', start));
      for (const heading of ['<h4>Params</h4>', '<h4>Result</h4>', '<h4>Errors</h4>', '<h4>Example exchange</h4>']) expect(section).toContain(heading);
      expect(section.match(/<pre>/g)).toHaveLength(3);
      expect(section).toContain(`&quot;method&quot;: &quot;${method}&quot;`);
    }
  });

  it('lists the error codes of a method, and every notification of both channels', () => {
    const create = html.slice(html.indexOf('id="rfq-create"'));
    expect(create.slice(0, create.indexOf('</section>'))).toContain('RFQ_INVALID_INSTRUMENT');
    for (const title of ['RFQ event (taker)', 'New pending RFQ', 'RFQ left pending']) expect(html).toContain(title);
  });

  it('escapes what it shows (no markup from the document gets through)', () => {
    const evil = renderJsonRpcReference({ ...doc, info: { title: '<script>x</script>', version: '1', description: '- <b>' } });
    expect(evil).not.toContain('<script>x');
    expect(evil).toContain('&lt;script&gt;');
    expect(evil).not.toMatch(/<script/);
  });

  it('makes examples from the schema: its own examples first, then consts, enums and types, following $refs', () => {
    const follow: Follow = (s) =>
      (s as JsonNode | undefined)?.$ref === '#/x' ? { type: 'string', examples: ['from-ref'] } : ((s as JsonNode | undefined) ?? {});
    expect(
      exampleOf(
        {
          type: 'object',
          properties: { a: { $ref: '#/x' }, b: { const: 2 }, c: { enum: ['e', 'f'] }, d: { type: 'integer', minimum: 5 } },
          required: ['a', 'b', 'c', 'd'],
        },
        follow,
      ),
    ).toEqual({
      a: 'from-ref',
      b: 2,
      c: 'e',
      d: 5,
    });
    expect(exampleOf({ oneOf: [{ type: 'null' }, { type: 'boolean' }] }, follow)).toBe(true);
  });
});
