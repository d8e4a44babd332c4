import type { RfqErrorCode, RfqErrorReason } from './errors';

/**
 * The params of a JSON-RPC method as plain typed data: one declaration that the server compiles
 * into the method's validator and writes into /asyncapi.json (as JSON Schema, json-schema.ts), and
 * that types the clients' calls (`WireOf`). A node names its own failures, so the contract's exact
 * code and message stay in the declaration.
 *
 * A failure's text may hold `{path}` (the field, e.g. `legs[0].quantity`), `{value}` (a short
 * JSON rendering of what was sent) and `{length}` (of an array). `code` is an RFQ code other than
 * the method's default failure (RFQ_VALUE_OUT_OF_RANGE for rfq.*, INVALID_PARAMS for public/*);
 * `reason` refines it (design.md section 19; absent: the code's first reason).
 */
export type Fault = string | { code: RfqErrorCode; message: string; reason?: RfqErrorReason };

/** What a node says in /asyncapi.json besides its checks. */
export interface Doc {
  /** A schema of components.schemas the document refers to instead of the inline form. */
  ref?: string;
  description?: string;
  /** Documented default (a runtime default is the prop's, see `withDefault`). */
  default?: unknown;
}

/**
 * The parsed type of a node (the server's command) and its type on the wire (what a client sends), carried by the type only.
 * @public (exported for the declaration files of the nodes that extend it)
 */
export interface Typed<T, W = T> {
  readonly __out?: () => T;
  readonly __wire?: () => W;
}

export interface StringNode<T extends string = string> extends Doc, Typed<T> {
  kind: 'string';
  pattern?: RegExp;
  enum?: readonly T[];
  maxLength?: number;
  /** Not a string, or not one of `enum`. */
  invalid: Fault;
  /** Off `pattern` (default `invalid`). */
  mismatch?: Fault;
}

/** A JSON number that is a safe integer (int64 held exactly), within the bounds. */
export interface IntegerNode extends Doc, Typed<number> {
  kind: 'integer';
  minimum?: number;
  maximum?: number;
  invalid: Fault;
  /** Outside the bounds (default `invalid`). */
  range?: Fault;
}

export interface BooleanNode extends Doc, Typed<boolean> {
  kind: 'boolean';
  invalid: Fault;
}

/** An RfqSignedDecimal (docs/spec/interface.md 2) in micro-units. */
export interface DecimalNode extends Doc, Typed<bigint, string> {
  kind: 'decimal';
  /** Neither a string nor a number. */
  invalid: Fault;
  /** Not canonical text with at most 6 fractional digits (a JSON number included). */
  precision: Fault;
  /** Canonical but outside the signed 64-bit range. */
  range: Fault;
  /** Zero is refused, after every sibling's precision (see compile.ts, phases). */
  nonZero?: Fault;
}

/** A canonical decimal u64 string of 1 or more, as a bigint. */
export interface U64Node extends Doc, Typed<bigint, string> {
  kind: 'u64';
  invalid: Fault;
  range: Fault;
}

export interface ArrayNode<T, W = T> extends Doc, Typed<T[], W[]> {
  kind: 'array';
  items: Node<unknown>;
  invalid: Fault;
  minItems?: number;
  maxItems?: number;
  /** Fewer than minItems or more than maxItems (default `invalid`). */
  size?: Fault;
  /** Set when items must not repeat. */
  unique?: Fault;
}

/** A value documented here but checked by the service (which must count the attempt first). */
export interface ServiceCheckedNode<W = unknown> extends Doc, Typed<unknown, W> {
  kind: 'service';
  documented: Node<unknown>;
}

export interface Prop<T = unknown, Optional extends boolean = boolean, W = T, WireOptional extends boolean = Optional> {
  node: Node<unknown>;
  /** Absent is fine; the parsed object then has no such key. */
  optional: Optional;
  /** Absent (or null with `nullable`) reads as this. */
  default?: { value: unknown; nullable: boolean };
  readonly __out?: () => T;
  readonly __wire?: () => W;
  readonly __wireOptional?: WireOptional;
}

export interface ObjectNode<T, W = unknown> extends Doc, Typed<T, W> {
  kind: 'object';
  props: Record<string, Prop>;
  /** Not an object (params themselves are checked by the dispatcher). */
  invalid?: Fault;
  /** Every required field is checked for presence before any value (rfq.accept). */
  requiredFirst?: boolean;
}

export type Node<T> = StringNode<T & string> | IntegerNode | BooleanNode | DecimalNode | U64Node | ArrayNode<unknown> | ServiceCheckedNode | ObjectNode<T>;

type Infer<N> = N extends { readonly __out?: () => infer T } ? T : never;
/** What a client sends for a node: decimals as strings, fields snake_case, defaulted fields optional. */
export type WireOf<N> = N extends { readonly __wire?: () => infer W } ? W : never;

/** `client_ref` → `clientRef`: the key of a field in the parsed command. */
type Camel<S extends string> = S extends `${infer H}_${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;
export const camel = (key: string): string => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

type PropOut<P> = P extends { readonly __out?: () => infer T } ? T : never;
type PropWire<P> = P extends { readonly __wire?: () => infer W } ? W : never;
type Flat<T> = { [K in keyof T]: T[K] } & {};
type WireRequired<P> = P extends { readonly __wireOptional?: infer O } ? (O extends false ? true : false) : false;
type ObjectWire<P extends Record<string, Prop>> = Flat<
  { [K in keyof P as WireRequired<P[K]> extends true ? K : never]: PropWire<P[K]> } & {
    [K in keyof P as WireRequired<P[K]> extends true ? never : K]?: PropWire<P[K]>;
  }
>;
type ObjectOut<P extends Record<string, Prop>> = Flat<
  { [K in keyof P as P[K] extends { optional: false } ? Camel<K & string> : never]: PropOut<P[K]> } & {
    [K in keyof P as P[K] extends { optional: false } ? never : Camel<K & string>]?: PropOut<P[K]>;
  }
>;

// Builders.

export const string = <const T extends string = string>(node: Omit<StringNode<T>, 'kind'>): StringNode<T> => ({ kind: 'string', ...node });
export const integer = (node: Omit<IntegerNode, 'kind'>): IntegerNode => ({ kind: 'integer', ...node });
export const boolean = (node: Omit<BooleanNode, 'kind'>): BooleanNode => ({ kind: 'boolean', ...node });
export const decimal = (node: Omit<DecimalNode, 'kind'>): DecimalNode => ({ kind: 'decimal', ...node });
export const u64 = (node: Omit<U64Node, 'kind'>): U64Node => ({ kind: 'u64', ...node });
export const array = <I extends Node<unknown>>(
  node: Omit<ArrayNode<Infer<I>, WireOf<I>>, 'kind' | 'items'> & { items: I },
): ArrayNode<Infer<I>, WireOf<I>> => ({
  kind: 'array',
  ...node,
});
export const checkedByService = <N extends Node<unknown>>(documented: N, doc: Doc = {}): ServiceCheckedNode<WireOf<N>> => ({
  kind: 'service',
  documented,
  ...doc,
});
export const object = <P extends Record<string, Prop>>(
  props: P,
  options: Pick<ObjectNode<unknown>, 'ref' | 'description' | 'invalid' | 'requiredFirst'> = {},
): ObjectNode<ObjectOut<P>, ObjectWire<P>> => ({
  kind: 'object',
  props,
  ...options,
});

export const required = <N extends Node<unknown>>(node: N): Prop<Infer<N>, false, WireOf<N>> => ({ node, optional: false });
export const optional = <N extends Node<unknown>>(node: N): Prop<Infer<N>, true, WireOf<N>> => ({ node, optional: true });
/** Absent reads as `value`; with `nullable`, null too (so a client may send null). */
export const withDefault = <N extends Node<unknown>, const D, const Nullable extends boolean = false>(
  node: N,
  value: D,
  nullable?: Nullable,
): Prop<Infer<N> | D, false, WireOf<N> | (Nullable extends true ? null : never), true> => ({
  node,
  optional: false,
  default: { value, nullable: nullable ?? false },
});
