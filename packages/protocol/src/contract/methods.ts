import type { MethodDeclaration } from './declaration';
import type { SubscriptionChannel } from './enums';
import type { WireOf } from './params';
import { DESK_METHODS } from './methods-desk';
import { MAKER_PROFILE_METHODS } from './methods-maker-profile';
import { PUBLIC_METHODS } from './methods-public';
import { QUOTER_METHODS, TAKER_METHODS } from './methods-rfq';
import { RECONCILE_METHODS } from './methods-reconcile';
import type { WireType } from './views';

/**
 * Every JSON-RPC method of the trading WebSocket (docs/spec/interface.md 4.2), each declared once.
 * The server compiles its validator and dispatch policy from here and writes /asyncapi.json from
 * it; the SDK's calls, the console's and the Python client's types are read off it. A method
 * outside this table is -32601. Adding one: its declaration here and its handler on the server.
 */
export const METHODS = {
  ...PUBLIC_METHODS,
  ...TAKER_METHODS,
  ...QUOTER_METHODS,
  ...DESK_METHODS,
  ...RECONCILE_METHODS,
  ...MAKER_PROFILE_METHODS,
} satisfies Record<string, MethodDeclaration>;

export type MethodName = keyof typeof METHODS;
export const METHOD_NAMES = Object.keys(METHODS) as MethodName[];

/** The method's declaration as plain data (for code that walks every method). */
export const methodDeclaration = (name: MethodName): MethodDeclaration => METHODS[name];

export const isMethodName = (name: string): name is MethodName => Object.prototype.hasOwnProperty.call(METHODS, name);

/** What a client sends as `params` (snake_case fields, decimals as strings; defaulted fields optional). */
export type MethodParams<M extends MethodName> = WireOf<(typeof METHODS)[M]['params']>;
/** What the server answers as `result`. */
export type MethodResult<M extends MethodName> = WireType<(typeof METHODS)[M]['result']>;
/** The params as the server's validator hands them to the handler (camelCase, decimals as bigint micro-units). */
export type MethodCommand<M extends MethodName> = (typeof METHODS)[M]['params'] extends { readonly __out?: () => infer T } ? T : never;
type SubscribeMethod<C> = { [M in MethodName]: (typeof METHODS)[M] extends { readonly subscribes: C } ? M : never }[MethodName];
/** The method each subscription channel is opened with. */
export const SUBSCRIBE_METHODS = Object.fromEntries(
  METHOD_NAMES.flatMap((name) => {
    const channel = methodDeclaration(name).subscribes;
    return channel ? [[channel, name]] : [];
  }),
) as { [C in SubscriptionChannel]: SubscribeMethod<C> };
