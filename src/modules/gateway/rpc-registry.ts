import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { ACCESS, type Access } from '../auth/access';
import { METHOD_SCHEMAS } from './asyncapi/method-schemas';
import { RPC_DECLARATION, RPC_METHOD, RPC_METHODS, type RpcDeclaration, type RpcHandler, type RpcMethodName } from './rpc-method';
import { type ParamsParser, compileParams } from './schema/compile';

export interface RegisteredMethod {
  name: RpcMethodName;
  access: Access;
  /** The method's params validator, compiled once from its declaration: the typed command, or the contract's error. */
  parse: ParamsParser<unknown>;
  handler: RpcHandler;
}

/** The method's validator, after checking that its handler's declaration is the one /asyncapi.json describes. */
function compileDeclared(name: RpcMethodName, declaration: RpcDeclaration | undefined): ParamsParser<unknown> {
  if (!declaration) throw new Error(`JSON-RPC method ${name} declares no params`);
  if (declaration !== METHOD_SCHEMAS[name]) throw new Error(`JSON-RPC method ${name} is declared with a schema other than METHOD_SCHEMAS['${name}']`);
  return compileParams(declaration.params, name.startsWith('rfq.') ? 'rfq' : 'public');
}

/** Finds every @RpcMethod in the application's providers, with its compiled params validator. */
@Injectable()
export class RpcRegistry implements OnModuleInit {
  private readonly methods = new Map<string, RegisteredMethod>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || typeof instance !== 'object' || !wrapper.isDependencyTreeStatic()) continue;
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown> | null;
      for (const key of this.scanner.getAllMethodNames(prototype)) {
        // getAllMethodNames lists only function-valued keys: the check narrows the type.
        const method = prototype?.[key];
        if (typeof method !== 'function') continue;
        const name = this.reflector.get<RpcMethodName | undefined>(RPC_METHOD, method);
        if (!name) continue;
        const access = this.reflector.get<Access | undefined>(ACCESS, method);
        if (!access) throw new Error(`JSON-RPC method ${name} declares no access`);
        if (!(RPC_METHODS as readonly string[]).includes(name)) throw new Error(`${name} is not a method of the interface`);
        if (this.methods.has(name)) throw new Error(`JSON-RPC method ${name} is declared twice`);
        const parse = compileDeclared(name, this.reflector.get<RpcDeclaration | undefined>(RPC_DECLARATION, method));
        this.methods.set(name, { name, access, parse, handler: (method as RpcHandler).bind(instance) });
      }
    }
  }

  get(name: string): RegisteredMethod | undefined {
    return this.methods.get(name);
  }

  all(): RegisteredMethod[] {
    return [...this.methods.values()];
  }
}
