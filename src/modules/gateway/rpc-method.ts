import { SetMetadata, applyDecorators } from '@nestjs/common';
import { ACCESS, type Access, type Principal } from '../auth/access';
import type { EventSource } from './event-stream';
import type { Channel } from '../../common/broadcast/notifier';

export const RPC_METHOD = 'legwork:rpc-method';

/** Every method of the trading WebSocket (interface.md 4.2). A method outside this list is -32601. */
export const RPC_METHODS = [
  'public/get_nonce',
  'public/auth',
  'public/session_resume',
  'public/get_market_config',
  'public/get_instruments',
  'rfq.create',
  'rfq.accept',
  'rfq.get',
  'rfq.list',
  'rfq.subscribe',
  'rfq.maker.poll',
  'rfq.maker.respond',
  'rfq.maker.decline',
  'rfq.maker.subscribe',
] as const;
export type RpcMethodName = (typeof RPC_METHODS)[number];

/** What a handler may do to its connection, without seeing the socket. */
export interface RpcSession {
  /** The connection is now signed in as this principal. */
  signIn(principal: Principal): void;
  subscribe(channel: Channel): void;
  /**
   * Subscribes `channel` with the account's event stream (design.md 13): replays the stored events
   * after `since`, then the live ones, each once, in order. The latest account_seq.
   */
  openStream(channel: Channel, since: number | null, source: EventSource): Promise<number>;
}

export interface RpcContext {
  principal: Principal | null;
  clientIp: string;
  session: RpcSession;
}

export type RpcHandler = (params: Record<string, unknown>, context: RpcContext) => Promise<object> | object;

/**
 * Declares a JSON-RPC method on a provider method, with who may call it (the gateway applies the
 * Access itself: global guards do not reach gateway messages).
 */
export function RpcMethod(name: RpcMethodName, access: Access): MethodDecorator {
  return applyDecorators(SetMetadata(RPC_METHOD, name), SetMetadata(ACCESS, access));
}
