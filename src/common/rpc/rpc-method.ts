import { METHODS, type MethodCommand, type MethodName, type MethodResult, isMethodName } from '@legwork/protocol';
import { SetMetadata, applyDecorators } from '@nestjs/common';
import { ACCESS, type Access, type Principal } from '../access/access';
import type { EventSource } from './event-source';
import type { JsonText } from './json-text';
import type { Channel } from '../broadcast/notifier';

export const RPC_METHOD = 'legwork:rpc-method';

/** Every method of the trading WebSocket is declared in `@legwork/protocol` (METHODS); a method outside it is -32601. */
export type RpcMethodName = MethodName;

/** What a handler may do to its connection, without seeing the socket. */
export interface RpcSession {
  /** The connection is now signed in as this principal. */
  signIn(principal: Principal): void;
  subscribe(channel: Channel): void;
  /**
   * Subscribes `channel` with the account's event stream (docs/spec/design.md 13): replays the stored events
   * after `since`, then the live ones, each once, in order. The latest account_seq.
   */
  openStream(channel: Channel, since: number | null, source: EventSource): Promise<number>;
}

export interface RpcContext {
  principal: Principal | null;
  clientIp: string;
  session: RpcSession;
}

/** The handler gets the params its declaration parsed. */
export type RpcHandler = (params: unknown, context: RpcContext) => Promise<object> | object;

/**
 * What a handler of `M` may return: its declared result (`MethodResult`, read off the declaration's
 * result schema), as a value or as JSON text made from one, now or in a promise. A handler whose
 * result does not match its declaration does not compile.
 */
export type HandlerResult<M extends MethodName> = MethodResult<M> | JsonText<MethodResult<M>> | Promise<MethodResult<M> | JsonText<MethodResult<M>>>;

/**
 * Marks a provider method as the handler of a JSON-RPC method of the contract (`METHODS` of
 * `@legwork/protocol`): who may call it (the gateway applies the access itself: global guards do
 * not reach gateway messages), its params validator and its dispatch policy are the declaration's.
 * The handler gets the command the validator parsed.
 */
export function RpcMethod<M extends MethodName>(
  name: M,
): <H extends (params: MethodCommand<M>, context: RpcContext) => HandlerResult<M>>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<H>,
) => void {
  if (!isMethodName(name)) throw new Error(`${String(name)} is not a method of the interface`);
  return applyDecorators(SetMetadata(RPC_METHOD, name), SetMetadata(ACCESS, METHODS[name].access satisfies Access));
}
