import { ROUTES, type RouteBody, type RouteName, type RouteParams, type RouteQuery, type RouteResult } from '@legwork/protocol';
import { HttpError, retryAfterMsOf } from './errors';
import { type Keypair, messageToSign } from './keys';
import type { ExchangeKeyInfo, JournalRow } from './receipts';
import type { AuthResult, Instrument, NonceResult, Role } from './types';

/**
 * What a call of a declared route passes: its query (each parameter optional), and its path
 * parameters and body when the route takes them.
 */
export type RouteCall<R extends RouteName> = { query?: RouteQuery<R> } & (RouteParams<R> extends undefined ? unknown : { params: RouteParams<R> }) &
  (RouteBody<R> extends undefined ? unknown : { body: RouteBody<R> });

/** Query values: undefined ones are left out. */
export type Query = Record<string, string | number | boolean | undefined>;

/** Options of {@link LegworkHttp}. */
export interface LegworkHttpOptions {
  /** Service name for the sign-in message when the server does not send it (default "Legwork"). */
  serviceName?: string;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
}

/**
 * The HTTP API: sign-in, the query API (bearer session token) and the admin commands (bearer
 * admin token, or a session token with the admin role or scope). Every non-2xx reply throws
 * {@link HttpError}.
 *
 * ```ts
 * const http = new LegworkHttp('http://127.0.0.1:3000');
 * await http.signIn(keypair);            // remembers the session token
 * const { rows } = await http.balances();
 * const admin = http.withToken(process.env.ADMIN_TOKEN);
 * ```
 */
export class LegworkHttp {
  /** The bearer token sent on every request (session token or admin token), if any. */
  token: string | undefined;
  readonly baseUrl: string;

  constructor(
    baseUrl: string,
    token?: string,
    private readonly options: LegworkHttpOptions = {},
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.token = token;
  }

  /** The same client with another bearer token (e.g. an admin token). */
  withToken(token: string | undefined): LegworkHttp {
    return new LegworkHttp(this.baseUrl, token, this.options);
  }

  /**
   * One request: JSON body in, JSON body out.
   * @throws {HttpError} on a non-2xx status
   */
  async request<T = unknown>(method: string, path: string, options: { query?: Query; body?: unknown } = {}): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', ...this.options.headers };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const doFetch = this.options.fetch ?? fetch;
    const response = await doFetch(this.baseUrl + path + queryString(options.query), { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    if (text.length > 0) {
      try {
        parsed = JSON.parse(text);
      } catch {
        /* not JSON: keep the text */
      }
    }
    if (!response.ok) {
      const error = typeof (parsed as { error?: unknown })?.error === 'string' ? (parsed as { error: string }).error : text || response.statusText;
      throw new HttpError(response.status, error, parsed, retryAfterMsOf(response.headers?.get?.('retry-after')));
    }
    return parsed as T;
  }

  /**
   * Calls a route declared in `@legwork/protocol` (ROUTES) by name: its method and path are the
   * declaration's, its path parameters, query, body and result are typed off it.
   * @throws {HttpError} on a non-2xx status
   */
  route<R extends RouteName>(name: R, call: RouteCall<R> = {} as RouteCall<R>): Promise<RouteResult<R>> {
    const { method, path } = ROUTES[name];
    const { query, params, body } = call as { query?: Query; params?: Record<string, string | number>; body?: unknown };
    const url = path.replace(/\{(\w+)\}/g, (_, key: string) => encodeURIComponent(String(params?.[key])));
    return this.request<RouteResult<R>>(method, url, { query, body });
  }

  /** GET `path` with a query. */
  get<T = unknown>(path: string, query?: Query): Promise<T> {
    return this.request<T>('GET', path, { query });
  }

  /** POST `path` with a JSON body (default `{}`). */
  post<T = unknown>(path: string, body: unknown = {}): Promise<T> {
    return this.request<T>('POST', path, { body });
  }

  /** PUT `path` with a JSON body. */
  put<T = unknown>(path: string, body: unknown = {}): Promise<T> {
    return this.request<T>('PUT', path, { body });
  }

  // Sign-in

  /** `POST /v1/auth/nonce`: a single-use nonce (5 minutes) and the message to sign. */
  nonce(wallet: string): Promise<NonceResult> {
    return this.route('auth.nonce', { body: { wallet } });
  }

  /** `POST /v1/auth/session`: trades a signed nonce message for a session token (not remembered). */
  session(body: RouteBody<'auth.open-session'>): Promise<AuthResult> {
    return this.route('auth.open-session', { body });
  }

  /** Signs in with a wallet key (nonce, sign, session) and remembers the session token as bearer. */
  async signIn(keypair: Keypair): Promise<AuthResult> {
    const nonce = await this.nonce(keypair.wallet);
    const message = messageToSign(nonce, keypair.wallet, this.options.serviceName);
    const result = await this.session({ wallet: keypair.wallet, message, signature: keypair.signBase58(message) });
    this.token = result.session_token;
    return result;
  }

  // Query API (session token of an account)

  /** `GET /query/balances`: amounts with 8 decimal places (read them with `parseHttpDecimal`). */
  balances(accountId?: number): Promise<RouteResult<'query.balances'>> {
    return this.route('query.balances', { query: { account_id: accountId } });
  }

  /** `GET /query/rfq-positions`: net RFQ contracts per instrument (`status` default `open`). */
  rfqPositions(options: { status?: 'open' | 'settled' | 'all'; limit?: number; accountId?: number } = {}): Promise<RouteResult<'query.rfq-positions'>> {
    return this.route('query.rfq-positions', { query: { account_id: options.accountId, limit: options.limit, status: options.status } });
  }

  /** `GET /v1/exchange/keys` (public): the keys that sign fill receipts. */
  exchangeKeys(): Promise<{ keys: ExchangeKeyInfo[] }> {
    return this.route('exchange.keys');
  }

  /** `GET /v1/exchange/journal` (public): the receipt chain after `after` (at most `limit`, 1 to 1000) and its head. */
  journal(options: { after?: number; limit?: number } = {}): Promise<{ rows: JournalRow[]; head: { journal_seq: number; hash: string } }> {
    return this.route('exchange.journal', { query: { after: options.after, limit: options.limit } });
  }

  /** `GET /query/rfq-fills`: fills as taker or maker, newest first; pass `next_cursor` as `after`. */
  rfqFills(options: { limit?: number; after?: string; accountId?: number } = {}): Promise<RouteResult<'query.rfq-fills'>> {
    return this.route('query.rfq-fills', { query: { account_id: options.accountId, limit: options.limit, after: options.after } });
  }

  // Admin commands (admin token, or a session token with the admin role or scope)

  /** `POST /v1/admin/accounts`: creates the account of a wallet (409 when it has one); no roles without `roles`. */
  createAccount(body: { wallet: string; roles?: Role[] }): Promise<RouteResult<'admin.create-account'>> {
    // Role is open here (a newer server may know more roles); the server refuses one it does not know.
    return this.route('admin.create-account', { body: body as RouteBody<'admin.create-account'> });
  }

  /** `PUT /v1/admin/accounts/{id}/roles`: the whole new set of roles. */
  setRoles(accountId: number, roles: Role[]): Promise<RouteResult<'admin.set-roles'>> {
    return this.route('admin.set-roles', { params: { account_id: accountId }, body: { roles } as RouteBody<'admin.set-roles'> });
  }

  /** `POST /v1/admin/accounts/{id}/deposit`: idempotent by `reference`. `amount`: decimal string. */
  deposit(accountId: number, body: RouteBody<'admin.deposit'>): Promise<RouteResult<'admin.deposit'>> {
    return this.route('admin.deposit', { params: { account_id: accountId }, body });
  }

  /** `POST /v1/admin/accounts/{id}/withdraw`. */
  withdraw(accountId: number, body: RouteBody<'admin.withdraw'>): Promise<RouteResult<'admin.withdraw'>> {
    return this.route('admin.withdraw', { params: { account_id: accountId }, body });
  }

  /** `POST /v1/admin/create-instruments`: idempotent; `created` counts new instruments only. */
  createInstruments(body: RouteBody<'admin.create-instruments'>): Promise<RouteResult<'admin.create-instruments'>> {
    return this.route('admin.create-instruments', { body });
  }

  /** `POST /v1/admin/market-data`: index price and implied volatility (flat `iv` or per symbol `ivs`). */
  marketData(body: RouteBody<'admin.market-data'>): Promise<RouteResult<'admin.market-data'>> {
    return this.route('admin.market-data', { body });
  }

  /** `POST /v1/admin/instruments/pause-by-expiration`. */
  pauseExpiration(body: RouteBody<'admin.pause-by-expiration'>): Promise<RouteResult<'admin.pause-by-expiration'>> {
    return this.route('admin.pause-by-expiration', { body });
  }

  /** `POST /v1/admin/instruments/resume-by-expiration`. */
  resumeExpiration(body: RouteBody<'admin.resume-by-expiration'>): Promise<RouteResult<'admin.resume-by-expiration'>> {
    return this.route('admin.resume-by-expiration', { body });
  }

  /** Instrument records over HTTP when the server offers `GET /v1/instruments` (docs/spec/design.md 2). */
  instruments(query: { asset?: string; expiry?: number; include_settled?: boolean } = {}): Promise<{ instruments: Instrument[] }> {
    const { include_settled, ...rest } = query;
    return this.route('public.instruments', {
      query: { ...rest, include_settled: include_settled === undefined ? undefined : include_settled ? 'true' : 'false' },
    });
  }
}

function queryString(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.append(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}
