import { MetadataScanner, Reflector } from '@nestjs/core';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { MarketRpc } from '../../market-data/market.rpc';
import { RfqRpc } from '../../rfq/rfq.rpc';
import { METHOD_NAMES as RPC_METHODS, METHODS as METHOD_SCHEMAS, type Node, VIEW_SCHEMAS as SCHEMAS, inlineSchemaOf, objectSchemaOf } from '@legwork/protocol';
import { object, required, string } from '../../../../packages/protocol/src/contract/params';
import { buildAsyncApiDocument, methodKey } from '../asyncapi/asyncapi-document';
import { RPC_METHOD, RpcMethod } from '../../../common/rpc/rpc-method';
import { RpcRegistry } from '../rpc-registry';
import { compileParams } from './compile';

type Provider = abstract new (...args: never[]) => object;

/**
 * Every class of a `*.rpc.ts` file under `src` that carries at least one `@RpcMethod`, found on disk: a new
 * handler file is checked without being listed here.
 */
function rpcClasses(): Provider[] {
  const root = join(__dirname, '..', '..', '..');
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.rpc.ts'));
  const reflector = new Reflector();
  const found = files.flatMap((file) =>
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the handler files are found at run time, not listed
    Object.values(require(join(root, file)) as Record<string, unknown>).filter(
      (value): value is Provider =>
        typeof value === 'function' &&
        Object.getOwnPropertyNames(value.prototype).some((key) => {
          const member = (value.prototype as Record<string, unknown>)[key];
          return key !== 'constructor' && typeof member === 'function' && reflector.get(RPC_METHOD, member as () => void) !== undefined;
        }),
    ),
  );
  expect(found.length).toBeGreaterThanOrEqual(files.length);
  return found;
}

/** A registry over these providers (instances without their dependencies: only the metadata is read). */
function registryOf(...classes: Provider[]): RpcRegistry {
  const providers = classes.map((type) => ({ instance: Object.create(type.prototype) as object, isDependencyTreeStatic: () => true }));
  const registry = new RpcRegistry({ getProviders: () => providers } as never, new MetadataScanner(), new Reflector());
  registry.onModuleInit();
  return registry;
}

/** Every node of a declaration's params with the name of the schema it is documented as. */
function namedNodes(node: Node<unknown>, found: Array<[string, Node<unknown>]> = []): Array<[string, Node<unknown>]> {
  if (node.ref) found.push([node.ref, node]);
  if (node.kind === 'array') namedNodes(node.items, found);
  if (node.kind === 'service') namedNodes(node.documented, found);
  if (node.kind === 'object') for (const prop of Object.values(node.props)) namedNodes(prop.node, found);
  return found;
}

describe('JSON-RPC method declarations', () => {
  it('every @RpcMethod of the application is registered with its declaration, and /asyncapi.json describes it', () => {
    const registry = registryOf(...rpcClasses());
    const registered = registry.all().map((m) => m.name);
    expect([...registered].sort()).toEqual([...RPC_METHODS].sort());
    const document = buildAsyncApiDocument({ version: '0.1.0', served: registry.all() }) as {
      operations: Record<string, any>;
      components: { messages: Record<string, any> };
    };
    for (const method of registry.all()) {
      expect(typeof method.parse).toBe('function');
      expect(document.operations[methodKey(method.name)]).toMatchObject({ 'x-jsonrpc-method': method.name, 'x-access': method.access });
      const request = document.components.messages[`${methodKey(method.name)}.request`];
      expect(request.payload.properties.params).toEqual(objectSchemaOf(METHOD_SCHEMAS[method.name].params));
    }
  });

  it('refuses a handler of a method the contract does not declare, and a method handled twice', () => {
    const unknownMethod = RpcMethod as (name: string) => MethodDecorator;
    expect(() => unknownMethod('public/get_weather')).toThrow(/public\/get_weather is not a method of the interface/);
    expect(() => registryOf(MarketRpc, MarketRpc)).toThrow(/declared twice/);
  });

  it('hands the handler the parsed command, and refuses bad params with the method dialect', () => {
    const registry = registryOf(RfqRpc, MarketRpc);
    expect(registry.get('rfq.get')!.parse({ rfq_id: 'ab'.repeat(16) })).toEqual({ rfqId: 'ab'.repeat(16) });
    expect(() => registry.get('rfq.get')!.parse({ rfq_id: 'x' })).toThrow(
      expect.objectContaining({ code: 'RFQ_VALUE_OUT_OF_RANGE', message: 'rfq_id must be 32 lowercase hex characters' }),
    );
    expect(() => registry.get('public/get_instruments')!.parse({ assets: 'SOL' })).toThrow(
      expect.objectContaining({ code: 'INVALID_PARAMS', message: 'unknown param assets' }),
    );
  });

  it.each(RPC_METHODS.map((name) => [name, METHOD_SCHEMAS[name]] as const))(
    '%s: every named node checks what its components.schemas entry says',
    (_name, declaration) => {
      for (const [name, node] of namedNodes(declaration.params)) {
        const component = (SCHEMAS as Record<string, Record<string, unknown>>)[name];
        expect(component).toBeDefined();
        const inline = inlineSchemaOf(node);
        for (const key of ['type', 'pattern', 'enum'] as const)
          if (inline[key] !== undefined && component[key] !== undefined) expect([name, key, inline[key]]).toEqual([name, key, component[key]]);
        if (inline.type === 'object') {
          expect(Object.keys(inline.properties as object)).toEqual(Object.keys(component.properties as object));
          expect(inline.required).toEqual(component.required);
        }
      }
    },
  );

  it('the dispatch policy is the declaration: rfq.* methods speak the rfq dialect, the reads are served on unconfirmed views', () => {
    for (const name of RPC_METHODS) expect([name, METHOD_SCHEMAS[name].dialect]).toEqual([name, name.startsWith('rfq.') ? 'rfq' : 'public']);
    const reads = RPC_METHODS.filter((name) => METHOD_SCHEMAS[name].dialect === 'rfq' && METHOD_SCHEMAS[name].mode === 'read');
    expect(reads.sort()).toEqual([
      'rfq.get',
      'rfq.list',
      'rfq.maker.poll',
      'rfq.maker.quotes',
      'rfq.maker.stats',
      'rfq.maker.subscribe',
      'rfq.makers',
      'rfq.subscribe',
      'rfq.transcript',
    ]);
  });

  it('sign-in params: only unknown ones are refused here, the values are the service’s (it counts the attempt first)', () => {
    const nonce = compileParams(METHOD_SCHEMAS['public/get_nonce'].params, 'public');
    expect(nonce({})).toEqual({ wallet: undefined });
    expect(nonce({ wallet: 5 })).toEqual({ wallet: 5 });
    expect(() => nonce({ wallet: 'w', extra: 1 })).toThrow(expect.objectContaining({ code: 'INVALID_PARAMS', message: 'unknown param extra' }));
    expect(compileParams(METHOD_SCHEMAS['public/session_resume'].params, 'public')({ session_token: 't' })).toEqual({ sessionToken: 't' });
  });

  it('a public/* declaration cannot carry an RFQ error code', () => {
    const node = object({ x: required(string({ invalid: { code: 'RFQ_SIZE_INVALID', message: '{path} bad' } })) });
    expect(() => compileParams(node, 'public')).toThrow(/INVALID_PARAMS only/);
    expect(() => compileParams(node, 'rfq')({ x: 1 })).toThrow(expect.objectContaining({ code: 'RFQ_SIZE_INVALID', message: 'x bad' }));
  });
});
