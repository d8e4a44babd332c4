import {
  DECLINE_REASONS,
  EVENTS,
  METHOD_NAMES,
  RFQ_ERROR_CODES,
  RPC_CODES,
  RPC_ERROR_NAMES,
  SUBSCRIBE_METHODS,
  VIEW_SCHEMAS,
  methodDeclaration,
  objectSchemaOf,
} from '@legwork/protocol';

/**
 * clients/python/legwork/wire.py, written from the contract of @legwork/protocol: a TypedDict or
 * an alias per view, per method's params and result and per event, Literals for the enums and the
 * error codes. The Python client's wire types are then the server's, and a test fails when the
 * checked-in file is not this output (npm run protocol:python rewrites it).
 */

type Schema = Record<string, unknown>;

const PASCAL = (text: string): string =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');

const PY_KEYWORDS = new Set(['from', 'class', 'def', 'import', 'global', 'lambda', 'pass', 'return', 'in', 'is', 'not', 'and', 'or', 'None', 'True', 'False']);

const literal = (value: unknown): string => {
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (value === null) return 'None';
  return JSON.stringify(value);
};

/** `Literal[...]` on one line when short, else one value a line. */
function literalOf(values: readonly unknown[]): string {
  const inline = `Literal[${values.map(literal).join(', ')}]`;
  return inline.length <= 100 ? inline : `Literal[\n${values.map((v) => `    ${literal(v)},\n`).join('')}]`;
}

/** Enumerations written once under their contract name, and referred to by it. */
const NAMED_LITERALS: Array<[string, readonly unknown[]]> = [
  ['RfqErrorCode', RFQ_ERROR_CODES],
  ['RpcErrorName', RPC_ERROR_NAMES],
  ['DeclineReason', DECLINE_REASONS],
];

/** The module being written: named TypedDicts first-come, each once. */
class Writer {
  readonly classes: string[] = [];
  private readonly names = new Set<string>();

  /** The Python type of `schema`; an object with properties becomes a TypedDict named `name`. */
  typeOf(schema: Schema, name: string): string {
    const reference = schema.$ref;
    if (typeof reference === 'string') return reference.split('/').pop() as string;
    if ('const' in schema) return `Literal[${literal(schema.const)}]`;
    if (Array.isArray(schema.oneOf)) return this.union((schema.oneOf as Schema[]).map((s, i) => this.typeOf(s, `${name}${i}`)));
    if (Array.isArray(schema.enum)) {
      const values = JSON.stringify(schema.enum);
      const named = NAMED_LITERALS.find(([, list]) => JSON.stringify(list) === values);
      return named ? named[0] : literalOf(schema.enum as unknown[]);
    }
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    return this.union(types.map((type) => this.typeOfType(type, schema, name)));
  }

  private union(types: string[]): string {
    const unique = [...new Set(types)];
    const none = unique.includes('None');
    const rest = unique.filter((t) => t !== 'None');
    return [...rest, ...(none ? ['None'] : [])].join(' | ');
  }

  private typeOfType(type: string, schema: Schema, name: string): string {
    switch (type) {
      case 'string':
        return 'str';
      case 'integer':
        return 'int';
      case 'number':
        return 'float';
      case 'boolean':
        return 'bool';
      case 'null':
        return 'None';
      case 'array':
        return `list[${schema.items ? this.typeOf(schema.items as Schema, `${name}Item`) : 'Any'}]`;
      case 'object':
        return this.objectType(schema, name);
      default:
        throw new Error(`no Python type for JSON Schema type ${type} (${name})`);
    }
  }

  private objectType(schema: Schema, name: string): string {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    if (Object.keys(properties).length === 0) {
      const extra = schema.additionalProperties;
      return `dict[str, ${extra && typeof extra === 'object' ? this.typeOf(extra as Schema, `${name}Value`) : 'Any'}]`;
    }
    this.typedDict(name, schema);
    return name;
  }

  /** A TypedDict class for an object schema: required keys as they are, the others NotRequired. */
  typedDict(name: string, schema: Schema, doc?: string): void {
    if (this.names.has(name)) throw new Error(`two wire types named ${name}`);
    this.names.add(name);
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    const required = new Set((schema.required ?? []) as string[]);
    const lines = Object.entries(properties).map(([key, property]) => {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) || PY_KEYWORDS.has(key)) throw new Error(`${name}.${key} is no Python identifier`);
      const type = this.typeOf(property, `${name}${PASCAL(key)}`);
      return `    ${key}: ${required.has(key) ? type : `NotRequired[${type}]`}`;
    });
    const description = doc ?? (typeof schema.description === 'string' ? schema.description : undefined);
    // A class with a docstring needs no `pass`; blank line between the docstring and the fields only.
    const head = description ? docstring(description) : [];
    const body = lines.length ? [...head, ...(head.length ? [''] : []), ...lines] : head.length ? head : ['    pass'];
    this.classes.push(`class ${name}(TypedDict):\n${body.join('\n')}`);
  }
}

/** A class docstring, wrapped at 100 columns. */
function docstring(text: string): string[] {
  const words = text.replace(/\\/g, '\\\\').replace(/"""/g, "'''").split(/\s+/);
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line && line.length + word.length + 1 > 92) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  if (lines.length === 1) return [`    """${lines[0]}"""`];
  return [`    """${lines[0]}`, ...lines.slice(1).map((l) => `    ${l}`), '    """'];
}

const isObjectWithProperties = (schema: Schema): boolean => schema.type === 'object' && Object.keys(schema.properties ?? {}).length > 0;

/** The views: aliases for the scalar ones, TypedDicts for the objects. */
function views(writer: Writer): string[] {
  const aliases: string[] = [];
  for (const [name, schema] of Object.entries(VIEW_SCHEMAS) as Array<[string, Schema]>) {
    if (isObjectWithProperties(schema)) writer.typedDict(name, schema);
    else aliases.push(`${name}: TypeAlias = ${writer.typeOf(schema, name)}`);
  }
  return aliases;
}

/** Per method: `<Method>Params` and `<Method>Result` (an alias when the result is a view). */
function methods(writer: Writer): string[] {
  const aliases: string[] = [];
  for (const method of METHOD_NAMES) {
    const declaration = methodDeclaration(method);
    const base = PASCAL(method);
    writer.typedDict(`${base}Params`, objectSchemaOf(declaration.params), `params of ${method}`);
    const result = declaration.result as Schema;
    if (isObjectWithProperties(result)) writer.typedDict(`${base}Result`, result, `result of ${method}`);
    else {
      const type = writer.typeOf(result, `${base}Result`);
      // A view already named as the method's result (rfq.transcript's RfqTranscriptResult) is that result.
      if (type !== `${base}Result`) aliases.push(`${base}Result: TypeAlias = ${type}`);
    }
  }
  return aliases;
}

/** Per channel: a TypedDict per event's data, and the channel's union. */
function events(writer: Writer): string[] {
  const aliases: string[] = [];
  for (const [channel, byKey] of Object.entries(EVENTS)) {
    const names = Object.entries(byKey).map(([key, event]) => {
      const name = `${PASCAL(key)}Data`;
      writer.typedDict(name, event.data, event.summary);
      return name;
    });
    aliases.push(`${PASCAL(channel)}NotificationData: TypeAlias = ${names.join(' | ')}`);
  }
  return aliases;
}

const tuple = (values: readonly string[]): string => `(\n${values.map((v) => `    ${literal(v)},\n`).join('')})`;

/** The text of wire.py. */
export function pythonWire(): string {
  const writer = new Writer();
  const viewAliases = views(writer);
  const methodAliases = methods(writer);
  const eventAliases = events(writer);
  const codes = Object.entries(RPC_CODES).map(([name, code]) => `    ${literal(name)}: ${code},`);
  const subscribe = Object.entries(SUBSCRIBE_METHODS).map(([channel, method]) => `    ${literal(channel)}: ${literal(method)},`);
  const types = `${writer.classes.join('\n\n\n')}\n\n\n${[...methodAliases, ...eventAliases].join('\n')}\n`;
  const typing = ['Any', 'Final', 'Literal', 'NotRequired', 'TypeAlias', 'TypedDict'].filter((name) => name !== 'Any' || /\bAny\b/.test(types));
  return `${[
    '"""Wire types of the Legwork trading WebSocket, generated from the contract of @legwork/protocol.',
    '',
    'Do not edit: `npm run protocol:python` writes this file, and a test fails when it differs from',
    'the output. Decimals are strings on the wire, unix seconds integers; TypedDicts describe what the',
    'server sends (results, events) and what it takes (params; NotRequired: absent is fine).',
    '"""',
    '',
    'from __future__ import annotations',
    '',
    `from typing import ${typing.join(', ')}`,
    '',
    `MethodName: TypeAlias = ${literalOf(METHOD_NAMES)}`,
    `METHOD_NAMES: Final[tuple[MethodName, ...]] = ${tuple(METHOD_NAMES)}`,
    ...NAMED_LITERALS.map(([name, values]) => `${name}: TypeAlias = ${literalOf(values)}`),
    `RFQ_ERROR_CODES: Final[tuple[RfqErrorCode, ...]] = ${tuple(RFQ_ERROR_CODES)}`,
    'RPC_CODES: Final[dict[str, int]] = {',
    ...codes,
    '}',
    `RFQ_ERROR_CODE: Final = ${RPC_CODES.RFQ_ERROR}`,
    'SUBSCRIBE_METHODS: Final[dict[str, MethodName]] = {',
    ...subscribe,
    '}',
    '',
    ...viewAliases,
  ].join('\n')}\n\n\n${types}`;
}
