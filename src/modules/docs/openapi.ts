import type { INestApplication } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ErrorResponse } from '../../common/http/error-response.dto';
import { ACCESS, type Access } from '../../common/access/access';
import { declaredRouteList } from '../../common/http/declared-routes';
import type { RouteDeclaration } from '@legwork/protocol';
/** docs/spec/interface.md section 9: the description is OpenAPI 3.1, and the API description itself is 0.1.0. */
const OPENAPI_VERSION = '3.1.0';
export const API_VERSION = '0.1.0';

/** Security scheme names of the document. */
const SESSION_SCHEME = 'session';
const ADMIN_TOKEN_SCHEME = 'admin_token';
const METRICS_TOKEN_SCHEME = 'metrics_token';

/** One route of a controller as Nest registers it. */
interface ControllerRoute {
  /** `ClassName_method`: the operationId the document gives the route. */
  operationId: string;
  /** Lower-case HTTP method. */
  method: string;
  /** OpenAPI path template (`/v1/admin/accounts/{account_id}`). */
  path: string;
  access: Access | undefined;
  /** The status of a success (`@HttpCode`, else Nest's default: 201 for POST, 200 otherwise). */
  successStatus: number;
}

/** The path (or paths) a controller or handler declares; '' when none. */
const pathsOf = (target: object): string[] => [(Reflect.getMetadata(PATH_METADATA, target) as string | string[] | undefined) ?? ''].flat();

const joinPath = (...parts: string[]) =>
  '/' +
  parts
    .flatMap((p) => p.split('/'))
    .filter(Boolean)
    .join('/');

/** Every route of every controller of the application, with its declared access (the same walk as the guard's test). */
export function controllerRoutes(app: INestApplication): ControllerRoute[] {
  const discovery = app.get(DiscoveryService);
  const scanner = app.get(MetadataScanner);
  const reflector = app.get(Reflector);
  const routes: ControllerRoute[] = [];
  for (const wrapper of discovery.getControllers()) {
    if (!wrapper.metatype || !wrapper.instance) continue;
    const prototype = Object.getPrototypeOf(wrapper.instance) as Record<string, (...args: unknown[]) => unknown>;
    const controllerPaths = pathsOf(wrapper.metatype);
    for (const key of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[key];
      const requestMethod = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (requestMethod === undefined) continue;
      const methodPaths = pathsOf(handler);
      const access = reflector.getAllAndOverride<Access | undefined>(ACCESS, [handler, wrapper.metatype]);
      const successStatus = (Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined) ?? (requestMethod === RequestMethod.POST ? 201 : 200);
      for (const base of controllerPaths) {
        for (const sub of methodPaths) {
          routes.push({
            operationId: `${wrapper.metatype.name}_${key}`,
            method: RequestMethod[requestMethod].toLowerCase(),
            path: joinPath(base, sub).replace(/:([A-Za-z0-9_]+)/g, '{$1}'),
            access,
            successStatus,
          });
        }
      }
    }
  }
  return routes;
}

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } } });

/** Answers any route may give (common/http/http-error.filter.ts), declared once and referenced by every operation. */
const SHARED_RESPONSES = {
  InternalError: errorResponse('Internal error: the body names the request id to quote to support'),
  Unavailable: errorResponse('A dependency (the database, Redis) is unavailable: retry later'),
  PayloadTooLarge: errorResponse('The request body is larger than 64 KiB'),
  UnsupportedMediaType: errorResponse('The request body is not application/json'),
};
const shared = (name: keyof typeof SHARED_RESPONSES) => ({ $ref: `#/components/responses/${name}` });

function security(access: Access): Array<Record<string, string[]>> {
  switch (access.kind) {
    case 'public':
      return [];
    case 'account':
      return [{ [SESSION_SCHEME]: [] }];
    case 'reader':
      return [{ [SESSION_SCHEME]: [] }, { [ADMIN_TOKEN_SCHEME]: [] }];
    case 'admin':
      return [{ [ADMIN_TOKEN_SCHEME]: [] }, { [SESSION_SCHEME]: [] }];
  }
}

function accessText(access: Access): string {
  switch (access.kind) {
    case 'public':
      return 'Access: public.';
    case 'account':
      return `Access: a session token of a wallet with an account${access.role ? ` and the ${access.role} role` : ''}.`;
    case 'reader':
      return 'Access: a session token of an account (its own data), or an admin reader (admin token, role admin, scope admin:* or admin:read) choosing account_id.';
    case 'admin':
      return (
        `Access: the admin token, or a session token with role admin, scope admin:* or scope admin:${access.command}.` +
        // Every admin command carries the AuditTrail interceptor (test/e2e/audit.e2e-spec.ts fails otherwise).
        (access.command === 'read' ? '' : ' Recorded in the admin audit log (`GET /v1/admin/audit`) with its actor and status, failures included.')
      );
  }
}

/** The fields of an OpenAPI operation (and of its parameters) that `complete` reads or writes. */
interface Operation {
  operationId?: string;
  parameters?: Array<{ name?: string; in?: string; [field: string]: unknown }>;
  responses?: Record<string, unknown>;
  requestBody?: unknown;
  description?: string;
  security?: unknown;
  'x-access'?: unknown;
}

/** Routes the public rate limit leaves alone: probes and scrapes (common/http/public-limit.hook.ts). */
const PROBE = (path: string) => path === '/metrics' || path === '/health' || path.startsWith('/health/');

/**
 * The global ValidationPipe refuses unknown fields of every body DTO (forbidNonWhitelisted,
 * common/http/validation.ts): its schema says so. No body DTO nests another validated class.
 */
function refuseUnknownFields(document: OpenAPIObject, operation: Operation): void {
  const body = operation.requestBody as { content?: Record<string, { schema?: { $ref?: string } }> } | undefined;
  const ref = body?.content?.['application/json']?.schema?.$ref;
  const schema = ref?.startsWith('#/components/schemas/') ? document.components?.schemas?.[ref.slice('#/components/schemas/'.length)] : undefined;
  if (schema && !('$ref' in schema)) schema.additionalProperties = false;
}

/**
 * Completes what the decorators cannot say, from the code itself, for every operation (also of
 * controllers that carry no Swagger decorators): security from the declared access, path
 * parameters from the path template, and the `{ error }` responses.
 */
function complete(document: OpenAPIObject, routes: ControllerRoute[]): void {
  const byOperationId = new Map(routes.map((r) => [r.operationId, r]));
  for (const [path, item] of Object.entries(document.paths)) {
    const placeholders = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    for (const [method, value] of Object.entries(item as Record<string, unknown>)) {
      if (!['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'].includes(method)) continue;
      const operation = value as Operation;
      const parameters = (operation.parameters ??= []);
      for (const name of placeholders) {
        if (!parameters.some((p) => p.in === 'path' && p.name === name)) parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
      }
      const responses: Record<string, unknown> = (operation.responses ??= {});
      const route = operation.operationId === undefined ? undefined : byOperationId.get(operation.operationId);
      // A route that declares only its errors still answers a success.
      if (route && !Object.keys(responses).some((status) => status.startsWith('2'))) responses[String(route.successStatus)] = { description: 'Success' };
      if ((operation.requestBody || parameters.length > 0) && !responses['400']) responses['400'] = errorResponse('Bad input: the message names the field');
      if (operation.requestBody) {
        responses['413'] ??= shared('PayloadTooLarge');
        responses['415'] ??= shared('UnsupportedMediaType');
      }
      responses['500'] ??= shared('InternalError');
      responses['503'] ??= shared('Unavailable');
      if (parameters.length === 0) delete operation.parameters;
      refuseUnknownFields(document, operation);
      const access = route?.access;
      if (!access) continue;
      operation['x-access'] = access;
      operation.description = [operation.description, accessText(access)].filter(Boolean).join('\n\n');
      if (access.kind === 'public') {
        // No credential needed (a route that takes one optionally declares it, with `{}` first: /metrics).
        operation.security ??= [];
        if (!PROBE(path))
          responses['429'] ??= errorResponse('Over the public rate limit of the client address (PUBLIC_RATE_PER_SECOND); Retry-After says when');
        continue;
      }
      operation.security = security(access);
      responses['401'] ??= errorResponse('No bearer token, or a bad or expired one');
      responses['403'] ??= errorResponse('The token may not use this route');
      // docs/spec/design.md section 20: a bearer that does not verify takes from the public bucket; /query/* from the account's reads.
      responses['429'] ??= errorResponse(
        path.startsWith('/query/')
          ? "Over the account's read limit (QUERY_RATE_PER_SECOND), or a bearer that does not verify over the public rate limit of the client address; Retry-After says when"
          : 'A bearer that does not verify, over the public rate limit of the client address (PUBLIC_RATE_PER_SECOND); Retry-After says when',
      );
    }
  }
}

/** `query.rfq-positions` -> `query_rfqPositions`. */
const operationIdOf = (name: string) => name.replace(/\./g, '_').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** A declared parameter as OpenAPI writes it: its description beside its schema. */
const parameter = (
  name: string,
  where: 'path' | 'query',
  { description, ...schema }: { description: string; [field: string]: unknown },
  required: boolean,
) => ({
  name,
  in: where,
  required,
  description,
  schema,
});

/** The declared answers of a route besides its success (a 503 with a body, a limit's 429), and the 400 of its input. */
function otherResponses(declaration: RouteDeclaration): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  const refusesQuery = declaration.otherQuery !== 'ignored';
  if (declaration.body || declaration.params) responses['400'] = errorResponse('Bad input: the message names the field');
  // Any query parameter the route does not take is refused, also on a route that takes none.
  else if (refusesQuery || Object.keys(declaration.query).length > 0) responses['400'] = errorResponse('Bad input: the message names the query parameter');
  for (const [status, { description, schema }] of Object.entries(declaration.responses ?? {})) {
    responses[status] = schema ? { description, content: { 'application/json': { schema: structuredClone(schema) } } } : errorResponse(description);
  }
  return responses;
}

/** Writes the routes declared in `@legwork/protocol` (ROUTES) into the document: summary, parameters, body and answers. */
function describeDeclaredRoutes(document: OpenAPIObject): ControllerRoute[] {
  return declaredRouteList().map(({ name, declaration, path, method }) => {
    const parameters = [
      ...Object.entries(declaration.params ?? {}).map(([param, { schema }]) => parameter(param, 'path', schema, true)),
      ...Object.entries(declaration.query)
        .filter(([, param]) => !param.refusedByHandler)
        .map(([param, { schema, required }]) => parameter(param, 'query', schema, required === true)),
    ];
    const successStatus = declaration.status ?? 200;
    const operation = {
      operationId: operationIdOf(name),
      summary: declaration.summary,
      ...(declaration.description ? { description: declaration.description } : {}),
      tags: [declaration.tag],
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(declaration.body ? { requestBody: { required: true, content: { 'application/json': { schema: structuredClone(declaration.body) } } } } : {}),
      responses: {
        [successStatus]: { description: 'Success', content: { 'application/json': { schema: structuredClone(declaration.response) } } },
        ...otherResponses(declaration),
      },
    };
    document.paths[path] = { ...document.paths[path], [method]: operation };
    return { operationId: operation.operationId, method, path, access: declaration.access, successStatus };
  });
}

/**
 * The OpenAPI 3.1 description of every HTTP route, generated at start-up from the controllers
 * (routes, DTO classes, Swagger decorators) and the access declarations.
 */
export function buildOpenApiDocument(app: INestApplication, serviceName: string): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion(OPENAPI_VERSION)
    .setTitle(`${serviceName} HTTP API`)
    .setVersion(API_VERSION)
    .setDescription(
      [
        'Query reads (`/query/*`, no version prefix), sign-in (`/v1/auth/*`) and admin commands (`/v1/admin/*`) of the options RFQ exchange.',
        'Trading is JSON-RPC 2.0 over the WebSocket at `/client`: see [the JSON-RPC reference](/docs/json-rpc) (every method, its params, result, errors and an example exchange; every notification), generated from [/asyncapi.json](/asyncapi.json).',
        'HTTP money, price and quantity fields are strings with exactly 8 decimal places (inputs: up to 8, representable in 10^-6 units). Every error body is `{ error }`. Unknown fields and query parameters are a 400.',
      ].join('\n\n'),
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description:
          'The session_token of the sign-in (public/auth or POST /v1/auth/session): an HS256 JWT. Admin commands accept a session with role admin, scope admin:* or admin:<command>.',
      },
      SESSION_SCHEME,
    )
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'The static ADMIN_TOKEN of the server environment (admin routes and admin reads of the query routes).' },
      ADMIN_TOKEN_SCHEME,
    )
    .addSecurity(METRICS_TOKEN_SCHEME, {
      type: 'http',
      scheme: 'bearer',
      description: 'The METRICS_TOKEN of the server environment, when it is set (GET /metrics only).',
    })
    // Relative: the server that serves this document.
    .addServer('/')
    .addTag('auth', 'Wallet sign-in (SIWS)')
    .addTag('instruments', 'Listed option instruments')
    .addTag('exchange', 'The exchange signing keys and the receipt journal')
    .addTag('query', "Reads of an account's balances, positions and fills")
    .addTag('admin', 'Admin commands and reads')
    .addTag('operations', 'Health, metrics and the API descriptions')
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controllerKey, methodKey) => `${controllerKey}_${methodKey}`,
    extraModels: [ErrorResponse],
  });
  document.components = { ...document.components, responses: { ...document.components?.responses, ...SHARED_RESPONSES } };
  complete(document, [...controllerRoutes(app), ...describeDeclaredRoutes(document)]);
  return document;
}
