import { type Diagnostic, Parser } from '@asyncapi/parser';
import { METHOD_NAMES as RPC_METHODS, METHODS as METHOD_SCHEMAS } from '@legwork/protocol';
import { buildAsyncApiDocument, methodKey } from './asyncapi-document';

/** DiagnosticSeverity.Error, as the parser's own copy of @stoplight/types declares the diagnostics' severity. */
const ERROR: Diagnostic['severity'] = 0;

describe('AsyncAPI description of the trading WebSocket', () => {
  const document = buildAsyncApiDocument({ version: '0.1.0', served: [{ name: 'public/get_nonce', access: { kind: 'public' } }] });

  it('is a valid AsyncAPI 3.0 document (no error diagnostics)', async () => {
    const { document: parsed, diagnostics } = await new Parser().parse(JSON.stringify(document));
    const errors = diagnostics.filter((d) => d.severity === ERROR);
    expect(errors.map((d) => `${d.path.join('.')}: ${d.message}`)).toEqual([]);
    expect(parsed?.version()).toBe('3.0.0');
    expect(parsed?.info().version()).toBe('0.1.0');
  });

  it('has an operation with a request, a result and an error message for every method of the interface', () => {
    const operations = document.operations as Record<string, any>;
    for (const method of RPC_METHODS) {
      expect(METHOD_SCHEMAS[method]).toBeDefined();
      expect(operations[methodKey(method)]).toMatchObject({ action: 'receive', 'x-jsonrpc-method': method });
    }
    expect(operations.rfq_events.action).toBe('send');
    expect(operations.rfq_maker_events.action).toBe('send');
  });

  it("covers competitive RFQs (design.md 18): the taker's quotes, the makers' traded_away, expired and closed, and the methods", () => {
    const channels = document.channels as Record<string, { description: string; messages: Record<string, { $ref: string }> }>;
    const messages = (document.components as { messages: Record<string, unknown> }).messages;
    const payloads = (channel: string) => JSON.stringify(Object.keys(channels[channel].messages).map((key) => messages[key]));
    expect(payloads('rfq')).toContain('"quotes"');
    for (const event of ['"traded_away"', '"expired"', '"closed"', '"created"']) expect(payloads('rfq_maker')).toContain(event);
    expect(channels.rfq.description).toContain('quotes');
    expect(channels.rfq_maker.description).toMatch(/traded_away.*expired/);
    const operations = document.operations as Record<string, any>;
    for (const method of ['rfq.makers', 'rfq.maker.stats', 'rfq.maker.set_profile', 'rfq.maker.cancel_quote', 'rfq.maker.cancel_quotes', 'rfq.transcript']) {
      expect(operations[methodKey(method)]).toMatchObject({ action: 'receive', 'x-jsonrpc-method': method });
    }
    expect(JSON.stringify(messages[`${methodKey('rfq.makers')}.result`])).toContain('DirectoryMaker');
    expect(JSON.stringify(messages[`${methodKey('rfq.maker.stats')}.result`])).toContain('MakerStats');
  });

  it('says which methods this build does not serve', () => {
    const operations = document.operations as Record<string, any>;
    expect(operations.public_get_nonce.description).toContain('No sign-in needed');
    expect(operations.rfq_create.description).toContain('-32601');
  });
});
