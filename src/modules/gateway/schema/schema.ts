import type { RfqErrorCode } from '../../../common/errors/app-error';

/**
 * The params of a JSON-RPC method as plain typed data: one declaration that the gateway compiles
 * into the method's validator (compile.ts) and writes into /asyncapi.json (json-schema.ts). A
 * node names its own failures, so the contract's exact code and message stay in the declaration.
 *
 * A failure's text may hold `{path}` (the field, e.g. `legs[0].quantity`), `{value}` (a short
 * JSON rendering of what was sent) and `{length}` (of an array). `code` is an RFQ code other than
 * the method's default failure (RFQ_VALUE_OUT_OF_RANGE for rfq.*, INVALID_PARAMS for public/*).
 */
export type Fault = string | { code: RfqErrorCode; message: string };

/** What a node says in /asyncapi.json besides its checks. */
interface Doc {
  /** A schema of components.schemas the document refers to instead of the inline form. */
  ref?: string;
  description?: string;
  /** Documented default (a runtime default is the prop's, see `withDefault`). */
  default?: unknown;
}

/** The parsed type of a node, carried by the type only. */
interface Typed<T> {
  readonly __out?: () => T;
}

interface StringNode<T extends string = string> extends Doc, Typed<T> {
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
interface IntegerNode extends Doc, Typed<number> {
  kind: 'integer';
  minimum?: number;
  maximum?: number;
  invalid: Fault;
  /** Outside the bounds (default `invalid`). */
  range?: Fault;
}

interface BooleanNode extends Doc, Typed<boolean> {
  kind: 'boolean';
  invalid: Fault;
}

/** An RfqSignedDecimal (docs/spec/interface.md 2) in micro-units. */
interface DecimalNode extends Doc, Typed<bigint> {
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
interface U64Node extends Doc, Typed<bigint> {
  kind: 'u64';
  invalid: Fault;
  range: Fault;
}

interface ArrayNode<T> extends Doc, Typed<T[]> {
  kind: 'array';
  items: Node<T>;
  invalid: Fault;
  minItems?: number;
  maxItems?: number;
  /** Fewer than minItems or more than maxItems (default `invalid`). */
  size?: Fault;
  /** Set when items must not repeat. */
  unique?: Fault;
}

/** A value documented here but checked by the service (which must count the attempt first). */
interface ServiceCheckedNode extends Doc, Typed<unknown> {
  kind: 'service';
  documented: Node<unknown>;
}

export interface Prop<T = unknown, Optional extends boolean = boolean> {
  node: Node<unknown>;
  /** Absent is fine; the parsed object then has no such key. */
  optional: Optional;
  /** Absent (or null with `nullable`) reads as this. */
  default?: { value: unknown; nullable: boolean };
  readonly __out?: () => T;
}

export interface ObjectNode<T> extends Doc, Typed<T> {
  kind: 'object';
  props: Record<string, Prop>;
  /** Not an object (params themselves are checked by the dispatcher). */
  invalid?: Fault;
  /** Every required field is checked for presence before any value (rfq.accept). */
  requiredFirst?: boolean;
}

export type Node<T> = StringNode<T & string> | IntegerNode | BooleanNode | DecimalNode | U64Node | ArrayNode<unknown> | ServiceCheckedNode | ObjectNode<T>;

type Infer<N> = N extends { readonly __out?: () => infer T } ? T : never;

/** `client_ref` → `clientRef`: the key of a field in the parsed command. */
type Camel<S extends string> = S extends `${infer H}_${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;
export const camel = (key: string): string => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

type PropOut<P> = P extends Prop<infer T, boolean> ? T : never;
type Flat<T> = { [K in keyof T]: T[K] } & {};
type ObjectOut<P extends Record<string, Prop>> = Flat<
  { [K in keyof P as P[K] extends Prop<unknown, false> ? Camel<K & string> : never]: PropOut<P[K]> } & {
    [K in keyof P as P[K] extends Prop<unknown, false> ? never : Camel<K & string>]?: PropOut<P[K]>;
  }
>;

// Builders.

export const string = <const T extends string = string>(node: Omit<StringNode<T>, 'kind'>): StringNode<T> => ({ kind: 'string', ...node });
export const integer = (node: Omit<IntegerNode, 'kind'>): IntegerNode => ({ kind: 'integer', ...node });
export const boolean = (node: Omit<BooleanNode, 'kind'>): BooleanNode => ({ kind: 'boolean', ...node });
export const decimal = (node: Omit<DecimalNode, 'kind'>): DecimalNode => ({ kind: 'decimal', ...node });
export const u64 = (node: Omit<U64Node, 'kind'>): U64Node => ({ kind: 'u64', ...node });
export const array = <T>(node: Omit<ArrayNode<T>, 'kind'>): ArrayNode<T> => ({ kind: 'array', ...node });
export const checkedByService = (documented: Node<unknown>, doc: Doc = {}): ServiceCheckedNode => ({ kind: 'service', documented, ...doc });
export const object = <P extends Record<string, Prop>>(
  props: P,
  options: Pick<ObjectNode<unknown>, 'ref' | 'description' | 'invalid' | 'requiredFirst'> = {},
): ObjectNode<ObjectOut<P>> => ({
  kind: 'object',
  props,
  ...options,
});

export const required = <N extends Node<unknown>>(node: N): Prop<Infer<N>, false> => ({ node, optional: false });
export const optional = <N extends Node<unknown>>(node: N): Prop<Infer<N>, true> => ({ node, optional: true });
/** Absent reads as `value`; with `nullable`, null too. */
export const withDefault = <N extends Node<unknown>, const D>(node: N, value: D, nullable = false): Prop<Infer<N> | D, false> => ({
  node,
  optional: false,
  default: { value, nullable },
});

/** Which failures a method's params answer with by default (docs/spec/design.md section 4). */
export type Dialect = 'rfq' | 'public';
