import { SetMetadata, applyDecorators } from '@nestjs/common';
import { ACCESS, type Access, type Principal } from '../auth/access';
import type { EventSource } from './event-stream';
import type { Channel } from '../../common/broadcast/notifier';
import type { RfqErrorCode } from '../../common/errors/app-error';
import type { RpcErrorName } from './json-rpc';
import type { JsonSchema } from './schema/json-schema';
import type { ObjectNode } from './schema/schema';

export const RPC_METHOD = 'legwork:rpc-method';
export const RPC_DECLARATION = 'legwork:rpc-declaration';

/** Every method of the trading WebSocket (docs/spec/interface.md 4.2). A method outside this list is -32601. */
export const RPC_METHODS = [
  'public/get_nonce',
  'public/auth',
  'public/session_resume',
  'public/get_market_config',
  'public/get_instruments',
  'rfq.create',
  'rfq.accept',
  'rfq.cancel',
  'rfq.cancel_all',
  'rfq.get',
  'rfq.list',
  'rfq.subscribe',
  'rfq.maker.poll',
  'rfq.maker.respond',
  'rfq.maker.decline',
  'rfq.maker.subscribe',
  'rfq.maker.set_limits',
  'rfq.maker.get_limits',
  'rfq.maker.reset_protection',
  'rfq.maker.check',
] as const;
export type RpcMethodName = (typeof RPC_METHODS)[number];

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

/**
 * What a method takes and answers, declared beside its handler: the params (compiled into the
 * method's validator by the registry, written into /asyncapi.json), the result and the failures.
 */
export interface RpcDeclaration<P = unknown> {
  summary: string;
  description?: string;
  params: ObjectNode<P>;
  /** JSON Schema of `result`. */
  result: JsonSchema;
  /**
   * The failures the method answers with besides the ones every call may get (-32603 for public/*;
   * RFQ_NOT_ENABLED, RFQ_WRONG_ROLE, RFQ_RATE_LIMITED, RFQ_VALUE_OUT_OF_RANGE, RFQ_NOT_READY for rfq.*).
   */
  errors: readonly RpcErrorName[] | readonly RfqErrorCode[];
}

/** The parsed params of a declaration. */
export type ParamsOf<D> = D extends RpcDeclaration<infer P> ? P : never;

/** The handler gets the params its declaration parsed. */
export type RpcHandler = (params: unknown, context: RpcContext) => Promise<object> | object;

/**
 * Declares a JSON-RPC method on a provider method, with who may call it (the gateway applies the
 * Access itself: global guards do not reach gateway messages) and what it takes: the dispatcher
 * validates the params against `declaration` and hands the handler the parsed command.
 */
export function RpcMethod<P>(
  name: RpcMethodName,
  access: Access,
  declaration: RpcDeclaration<P>,
): <H extends (params: P, context: RpcContext) => Promise<object> | object>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<H>,
) => void {
  return applyDecorators(SetMetadata(RPC_METHOD, name), SetMetadata(ACCESS, access), SetMetadata(RPC_DECLARATION, declaration));
}
