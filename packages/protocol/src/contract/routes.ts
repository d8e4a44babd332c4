import type { BodyOf, ParamTextOf, ParamsOf, QueryOf, QueryTextOf, ResponseOf, RouteDeclaration } from './route-declaration';
import { ADMIN_ROUTES } from './routes-admin';
import { MAKER_ADMIN_ROUTES } from './routes-admin-makers';
import { MARKET_ADMIN_ROUTES } from './routes-admin-markets';
import { CONSOLE_ROUTES } from './routes-console';
import { PUBLIC_ROUTES } from './routes-public';
import { QUERY_ROUTES } from './routes-query';

/**
 * Every HTTP route declared in the contract, each once. The server registers each one on its
 * Fastify instance from here (access, path, query and body validation, the success body's serializer) and writes it
 * into /openapi.json; the SDK's and the console's calls are typed off it, and the Python client's
 * are generated from it (`npm run protocol:python`). Adding one: its declaration here and its
 * handler on the server (`@HttpRoute`).
 */
export const ROUTES = {
  ...PUBLIC_ROUTES,
  ...QUERY_ROUTES,
  ...CONSOLE_ROUTES,
  ...ADMIN_ROUTES,
  ...MAKER_ADMIN_ROUTES,
  ...MARKET_ADMIN_ROUTES,
} satisfies Record<string, RouteDeclaration>;

export type RouteName = keyof typeof ROUTES;
export const ROUTE_NAMES = Object.keys(ROUTES) as RouteName[];

/** The route's declaration as plain data (for code that walks every route). */
export const routeDeclaration = (name: RouteName): RouteDeclaration => ROUTES[name];

export const isRouteName = (name: string): name is RouteName => Object.prototype.hasOwnProperty.call(ROUTES, name);

/** What a client passes as the route's query. */
export type RouteQuery<R extends RouteName> = QueryOf<(typeof ROUTES)[R]>;
/** The query as the server's validator hands it to the handler (checked texts). */
export type RouteQueryText<R extends RouteName> = QueryTextOf<(typeof ROUTES)[R]>;
/** What a client passes as the route's path parameters. */
export type RouteParams<R extends RouteName> = ParamsOf<(typeof ROUTES)[R]>;
/** The path parameters as the server's validator hands them to the handler (checked texts). */
export type RouteParamText<R extends RouteName> = ParamTextOf<(typeof ROUTES)[R]>;
/** The route's JSON body (undefined when it takes none). */
export type RouteBody<R extends RouteName> = BodyOf<(typeof ROUTES)[R]>;
/** The route's success body. */
export type RouteResult<R extends RouteName> = ResponseOf<(typeof ROUTES)[R]>;
