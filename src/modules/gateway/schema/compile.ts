import { DecimalError, U64_MAX, parseRfqSigned } from '../../../common/decimal/decimal';
import { AppError, RfqError } from '../../../common/errors/app-error';
import { type Dialect, type Fault, type Node, type ObjectNode, type Prop, camel } from './schema';

/**
 * The one validator of JSON-RPC params: a method's declaration compiled once (at registration)
 * into plain functions, so a call walks the params without building a closure or a schema.
 *
 * Order of checks (the behaviour of the hand parsers it replaced, which the contract's tests pin):
 * unknown fields first (the first one named), then the fields in declaration order, each field
 * checked fully before the next. Inside an array the items go in phases, so that a later item's
 * shape fails before an earlier item's value: the shape of every item (type, unknown and missing
 * fields), then the value of every item (decimals), then the rules over parsed values (non-zero).
 */

export type ParamsParser<T> = (params: Record<string, unknown>) => T;

type Raise = (path: string, value: unknown) => never;

interface Check {
  /** Type, pattern, bounds, unknown and missing fields. */
  shape?: (value: unknown, path: string) => void;
  /** The parsed value (absent: the value itself). */
  parse?: (value: unknown, path: string) => unknown;
  /** Rules over the parsed value (absent: none). */
  refine?: (parsed: unknown, path: string) => void;
}

interface Field {
  key: string;
  out: string;
  prop: Prop;
  check: Check;
  /** Presence is the service's business. */
  serviceChecked: boolean;
}

/** A short, safe rendering of a client value for a message. */
export function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

class Compiler {
  constructor(private readonly dialect: Dialect) {}

  error(code: string | undefined, message: string): Error {
    if (this.dialect === 'public') return new AppError('INVALID_PARAMS', message);
    return new RfqError((code as RfqError['code'] | undefined) ?? 'RFQ_VALUE_OUT_OF_RANGE', message);
  }

  /** The fault's text template, split once: a call only concatenates. */
  fault(fault: Fault): Raise {
    const { code, message } = typeof fault === 'string' ? { code: undefined, message: fault } : fault;
    if (code && this.dialect === 'public') throw new Error(`a public/* method answers INVALID_PARAMS only, not ${code}`);
    const parts = message.split(/(\{path\}|\{value\}|\{length\})/).filter((part) => part !== '');
    return (path, value) => {
      let text = '';
      for (const part of parts) {
        text += part === '{path}' ? path : part === '{value}' ? show(value) : part === '{length}' ? String((value as unknown[]).length) : part;
      }
      throw this.error(code, text);
    };
  }

  unknownField(where: string, key: string): never {
    throw this.error(undefined, this.dialect === 'public' ? `unknown param ${key}` : `${where} has an unknown field ${show(key)}`);
  }

  missing(path: string): never {
    throw this.error(undefined, `${path} is required`);
  }

  node(node: Node<unknown>): Check {
    switch (node.kind) {
      case 'string': {
        const invalid: Raise = this.fault(node.invalid);
        const mismatch: Raise = node.mismatch ? this.fault(node.mismatch) : invalid;
        const allowed = node.enum ? new Set<unknown>(node.enum) : null;
        const { pattern, maxLength } = node;
        return {
          shape: (value, path) => {
            if (typeof value !== 'string' || (allowed !== null && !allowed.has(value))) invalid(path, value);
            if (maxLength !== undefined && value.length > maxLength) invalid(path, value);
            if (pattern && !pattern.test(value)) mismatch(path, value);
          },
        };
      }
      case 'integer': {
        const invalid: Raise = this.fault(node.invalid);
        const range: Raise = node.range ? this.fault(node.range) : invalid;
        const min = node.minimum ?? -Infinity;
        const max = node.maximum ?? Infinity;
        return {
          shape: (value, path) => {
            if (typeof value !== 'number' || !Number.isSafeInteger(value)) invalid(path, value);
            if (value < min || value > max) range(path, value);
          },
        };
      }
      case 'boolean': {
        const invalid: Raise = this.fault(node.invalid);
        return { shape: (value, path) => (typeof value === 'boolean' ? undefined : invalid(path, value)) };
      }
      case 'decimal':
        return this.decimal(node);
      case 'u64': {
        const invalid: Raise = this.fault(node.invalid);
        const range: Raise = this.fault(node.range);
        return {
          parse: (value, path) => {
            if (typeof value !== 'string' || !U64_TEXT.test(value)) invalid(path, value);
            if (value.length > 20) range(path, value);
            const parsed = BigInt(value);
            if (parsed > U64_MAX) range(path, value);
            return parsed;
          },
        };
      }
      case 'array':
        return this.array(node);
      case 'object':
        return this.object(node);
      case 'service':
        return {};
    }
  }

  private decimal(node: Extract<Node<unknown>, { kind: 'decimal' }>): Check {
    const invalid: Raise = this.fault(node.invalid);
    const precision: Raise = this.fault(node.precision);
    const range: Raise = this.fault(node.range);
    const nonZero: Raise | null = node.nonZero ? this.fault(node.nonZero) : null;
    return {
      parse: (value, path) => {
        if (typeof value !== 'string' && typeof value !== 'number') invalid(path, value);
        try {
          return parseRfqSigned(value);
        } catch (error) {
          if (!(error instanceof DecimalError)) throw error;
          return error.fault === 'out_of_range' ? range(path, value) : precision(path, value);
        }
      },
      refine: nonZero ? (parsed, path) => (parsed === 0n ? nonZero(path, parsed) : undefined) : undefined,
    };
  }

  private array(node: Extract<Node<unknown>, { kind: 'array' }>): Check {
    const invalid: Raise = this.fault(node.invalid);
    const size: Raise = node.size ? this.fault(node.size) : invalid;
    const unique: Raise | null = node.unique ? this.fault(node.unique) : null;
    const min = node.minItems ?? 0;
    const max = node.maxItems ?? Infinity;
    const items = this.node(node.items);
    const { shape, parse, refine } = items;
    return {
      shape: (value, path) => {
        if (!Array.isArray(value)) return invalid(path, value);
        if (value.length < min || value.length > max) size(path, value);
        if (shape) for (let i = 0; i < value.length; i++) shape(value[i], `${path}[${i}]`);
        if (unique && new Set(value).size !== value.length) unique(path, value);
      },
      parse: parse ? (value, path) => (value as unknown[]).map((item, i) => parse(item, `${path}[${i}]`)) : undefined,
      refine: refine
        ? (parsed, path) => {
            const list = parsed as unknown[];
            for (let i = 0; i < list.length; i++) refine(list[i], `${path}[${i}]`);
          }
        : undefined,
    };
  }

  fields(node: ObjectNode<unknown>): Field[] {
    return Object.entries(node.props).map(([key, prop]) => ({ key, out: camel(key), prop, check: this.node(prop.node), serviceChecked: prop.node.kind === 'service' }));
  }

  /** The first field of `value` the declaration does not name, if any. */
  static unknownKey(value: Record<string, unknown>, known: ReadonlySet<string>): string | undefined {
    for (const key in value) if (!known.has(key)) return key;
    return undefined;
  }

  /** An object inside the params (an array item): phase by phase, like its array. */
  private object(node: ObjectNode<unknown>): Check {
    const fields = this.fields(node);
    const known = new Set(fields.map((f) => f.key));
    const invalid: Raise = node.invalid ? this.fault(node.invalid) : this.fault('{path} must be an object');
    const refined = fields.filter((f) => f.check.refine);
    return {
      shape: (value, path) => {
        if (!isObject(value)) return invalid(path, value);
        const extra = Compiler.unknownKey(value, known);
        if (extra !== undefined) this.unknownField(path, extra);
        for (const f of fields) {
          const item = value[f.key];
          if (item === undefined) {
            if (!f.prop.optional && !f.prop.default && !f.serviceChecked) this.missing(`${path}.${f.key}`);
          } else if (f.check.shape) f.check.shape(item, `${path}.${f.key}`);
        }
      },
      parse: (value, path) => {
        const source = value as Record<string, unknown>;
        const out: Record<string, unknown> = {};
        for (const f of fields) {
          const item = source[f.key];
          if (item === undefined || (item === null && f.prop.default?.nullable)) {
            if (f.prop.default) out[f.out] = f.prop.default.value;
            else if (!f.prop.optional) out[f.out] = item;
          } else out[f.out] = f.check.parse ? f.check.parse(item, `${path}.${f.key}`) : item;
        }
        return out;
      },
      refine:
        refined.length > 0
          ? (parsed, path) => {
              for (const f of refined) f.check.refine!((parsed as Record<string, unknown>)[f.out], `${path}.${f.key}`);
            }
          : undefined,
    };
  }

  /** The params object itself: one field fully checked after the other. */
  root<T>(node: ObjectNode<T>): ParamsParser<T> {
    const fields = this.fields(node as ObjectNode<unknown>);
    const known = new Set(fields.map((f) => f.key));
    const requiredFirst = node.requiredFirst === true;
    return (params) => {
      const extra = Compiler.unknownKey(params, known);
      if (extra !== undefined) this.unknownField('params', extra);
      if (requiredFirst) {
        for (const f of fields) if (params[f.key] === undefined && !f.prop.optional && !f.prop.default && !f.serviceChecked) this.missing(f.key);
      }
      const out: Record<string, unknown> = {};
      for (const f of fields) {
        const value = params[f.key];
        if (value === undefined || (value === null && f.prop.default?.nullable)) {
          if (f.prop.default) out[f.out] = f.prop.default.value;
          else if (f.serviceChecked) out[f.out] = value;
          else if (!f.prop.optional) this.missing(f.key);
          continue;
        }
        const { shape, parse, refine } = f.check;
        if (shape) shape(value, f.key);
        const parsed = parse ? parse(value, f.key) : value;
        if (refine) refine(parsed, f.key);
        out[f.out] = parsed;
      }
      return out as T;
    };
  }
}

const U64_TEXT = /^[1-9][0-9]*$/;

/** The validator of one method's params: the typed command, or the contract's error for the first fault. */
export function compileParams<T>(node: ObjectNode<T>, dialect: Dialect): ParamsParser<T> {
  return new Compiler(dialect).root(node);
}
