import { type MethodDeclaration, isMethodName, methodDeclaration } from '@legwork/protocol';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import type { Access } from '../../common/access/access';
import { RPC_METHOD, type RpcHandler, type RpcMethodName } from '../../common/rpc/rpc-method';
import { type ParamsParser, compileParams } from './schema/compile';

export interface RegisteredMethod {
  name: RpcMethodName;
  /** The method's declaration in `@legwork/protocol`: its dialect, access, read or write, subscription. */
  declaration: MethodDeclaration;
  access: Access;
  /** The method's params validator, compiled once from its declaration: the typed command, or the contract's error. */
  parse: ParamsParser<unknown>;
  handler: RpcHandler;
}

/** Finds every @RpcMethod in the application's providers, with its declaration and compiled params validator. */
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
        const name = this.reflector.get<string | undefined>(RPC_METHOD, method);
        if (!name) continue;
        if (!isMethodName(name)) throw new Error(`${name} is not a method of the interface`);
        if (this.methods.has(name)) throw new Error(`JSON-RPC method ${name} is declared twice`);
        const declaration = methodDeclaration(name);
        const parse = compileParams(declaration.params, declaration.dialect);
        this.methods.set(name, { name, declaration, access: declaration.access, parse, handler: (method as RpcHandler).bind(instance) });
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
