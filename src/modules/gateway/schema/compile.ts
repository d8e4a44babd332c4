import { DecimalError, type Dialect, type Fault, type Node, type ObjectNode, type Prop, U64_MAX, camel, parseRfqSigned } from '@legwork/protocol';
import { AppError, RfqError, type RfqErrorReason } from '../../../common/errors/app-error';

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

/** A failure of the value at `key` of `base` (a field name, or an array index): the path is only written when it fails. */
type Raise = (base: string, key: string | number, value: unknown) => never;

/** `legs` + 0 → `legs[0]`, `legs[0]` + `quantity` → `legs[0].quantity`, '' + `rfq_id` → `rfq_id`. */
function pathOf(base: string, key: string | number): string {
  return typeof key === 'number' ? `${base}[${key}]` : base === '' ? key : `${base}.${key}`;
}

interface Check {
  /** Type, pattern, bounds, unknown and missing fields. */
  shape?: (value: unknown, base: string, key: string | number) => void;
  /** The parsed value (absent: the value itself). */
  parse?: (value: unknown, base: string, key: string | number) => unknown;
  /** Rules over the parsed value (absent: none). */
  refine?: (parsed: unknown, base: string, key: string | number) => void;
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
function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

class Compiler {
  constructor(private readonly dialect: Dialect) {}

  error(code: string | undefined, message: string, reason?: RfqErrorReason): Error {
    if (this.dialect === 'public') return new AppError('INVALID_PARAMS', message);
    return new RfqError((code as RfqError['code'] | undefined) ?? 'RFQ_VALUE_OUT_OF_RANGE', message, { reason });
  }

  /** The fault's text template, split once: a call only concatenates. */
  fault(fault: Fault): Raise {
    const { code, message, reason } = typeof fault === 'string' ? { code: undefined, message: fault, reason: undefined } : fault;
    if (code && this.dialect === 'public') throw new Error(`a public/* method answers INVALID_PARAMS only, not ${code}`);
    const parts = message.split(/(\{path\}|\{value\}|\{length\})/).filter((part) => part !== '');
    return (base, key, value) => {
      const path = pathOf(base, key);
      let text = '';
      for (const part of parts) {
        text += part === '{path}' ? path : part === '{value}' ? show(value) : part === '{length}' ? String((value as unknown[]).length) : part;
      }
      throw this.error(code, text, reason);
    };
  }

  /** The first field the declaration does not name (fields as sent, in order). */
  unknownField(where: string, key: string): never {
    throw this.error(undefined, this.dialect === 'public' ? `unknown param ${key}` : `${where} has an unknown field ${show(key)}`);
  }

  missing(base: string, key: string): never {
    throw this.error(undefined, `${pathOf(base, key)} is required`);
  }

  node(node: Node<unknown>): Check {
    switch (node.kind) {
      case 'string': {
        const invalid: Raise = this.fault(node.invalid);
        const mismatch: Raise = node.mismatch ? this.fault(node.mismatch) : invalid;
        const allowed = node.enum ? new Set<unknown>(node.enum) : null;
        const { pattern, maxLength } = node;
        return {
          shape: (value, base, key) => {
            if (typeof value !== 'string' || (allowed !== null && !allowed.has(value))) invalid(base, key, value);
            if (maxLength !== undefined && value.length > maxLength) invalid(base, key, value);
            if (pattern && !pattern.test(value)) mismatch(base, key, value);
          },
        };
      }
      case 'integer': {
        const invalid: Raise = this.fault(node.invalid);
        const range: Raise = node.range ? this.fault(node.range) : invalid;
        const min = node.minimum ?? -Infinity;
        const max = node.maximum ?? Infinity;
        return {
          shape: (value, base, key) => {
            if (typeof value !== 'number' || !Number.isSafeInteger(value)) invalid(base, key, value);
            if (value < min || value > max) range(base, key, value);
          },
        };
      }
      case 'boolean': {
        const invalid: Raise = this.fault(node.invalid);
        return { shape: (value, base, key) => (typeof value === 'boolean' ? undefined : invalid(base, key, value)) };
      }
      case 'decimal':
        return this.decimal(node);
      case 'u64': {
        const invalid: Raise = this.fault(node.invalid);
        const range: Raise = this.fault(node.range);
        return {
          parse: (value, base, key) => {
            if (typeof value !== 'string' || !U64_TEXT.test(value)) invalid(base, key, value);
            if (value.length > 20) range(base, key, value);
            const parsed = BigInt(value);
            if (parsed > U64_MAX) range(base, key, value);
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
      parse: (value, base, key) => {
        if (typeof value !== 'string' && typeof value !== 'number') invalid(base, key, value);
        try {
          return parseRfqSigned(value);
        } catch (error) {
          if (!(error instanceof DecimalError)) throw error;
          return error.fault === 'out_of_range' ? range(base, key, value) : precision(base, key, value);
        }
      },
      refine: nonZero ? (parsed, base, key) => (parsed === 0n ? nonZero(base, key, parsed) : undefined) : undefined,
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
      shape: (value, base, key) => {
        if (!Array.isArray(value)) return invalid(base, key, value);
        if (value.length < min || value.length > max) size(base, key, value);
        if (shape) {
          const path = pathOf(base, key);
          for (let i = 0; i < value.length; i++) shape(value[i], path, i);
        }
        if (unique && new Set(value).size !== value.length) unique(base, key, value);
      },
      parse: parse
        ? (value, base, key) => {
            const list = value as unknown[];
            const path = pathOf(base, key);
            const parsed: unknown[] = [];
            for (let i = 0; i < list.length; i++) parsed.push(parse(list[i], path, i));
            return parsed;
          }
        : undefined,
      refine: refine
        ? (parsed, base, key) => {
            const list = parsed as unknown[];
            const path = pathOf(base, key);
            for (let i = 0; i < list.length; i++) refine(list[i], path, i);
          }
        : undefined,
    };
  }

  fields(node: ObjectNode<unknown>): Field[] {
    return Object.entries(node.props).map(([key, prop]) => ({
      key,
      out: camel(key),
      prop,
      check: this.node(prop.node),
      serviceChecked: prop.node.kind === 'service',
    }));
  }

  /** An object inside the params (an array item): phase by phase, like its array. */
  private object(node: ObjectNode<unknown>): Check {
    const code = new ObjectCode(this, this.fields(node));
    const invalid: Raise = node.invalid ? this.fault(node.invalid) : this.fault('{path} must be an object');
    return {
      shape: code.build<Check['shape']>(['value', 'base', 'key'], code.shape(invalid)),
      parse: code.build<Check['parse']>(['value', 'base', 'key'], code.parse()),
      refine: code.refined() ? code.build<Check['refine']>(['parsed', 'base', 'key'], code.refine()) : undefined,
    };
  }

  /** The params object itself: one field fully checked after the other. */
  root<T>(node: ObjectNode<T>): ParamsParser<T> {
    const code = new ObjectCode(this, this.fields(node));
    return code.build<ParamsParser<T>>(['value'], code.root(node.requiredFirst === true));
  }
}

/**
 * The code of one object node, generated once: named property reads, the parsed command built as
 * one object literal, and one call site per field check (each stays monomorphic), so a call costs
 * what a hand-written parser costs. Only the declaration's own keys and the compiler's functions
 * go into the code (keys as JSON string literals); values of a call never do.
 */
class ObjectCode {
  private readonly env: unknown[] = [];

  constructor(
    private readonly compiler: Compiler,
    private readonly fields: Field[],
  ) {}

  /** A reference to `value` from the generated code. */
  private use(value: unknown): string {
    this.env.push(value);
    return `E[${this.env.length - 1}]`;
  }

  build<F>(args: string[], body: string): F {
    // The code is generated from the declaration's own keys and constants only (request values reach it as arguments), for speed.
    // eslint-disable-next-line @typescript-eslint/no-implied-eval, @typescript-eslint/no-unsafe-call -- generated from the declaration, never from request values
    return new Function('E', `'use strict'; return function (${args.join(', ')}) {\n${body}\n};`)(this.env) as F;
  }

  private read(object: string, f: Field): string {
    return `${object}[${JSON.stringify(f.key)}]`;
  }

  /** The base and key of a field's value: '' at the root, else this object's path (`path`, set on entry). */
  private childPath(f: Field, root: boolean): string {
    return `${root ? '""' : 'path'}, ${JSON.stringify(f.key)}`;
  }

  /** This object's own path, written once per call (its fields' failures name it). */
  private readonly enter = `const path = ${this.use(pathOf)}(base, key);`;

  private unknownKeys(where: string): string {
    const test = this.fields.map((f) => `k !== ${JSON.stringify(f.key)}`).join(' && ') || 'true';
    return `for (const k in value) if (${test}) ${this.use(this.compiler.unknownField.bind(this.compiler))}(${where}, k);`;
  }

  private missing(f: Field, root: boolean): string {
    return `${this.use(this.compiler.missing.bind(this.compiler))}(${this.childPath(f, root)})`;
  }

  /** `vN` holds the field's value: its default when absent (or null, when nullable). */
  private absent(f: Field, i: number): string {
    return f.prop.default?.nullable ? `v${i} === undefined || v${i} === null` : `v${i} === undefined`;
  }

  private onAbsent(f: Field, i: number, root: boolean): string {
    if (f.prop.default) return `v${i} = ${this.use(f.prop.default.value)};`;
    if (f.prop.optional || f.serviceChecked) return '';
    return root ? `${this.missing(f, true)};` : '';
  }

  /** The parsed object: required, defaulted and service-checked fields, then the optional ones present. */
  private literal(): string {
    const fixed = this.fields.flatMap((f, i) => (f.prop.optional ? [] : [`${JSON.stringify(f.out)}: v${i}`]));
    const optional = this.fields.flatMap((f, i) => (f.prop.optional ? [`if (v${i} !== undefined) out[${JSON.stringify(f.out)}] = v${i};`] : []));
    return `const out = { ${fixed.join(', ')} };\n${optional.join('\n')}\nreturn out;`;
  }

  root(requiredFirst: boolean): string {
    const lines = [this.unknownKeys('"params"')];
    if (requiredFirst) {
      for (const f of this.fields)
        if (!f.prop.optional && !f.prop.default && !f.serviceChecked) lines.push(`if (${this.read('value', f)} === undefined) ${this.missing(f, true)};`);
    }
    this.fields.forEach((f, i) => {
      const path = this.childPath(f, true);
      const { shape, parse, refine } = f.check;
      const present = [
        shape ? `${this.use(shape)}(v${i}, ${path});` : '',
        parse ? `v${i} = ${this.use(parse)}(v${i}, ${path});` : '',
        refine ? `${this.use(refine)}(v${i}, ${path});` : '',
      ].join(' ');
      lines.push(`let v${i} = ${this.read('value', f)};`, `if (${this.absent(f, i)}) { ${this.onAbsent(f, i, true)} } else { ${present} }`);
    });
    lines.push(this.literal());
    return lines.join('\n');
  }

  shape(invalid: Raise): string {
    const lines = [
      `if (typeof value !== 'object' || value === null || Array.isArray(value)) ${this.use(invalid)}(base, key, value);`,
      this.enter,
      this.unknownKeys('path'),
    ];
    this.fields.forEach((f, i) => {
      const required = !f.prop.optional && !f.prop.default && !f.serviceChecked;
      const check = f.check.shape ? `${this.use(f.check.shape)}(v${i}, ${this.childPath(f, false)});` : '';
      if (!required && !check) return;
      lines.push(`const v${i} = ${this.read('value', f)};`, `if (v${i} === undefined) { ${required ? `${this.missing(f, false)};` : ''} } else { ${check} }`);
    });
    return lines.join('\n');
  }

  parse(): string {
    const lines = this.fields.map((f, i) => {
      const parse = f.check.parse ? `v${i} = ${this.use(f.check.parse)}(v${i}, ${this.childPath(f, false)});` : '';
      return `let v${i} = ${this.read('value', f)};\nif (${this.absent(f, i)}) { ${this.onAbsent(f, i, false)} } else { ${parse} }`;
    });
    return [this.enter, ...lines, this.literal()].join('\n');
  }

  refined(): boolean {
    return this.fields.some((f) => f.check.refine);
  }

  refine(): string {
    const lines = this.fields
      .filter((f) => f.check.refine)
      .map((f) => `${this.use(f.check.refine)}(parsed[${JSON.stringify(f.out)}], ${this.childPath(f, false)});`);
    return [this.enter, ...lines].join('\n');
  }
}

const U64_TEXT = /^[1-9][0-9]*$/;

/** The validator of one method's params: the typed command, or the contract's error for the first fault. */
export function compileParams<T>(node: ObjectNode<T>, dialect: Dialect): ParamsParser<T> {
  return new Compiler(dialect).root(node);
}
