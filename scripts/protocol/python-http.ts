import { ROUTE_NAMES, routeDeclaration } from '@legwork/protocol';

/**
 * The calls of the declared HTTP routes (ROUTES of @legwork/protocol) in clients/python/legwork/http.py:
 * one async method of `LegworkHttp` per route, between the markers below, written from the
 * declarations (method, path and its parameters, query parameters, body fields, summary). The rest
 * of the file is hand-written; a test fails when the checked-in section is not this output
 * (npm run protocol:python rewrites it).
 */

const BEGIN = '    # BEGIN declared routes: `npm run protocol:python` writes the methods down to END from the contract (do not edit them)';
const END = '    # END declared routes';
/** flake8's max-line-length (clients/python/.flake8). */
const MAX_LINE = 200;

const PYTHON_TYPES: Record<string, string> = { integer: 'int', string: 'str', boolean: 'bool', number: 'float' };
type Schema = { type?: unknown; items?: unknown; oneOf?: unknown };
/** A value's Python type: a list of its items, a JSON object, each alternative of a oneOf (a decimal as text or a number). */
const pythonType = (schema: Schema): string => {
  if (Array.isArray(schema.oneOf)) return [...new Set((schema.oneOf as Schema[]).map(pythonType))].join(' | ');
  if (schema.type === 'array') return `list[${pythonType(schema.items ?? {})}]`;
  if (schema.type === 'object') return 'JsonObject';
  return typeof schema.type === 'string' ? (PYTHON_TYPES[schema.type] ?? 'Any') : 'Any';
};

/** `query.rfq-positions` -> `rfq_positions`. */
const methodName = (route: string): string => route.slice(route.indexOf('.') + 1).replace(/[^A-Za-z0-9]+/g, '_');

interface Arg {
  name: string;
  type: string;
  required: boolean;
}

/** The body's fields as arguments: required ones first (in the declaration's order), then the optional ones. */
function bodyArgs(body: object | undefined): Arg[] {
  if (!body) return [];
  const { properties = {}, required = [] } = body as { properties?: Record<string, Schema>; required?: string[] };
  return Object.entries(properties).map(([name, schema]) => ({ name, type: pythonType(schema), required: required.includes(name) }));
}

function method(route: (typeof ROUTE_NAMES)[number]): string[] {
  const declaration = routeDeclaration(route);
  const pathArgs = Object.entries(declaration.params ?? {}).map(([name, param]) => ({ name, type: pythonType(param.schema), required: true }));
  const queryArgs = Object.entries(declaration.query)
    .filter(([, param]) => !param.refusedByHandler)
    .map(([name, param]) => ({ name, type: pythonType(param.schema), required: param.required === true }));
  const body = bodyArgs(declaration.body);
  const required = [...pathArgs, ...queryArgs.filter((a) => a.required), ...body.filter((a) => a.required)];
  const optional = [...queryArgs.filter((a) => !a.required), ...body.filter((a) => !a.required)];
  // Required arguments by position; optional ones too when there is just one of them and nothing else, else keyword-only.
  const keywordOnly = optional.length > 0 && (required.length > 0 || optional.length > 1);
  const signature = [
    'self',
    ...required.map((a) => `${a.name}: ${a.type}`),
    ...(keywordOnly ? ['*'] : []),
    ...optional.map((a) => `${a.name}: ${a.type} | None = None`),
  ].join(', ');
  const dict = (args: Arg[]) => `{${args.map(({ name }) => `"${name}": ${name}`).join(', ')}}`;
  const call = [
    `"${declaration.method}"`,
    pathArgs.length > 0 ? `f"${declaration.path.replace(/\{(\w+)\}/g, '{_segment($1)}')}"` : `"${declaration.path}"`,
    `query=${dict(queryArgs)}`,
  ];
  const bodyValue = body.some((a) => !a.required) ? `_present(${dict(body)})` : dict(body);
  const request = (args: string[]) => `        result: JsonObject = await self.request(${args.join(', ')})`;
  let lines = declaration.body ? [request([...call, `body=${bodyValue}`])] : [request(call)];
  // Within flake8's line length (clients/python/.flake8): a long body is built on a line of its own.
  if (declaration.body && lines[0].length > MAX_LINE) lines = [`        body: JsonObject = ${bodyValue}`, request([...call, 'body=body'])];
  return [
    `    async def ${methodName(route)}(${signature}) -> JsonObject:`,
    `        """\`\`${declaration.method} ${declaration.path}\`\`: ${declaration.summary.replace(/`/g, '``')}."""`,
    ...lines,
    '        return result',
  ];
}

/** The generated section, markers included. */
function pythonHttpRoutes(): string {
  return [BEGIN, ...ROUTE_NAMES.flatMap((route) => ['', ...method(route)]), '', END].join('\n');
}

/** `current` (http.py) with its generated section replaced by the contract's. */
export function withPythonHttpRoutes(current: string): string {
  const start = current.indexOf(BEGIN);
  const end = current.indexOf(END);
  if (start < 0 || end < start) throw new Error('clients/python/legwork/http.py has no declared-routes section');
  return current.slice(0, start) + pythonHttpRoutes() + current.slice(end + END.length);
}
