import type { Role } from './enums';
import type { FromSchema } from './from-schema';

/**
 * Who may call an HTTP route (the server's access declaration, checked on every request):
 * `public` anyone; `account` a session of a wallet that has an account, holding `role` when given;
 * `reader` an account's session or an admin reader (the query routes, which then pick the account
 * read); `admin` the admin token, or a session with role admin, scope `admin:*` or `admin:<command>`.
 */
export type RouteAccess =
  | { readonly kind: 'public' }
  | { readonly kind: 'account'; readonly role?: Role }
  | { readonly kind: 'reader' }
  | { readonly kind: 'admin'; readonly command: string };

/**
 * One query-string parameter: its text must match `pattern` whole (canonical text, so that a
 * client and the server read it alike), else the route answers 400 with `message`.
 */
export interface QueryParamDeclaration {
  /** The parameter as OpenAPI shows it (and as a client passes it: `FromSchema` of it). */
  readonly schema: { readonly type: 'integer' | 'string'; readonly description: string; readonly [field: string]: unknown };
  readonly pattern: RegExp;
  readonly message: string;
  /** Taken only so that the handler can refuse it with its own message: not documented, no client sends it. */
  readonly refusedByHandler?: true;
  /** A request without it is the 400 with `message`. */
  readonly required?: true;
}

/** One path parameter (`{account_id}` of the path): checked like a query parameter, else the route answers 400 with `message`. */
export interface PathParamDeclaration {
  readonly schema: { readonly type: 'integer' | 'string'; readonly description: string; readonly [field: string]: unknown };
  readonly pattern: RegExp;
  readonly message: string;
}

/** An answer a route documents besides its success and the errors every route gives (a 503 with a body, a limit's 429). */
export interface OtherResponseDeclaration {
  readonly description: string;
  /** JSON Schema of its body; without it, the `{ error }` body. */
  readonly schema?: object;
}

/**
 * One HTTP route, declared once: the server registers it, checks its path parameters, query and
 * body from here and compiles its success body's serializer from `response`; /openapi.json shows
 * it; the SDK's, the console's and the Python client's calls are read off it.
 */
export interface RouteDeclaration {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The path template as OpenAPI writes it (`/v1/admin/accounts/{account_id}`). */
  readonly path: string;
  /** The OpenAPI tag (its group in the reference). */
  readonly tag: string;
  readonly summary: string;
  /** More text for the reference, when the summary is not all. */
  readonly description?: string;
  readonly access: RouteAccess;
  /** Each `{name}` of the path, in the path's order. */
  readonly params?: Readonly<Record<string, PathParamDeclaration>>;
  /** The query parameters it takes; any other is a 400 (unless `otherQuery` is `ignored`). */
  readonly query: Readonly<Record<string, QueryParamDeclaration>>;
  /** `ignored`: other query parameters are ignored, not refused (probes, which a load balancer may decorate). */
  readonly otherQuery?: 'ignored';
  /**
   * JSON Schema of the JSON body (an object, every object closed, no $ref): the server checks a
   * body against it with class-validator's messages (src/common/http/declared-body.ts); the handler gets its type.
   */
  readonly body?: object;
  /**
   * A body field's message (by its path: `amount`, `limits.max`; `roles[]` for an item of `roles`)
   * when the schema refuses its value, where the DTO gave its own.
   */
  readonly bodyMessages?: Readonly<Record<string, string>>;
  /**
   * Body fields (by path) the handler parses with its own messages, their schema documenting what
   * it accepts (a decimal as text or a JSON number, a maker's limits document): the checker asks
   * only that an object field is an object and that a required field is there.
   */
  readonly bodyParsedByHandler?: readonly string[];
  /** The status of a success (default 200). */
  readonly status?: 200 | 201;
  /** JSON Schema of the success body, every object closed (additionalProperties: false), no $ref. */
  readonly response: object;
  /** Other answers it documents, by status. */
  readonly responses?: Readonly<Record<number, OtherResponseDeclaration>>;
}

/** Keeps a declaration's literal types, so the clients' types can be read off it. */
export const declareRoute = <const D extends RouteDeclaration>(declaration: D): D => declaration;

type Required<Q> = { [K in keyof Q]: Q[K] extends { readonly required: true } ? K : never }[keyof Q];
type Passed<Q> = { [K in keyof Q]: Q[K] extends { readonly refusedByHandler: true } ? never : K }[keyof Q];
/** What a client passes as the query of a route (optional unless required; refused-by-handler ones left out). */
export type QueryOf<D extends RouteDeclaration> = {
  -readonly [K in Exclude<Passed<D['query']>, Required<D['query']>>]?: FromSchema<D['query'][K]['schema'], object>;
} & { -readonly [K in Required<D['query']>]: FromSchema<D['query'][K]['schema'], object> };
/** The query as the server's validator hands it to the handler: each parameter's checked text (when given, unless required). */
export type QueryTextOf<D extends RouteDeclaration> = { -readonly [K in Exclude<keyof D['query'], Required<D['query']>>]?: string } & {
  -readonly [K in Required<D['query']>]: string;
};
/** What a client passes as the path parameters of a route (undefined for a route that takes none). */
export type ParamsOf<D extends RouteDeclaration> = D extends { readonly params: infer P extends object }
  ? { -readonly [K in keyof P]: P[K] extends PathParamDeclaration ? FromSchema<P[K]['schema'], object> : never }
  : undefined;
/** The path parameters as the server hands them to the handler: each one's checked text. */
export type ParamTextOf<D extends RouteDeclaration> = D extends { readonly params: infer P extends object }
  ? { -readonly [K in keyof P]: string }
  : Record<string, never>;
/** The body, read off its schema (undefined for a route that takes none). */
export type BodyOf<D extends RouteDeclaration> = D extends { readonly body: infer B extends object } ? FromSchema<B, object> : undefined;
/** The success body, read off its schema. */
export type ResponseOf<D extends RouteDeclaration> = FromSchema<D['response'], object>;
