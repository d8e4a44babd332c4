import { ROUTE_NAMES, type RouteDeclaration, type RouteName, isRouteName, routeDeclaration } from '@legwork/protocol';
import type { INestApplication } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AuthenticatedRequest } from '../access/access';
import { AppError } from '../errors/app-error';
import { compileBody } from './declared-body';
import { sendHttpError } from './http-error.filter';
import { withPlainStrings } from './plain-strings';
import { HTTP_ROUTE, type RouteHandler } from './http-route';
import { JsonText } from '../rpc/json-text';

/** Decides a request by a route's access (the AuthGuard): sets `request.principal` or throws the refusal. */
interface Authorizer {
  authorize(access: RouteDeclaration['access'], request: AuthenticatedRequest): boolean | Promise<boolean>;
}

/** Records an admin command in the audit log (the AuditTrail's recording), with the status it is answered with. */
interface CommandRecorder {
  recordCommand(request: AuthenticatedRequest, action: string, status: number): Promise<void>;
  /** The status the error will be answered with. */
  failureStatus(error: unknown): number;
}

/** The audit log's action of a route: an admin command is any admin route but a GET (as for the AuditTrail interceptor). */
const commandOf = (declaration: RouteDeclaration): string | null =>
  declaration.access.kind === 'admin' && declaration.method !== 'GET' ? declaration.access.command : null;

/** The content type Fastify gives a serialized body: a `JsonText` is sent with the same. */
const JSON_UTF8 = 'application/json; charset=utf-8';

/** A handler's answer as Fastify sends it: a `JsonText` as its text (Fastify sends a JSON string as it is), anything else to the route's serializer. */
const sendable = (result: unknown, reply: FastifyReply): unknown => (result instanceof JsonText ? reply.type(JSON_UTF8).send(result.json) : result);

/** Fastify's form of an OpenAPI path template: `{id}` becomes `:id`. */
const fastifyPath = (template: string): string => template.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');

/**
 * The query's checker, compiled from the declaration: a parameter the route does not take (unless
 * it ignores them), or a value not matching its parameter's pattern whole (a repeated parameter
 * included), is the 400 naming it; the accepted texts are what the handler gets.
 */
export function compileQuery(declaration: RouteDeclaration): (query: unknown) => Record<string, unknown> {
  const params = Object.entries(declaration.query);
  const taken = new Set(params.map(([name]) => name));
  const ignoreOthers = declaration.otherQuery === 'ignored';
  return (query) => {
    const given = (query ?? {}) as Record<string, unknown>;
    if (ignoreOthers) return Object.fromEntries(params.filter(([name]) => given[name] !== undefined).map(([name]) => [name, given[name]]));
    for (const name of Object.keys(given)) {
      if (!taken.has(name)) throw new AppError('INVALID_PARAMS', `${name}: property ${name} should not exist`);
    }
    for (const [name, param] of params) {
      const value = given[name];
      if (value === undefined && param.required) throw new AppError('INVALID_PARAMS', param.message);
      if (value === undefined || param.refusedByHandler) continue;
      if (typeof value !== 'string' || !param.pattern.test(value)) throw new AppError('INVALID_PARAMS', param.message);
    }
    return given;
  };
}

/** The path parameters' checker: each `{name}` of the path is declared, and a value not matching its pattern whole is the 400 with its message. */
function compileParams(declaration: RouteDeclaration): (params: unknown) => Record<string, string> {
  const placeholders = [...declaration.path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]);
  const params = Object.entries(declaration.params ?? {});
  const declared = params.map(([name]) => name);
  if (placeholders.join() !== declared.join()) throw new Error(`${declaration.path}: declares path parameters ${declared.join(', ') || 'none'}`);
  return (given) => {
    const values = (given ?? {}) as Record<string, string>;
    for (const [name, param] of params) if (!param.pattern.test(values[name] ?? '')) throw new AppError('INVALID_PARAMS', param.message);
    return values;
  };
}

/** Every `@HttpRoute` handler of the application's providers, bound to its instance; each declared route must have exactly one. */
function findHandlers(app: INestApplication): Map<RouteName, RouteHandler> {
  const discovery = app.get(DiscoveryService);
  const scanner = app.get(MetadataScanner);
  const reflector = app.get(Reflector);
  const handlers = new Map<RouteName, RouteHandler>();
  for (const wrapper of discovery.getProviders()) {
    const instance = wrapper.instance as Record<string, unknown> | undefined;
    if (!instance || typeof instance !== 'object' || !wrapper.isDependencyTreeStatic()) continue;
    const prototype = Object.getPrototypeOf(instance) as Record<string, unknown> | null;
    for (const key of scanner.getAllMethodNames(prototype)) {
      const method = prototype?.[key];
      if (typeof method !== 'function') continue;
      const name = reflector.get<string | undefined>(HTTP_ROUTE, method);
      if (!name) continue;
      if (!isRouteName(name)) throw new Error(`${name} is not a route of the interface`);
      if (handlers.has(name)) throw new Error(`HTTP route ${name} has two handlers`);
      handlers.set(name, (method as RouteHandler).bind(instance));
    }
  }
  const missing = ROUTE_NAMES.filter((name) => !handlers.has(name));
  if (missing.length > 0) throw new Error(`declared HTTP routes without a handler: ${missing.join(', ')}`);
  return handlers;
}

/**
 * The serializers of a route's answers: its success body's, and each other answer's that declares a
 * body; their strings of plain patterns are written without the escape scan (plain-strings.ts).
 */
const responseSchemas = (declaration: RouteDeclaration): Record<number, object> => {
  const schemas: Record<number, object> = { [declaration.status ?? 200]: withPlainStrings(declaration.response) };
  for (const [status, other] of Object.entries(declaration.responses ?? {})) if (other.schema) schemas[Number(status)] = withPlainStrings(other.schema);
  return schemas;
};

/**
 * Serves every declared route straight on Fastify, without Nest's per-request pipeline (guard,
 * pipe, interceptors, filter): the same access check and rate limits (`authorize`, the AuthGuard's),
 * the declaration's path, query and body checks, the same `{ error }` bodies, an admin command's
 * audit record (the AuditTrail's, at the same point); the instance's hooks add the
 * security headers, x-request-id, metrics and logs as for every route. Called after the hooks
 * are added, so that the routes get them.
 */
export function serveDeclaredRoutes(app: INestApplication, fastify: FastifyInstance, authorizer: Authorizer, audit: CommandRecorder): void {
  const handlers = findHandlers(app);
  for (const name of ROUTE_NAMES) {
    const declaration = routeDeclaration(name);
    const handler = handlers.get(name)!;
    const [parseParams, parseQuery, parseBody] = [
      compileParams(declaration),
      compileQuery(declaration),
      compileBody(declaration.body, name, declaration.bodyMessages, declaration.bodyParsedByHandler),
    ];
    const { access, status = 200 } = declaration;
    const command = commandOf(declaration);
    const fail = (error: unknown, request: AuthenticatedRequest, reply: FastifyReply) => sendHttpError(error, request, reply);
    const answer = (request: AuthenticatedRequest, reply: FastifyReply) => {
      const input = { params: parseParams(request.params), query: parseQuery(request.query), body: parseBody(request.body) };
      void reply.status(status);
      return handler(input, { principal: request.principal ?? null, request, reply });
    };
    fastify.route({
      method: declaration.method,
      url: fastifyPath(declaration.path),
      schema: { response: responseSchemas(declaration) },
      errorHandler: (error, request, reply) => fail(error, request, reply),
      handler: async (request: AuthenticatedRequest, reply) => {
        try {
          const decided = authorizer.authorize(access, request);
          if (decided !== true) await decided;
          if (command === null) return sendable(await answer(request, reply), reply);
          let result: unknown;
          try {
            result = await answer(request, reply);
          } catch (error) {
            // The command's own error is its answer; a record that failed as well has been logged.
            await audit.recordCommand(request, command, audit.failureStatus(error)).catch(() => undefined);
            throw error;
          }
          // Never answered as done without its record: a record that fails is the answer.
          await audit.recordCommand(request, command, status);
          return sendable(result, reply);
        } catch (error) {
          fail(error, request, reply);
          return reply;
        }
      },
    });
  }
}

/** The declared routes as the OpenAPI builder and the public limit list them. */
export const declaredRouteList = () =>
  ROUTE_NAMES.map((name) => {
    const declaration = routeDeclaration(name);
    return { name, declaration, path: declaration.path, method: declaration.method.toLowerCase() };
  });
