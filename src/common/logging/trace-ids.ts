import { randomBytes } from 'node:crypto';

/**
 * 96 random bits drawn once per process: ids made here (request ids, connection ids) are unique
 * across instances and restarts without any coordination, and cost a counter increment each.
 */
const PROCESS_TAG = randomBytes(12).toString('base64url');

let requests = 0;
let connections = 0;

/** A new request id (`<process tag>-<counter>`, only [A-Za-z0-9_-]; docs/observability.md). */
export function nextRequestId(): string {
  return `${PROCESS_TAG}-${(++requests).toString(36)}`;
}

/** A new connection number; `connectionIdOf` writes it (kept as a number: an idle connection should cost little). */
export function nextConnection(): number {
  return ++connections;
}

/** The connection id of the log lines of a WebSocket connection. */
export function connectionIdOf(connection: number): string {
  return `${PROCESS_TAG}-c${connection.toString(36)}`;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The client's X-Request-Id when it is 1 to 64 characters of [A-Za-z0-9._-], else a new one (docs/spec/design.md section 16). */
export function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : nextRequestId();
}
