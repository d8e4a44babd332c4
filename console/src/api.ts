import { ENDPOINTS, type EndpointName } from './endpoints';

const TOKEN_KEY = 'legwork.console.token';
/** Dispatched on window when the server refuses the stored token (detail: its message). */
export const SIGNED_OUT_EVENT = 'legwork:signed-out';

/** A failed call: the status and the server's `{ error }` text. */
class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The bearer token of this tab (admin token or an admin session); sessionStorage: gone with the tab. */
export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set: (value: string) => sessionStorage.setItem(TOKEN_KEY, value),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** What this page has called (method and path template), for the test that checks each is documented. */
const calls = new Set<string>();
(window as unknown as { __consoleCalls: Set<string> }).__consoleCalls = calls;

export interface CallOptions {
  path?: Record<string, string | number>;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** Use this token instead of the stored one (the sign-in check). */
  bearer?: string | null;
}

/** Calls a documented route by name; resolves with the JSON body, throws ApiError on a non-2xx. */
export async function call<T = unknown>(name: EndpointName, options: CallOptions = {}): Promise<T> {
  const [method, template] = ENDPOINTS[name];
  calls.add(`${method} ${template}`);
  let url = template.replace(/\{(\w+)\}/g, (_, key: string) => encodeURIComponent(String(options.path?.[key] ?? '')));
  const query = Object.entries(options.query ?? {}).filter(([, v]) => v !== undefined && v !== '');
  if (query.length > 0) url += '?' + new URLSearchParams(query.map(([k, v]) => [k, String(v)])).toString();
  const headers: Record<string, string> = {};
  const bearer = options.bearer === undefined ? token.get() : options.bearer;
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  let body: string | undefined;
  if (method !== 'GET') {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body ?? {});
  }
  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  // /health answers its body with 503 when a dependency is down: the body is what the page shows.
  // The stored token no longer works (expired session, rotated admin token, revoked): back to sign-in.
  if (response.status === 401 && bearer !== null && bearer === token.get()) {
    token.clear();
    window.dispatchEvent(new CustomEvent(SIGNED_OUT_EVENT, { detail: errorText(parsed) ?? 'unauthorized' }));
  }
  if (!response.ok && !(name === 'health' && response.status === 503)) throw new ApiError(response.status, errorText(parsed) ?? `HTTP ${response.status}`);
  return parsed as T;
}

/** The `{ error }` text of an error body (docs/spec/design.md section 8), if the body is one. */
function errorText(body: unknown): string | undefined {
  return typeof body === 'object' && body !== null && 'error' in body && typeof body.error === 'string' ? body.error : undefined;
}

/** A message for the operator from any failure. */
export const describeError = (error: unknown) => (error instanceof ApiError ? `${error.status}: ${error.message}` : String((error as Error)?.message ?? error));
