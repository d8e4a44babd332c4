import { AppError } from '../errors/app-error';
import { MAX_JSON_DEPTH, deeperThan } from '../json-depth';

/** A JSON Schema as a route's body declares it (the keywords below). */
type Schema = Readonly<Record<string, unknown>>;

/** The keywords the checker reads, and those that only document; any other is refused when the route is registered. */
const CHECKED = new Set(['type', 'properties', 'required', 'additionalProperties', 'enum', 'minLength', 'maxLength', 'pattern', 'items', 'maxItems']);
const DOCUMENTING = new Set(['description', 'example', 'format']);

/**
 * A value's problem, in the words the class-validator DTOs gave it (docs/conventions.md): the
 * clients and tests that read these messages see no difference between a declared route and a
 * controller.
 */
type Check = (value: unknown, field: string) => string | undefined;

/**
 * How a route's schema is read: the messages by field path where its DTO gave its own (`roles[]`:
 * the message of an item of `roles`), and the fields its handler parses itself.
 */
interface Reading {
  readonly messages: Readonly<Record<string, string>>;
  readonly parsedByHandler: ReadonlySet<string>;
}

function compileValue(schema: Schema, where: string, reading: Reading, path = ''): Check {
  if (reading.parsedByHandler.has(path)) return handlerParsed(schema);
  for (const keyword of Object.keys(schema)) {
    if (!CHECKED.has(keyword) && !DOCUMENTING.has(keyword)) throw new Error(`${where}: the body checker does not read ${keyword}`);
  }
  const enumValues = schema.enum as readonly unknown[] | undefined;
  const [minLength, maxLength] = [schema.minLength as number | undefined, schema.maxLength as number | undefined];
  const pattern = schema.pattern === undefined ? undefined : new RegExp(schema.pattern as string);
  const typed = typeCheck(schema, where, reading, path);
  const check: Check = (value, field) => {
    const problem = typed(value, field);
    if (problem !== undefined) return problem;
    if (enumValues && !enumValues.includes(value)) return `${field} must be one of the following values: ${enumValues.join(', ')}`;
    const length = typeof value === 'string' ? value.length : undefined;
    if (length !== undefined && minLength !== undefined && length < minLength) return `${field} must be longer than or equal to ${minLength} characters`;
    if (length !== undefined && maxLength !== undefined && length > maxLength) return `${field} must be shorter than or equal to ${maxLength} characters`;
    if (pattern && !pattern.test(value as string)) return `${field} must match ${pattern.source} regular expression`;
    return undefined;
  };
  // The field's own message, for any value of it the schema refuses (a nested object's fields and an array's items keep theirs).
  const own = reading.messages[path];
  if (own === undefined || schema.type === 'object' || schema.type === 'array') return check;
  return (value, field) => (check(value, field) === undefined ? undefined : own);
}

function typeCheck(schema: Schema, where: string, reading: Reading, path: string): Check {
  switch (schema.type) {
    case 'string':
      return (value, field) => (typeof value === 'string' ? undefined : `${field} must be a string`);
    case 'integer':
      return (value, field) => (typeof value === 'number' && Number.isInteger(value) ? undefined : `${field} must be an integer number`);
    case 'boolean':
      return (value, field) => (typeof value === 'boolean' ? undefined : `${field} must be a boolean value`);
    case 'object':
      return compileObject(schema, where, reading, path);
    case 'array':
      return compileArray(schema, where, reading, path);
    default:
      throw new Error(`${where}: the body checker does not read type ${JSON.stringify(schema.type)}`);
  }
}

/**
 * A closed object: a field it does not declare is refused first (`x: property x should not exist`,
 * the first such field of the body), then each declared field in the declaration's order; a
 * missing or null optional field is skipped; a value that is not an object is read as `{}`.
 */
function compileObject(schema: Schema, where: string, reading: Reading, path: string): Check {
  if (schema.additionalProperties !== false) throw new Error(`${where}: a body object must be closed (additionalProperties: false)`);
  const required = new Set((schema.required as readonly string[] | undefined) ?? []);
  const fields = Object.entries((schema.properties as Record<string, Schema> | undefined) ?? {}).map(
    ([name, property]) => [name, compileValue(property, `${where}.${name}`, reading, path ? `${path}.${name}` : name), required.has(name)] as const,
  );
  const known = new Set(fields.map(([name]) => name));
  return (value, path) => {
    const object = (typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {}) as Record<string, unknown>;
    const prefix = path ? `${path}.` : '';
    for (const name of Object.keys(object)) if (!known.has(name)) return `${prefix}${name}: property ${name} should not exist`;
    for (const [name, check, isRequired] of fields) {
      const field = object[name];
      if (!isRequired && (field === undefined || field === null)) continue;
      const problem = check(field, `${prefix}${name}`);
      if (problem !== undefined) return problem;
    }
    return undefined;
  };
}

/**
 * An array, in class-validator's order (a DTO's decorators run bottom-up: `@IsArray() @ArrayMaxSize(n)
 * @IsString({ each: true })`): the items first (`each` checks a value that is not an array as one
 * item: `roles: "taker"` passes it and is then "roles must be an array"), then `maxItems` (which
 * a value that is not an array fails too), then the type. An item's message is
 * `field: each value in field ...`, or the field's own at `field[]`.
 */
function compileArray(schema: Schema, where: string, reading: Reading, path: string): Check {
  if (typeof schema.items !== 'object' || schema.items === null) throw new Error(`${where}: a body array declares its items`);
  const item = compileValue(schema.items as Schema, `${where}[]`, { ...reading, messages: {} }, `${path}[]`);
  const own = reading.messages[`${path}[]`];
  const maxItems = schema.maxItems as number | undefined;
  return (value, field) => {
    for (const element of Array.isArray(value) ? value : [value]) {
      const problem = item(element, `each value in ${field}`);
      if (problem !== undefined) return own ?? `${field}: ${problem}`;
    }
    if (maxItems !== undefined && !(Array.isArray(value) && value.length <= maxItems)) return `${field} must contain no more than ${maxItems} elements`;
    return Array.isArray(value) ? undefined : `${field} must be an array`;
  };
}

/**
 * A field the handler parses with its own messages (a decimal given as text or a JSON number, a
 * maker's limits document), as its DTO asked only `@IsObject()` or `@IsDefined()`: an object
 * field must be an object, any other must be there (an optional one absent or null is skipped
 * before). Its schema documents the rest.
 */
function handlerParsed(schema: Schema): Check {
  if (schema.type === 'object')
    return (value, field) => (typeof value === 'object' && value !== null && !Array.isArray(value) ? undefined : `${field} must be an object`);
  return (value, field) => (value === undefined || value === null ? `${field} should not be null or undefined` : undefined);
}

/**
 * The body's checker, compiled from the route's declared JSON Schema: a body nested deeper than
 * MAX_JSON_DEPTH, or one the schema refuses, is the 400 naming the field; the checked body is
 * what the handler gets. A route that declares no body ignores one.
 */
export function compileBody(
  schema: object | undefined,
  route: string,
  messages: Readonly<Record<string, string>> = {},
  parsedByHandler: readonly string[] = [],
): (body: unknown) => unknown {
  if (schema === undefined) return () => undefined;
  if ((schema as Schema).type !== 'object') throw new Error(`${route}: a body is a JSON object`);
  const check = compileValue(schema as Schema, route, { messages, parsedByHandler: new Set(parsedByHandler) });
  return (body) => {
    // Before the walk (recursive): a 20,000-deep body is a 400, not a stack overflow.
    if (deeperThan(body, MAX_JSON_DEPTH)) throw new AppError('INVALID_PARAMS', `the body nests deeper than ${MAX_JSON_DEPTH} levels`);
    const problem = check(body, '');
    if (problem !== undefined) throw new AppError('INVALID_PARAMS', problem);
    return typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {};
  };
}
