import { ROUTES, type RouteBody, type RouteName, type RouteParamText, type RouteQueryText, type RouteResult, isRouteName } from '@legwork/protocol';
import { SetMetadata, applyDecorators } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ACCESS, type Access, type Principal } from '../access/access';
import type { JsonText } from '../rpc/json-text';

export const HTTP_ROUTE = 'legwork:http-route';

/** What a handler of `R` is asked: its checked path parameters, query texts and body. */
export interface RouteInput<R extends RouteName> {
  params: RouteParamText<R>;
  query: RouteQueryText<R>;
  body: RouteBody<R>;
}

/**
 * What a handler of `R` gets besides its input: the caller its access admitted (null on a public
 * route), and the request and reply (the client address; a status other than the declared one).
 */
export interface RouteContext<R extends RouteName> {
  principal: (typeof ROUTES)[R]['access'] extends { kind: 'public' } ? null : Principal;
  request: FastifyRequest;
  reply: FastifyReply;
}

/** What a handler of `R` answers: the declared body, or its JSON text as the read's statement wrote it. */
export type RouteAnswer<R extends RouteName> = RouteResult<R> | JsonText<RouteResult<R>>;

/** A handler of a declared route, as the registration calls it. */
export type RouteHandler = (
  input: { params: Record<string, unknown>; query: Record<string, unknown>; body: unknown },
  context: { principal: Principal | null; request: FastifyRequest; reply: FastifyReply },
) => unknown;

/**
 * Marks a provider method as the handler of an HTTP route of the contract (`ROUTES` of
 * `@legwork/protocol`). The route is served straight on Fastify (declared-routes.ts): its access,
 * its path's, query's and body's validation, its success body's serializer and its OpenAPI
 * description are the declaration's; the handler gets the checked input and returns the declared
 * body, or that body's JSON text (`JsonText`, sent as it is), and a handler whose result does not
 * match its declaration does not compile.
 */
export function HttpRoute<R extends RouteName>(
  name: R,
): <H extends (input: RouteInput<R>, context: RouteContext<R>) => RouteAnswer<R> | Promise<RouteAnswer<R>>>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<H>,
) => void {
  if (!isRouteName(name)) throw new Error(`${String(name)} is not a route of the interface`);
  return applyDecorators(SetMetadata(HTTP_ROUTE, name), SetMetadata(ACCESS, ROUTES[name].access satisfies Access));
}
