import type { SubscriptionChannel } from './enums';
import type { RfqErrorCode, RpcErrorName } from './errors';
import type { ObjectNode } from './params';

/**
 * Who may call a method (the server's access declaration; the gateway checks it on every call):
 * anyone, or a signed-in wallet that has an account, holding `role` when given.
 */
export type MethodAccess = { readonly kind: 'public' } | { readonly kind: 'account'; readonly role?: 'taker' | 'quoter' };

/**
 * Which failures a method answers with (docs/spec/design.md section 4): `public` the JSON-RPC codes
 * (-32602 INVALID_PARAMS naming the field, 1000 AUTH_REQUIRED, ...), `rfq` code 1200 with the typed
 * RFQ error (RFQ_VALUE_OUT_OF_RANGE naming the field, RFQ_WRONG_ROLE, ...), behind the RFQ switch
 * and the account's rate limit.
 */
export type Dialect = 'public' | 'rfq';

/**
 * One JSON-RPC method of the trading WebSocket, declared once: the server compiles its validator
 * and its dispatch policy from it and writes it into /asyncapi.json; the clients' types are read
 * off it.
 */
export interface MethodDeclaration<P = unknown, W = unknown> {
  summary: string;
  description?: string;
  dialect: Dialect;
  access: MethodAccess;
  /**
   * `write`: the call changes trading state priced on the instrument and market views, so it is
   * refused (RFQ_NOT_READY) while this instance cannot confirm them (docs/spec/design.md 11);
   * `read`: served whatever the views' age.
   */
  mode: 'read' | 'write';
  /** The sign-in methods keep their own limits (nonces, attempts) instead of the public bucket of the caller's IP. */
  ownRateLimit?: true;
  /** The call subscribes the connection to this channel; losing the access it declares drops the subscription. */
  subscribes?: SubscriptionChannel;
  /** The params, compiled into the method's validator; `WireOf` of it is what a client sends. */
  params: ObjectNode<P, W>;
  /** JSON Schema of `result`, referring to the views (views.ts); every object closed (additionalProperties: false). */
  result: object;
  /** The failures the method answers with besides the ones every call of its dialect may get (errors.ts). */
  errors: readonly RpcErrorName[] | readonly RfqErrorCode[];
}

/** Keeps a declaration's literal types (its result schema, its params' node types), so the clients' types can be read off it. */
export const declareMethod = <const D extends MethodDeclaration>(declaration: D): D => declaration;
