import type { RfqErrorCode } from '@legwork/protocol';

/**
 * Typed errors thrown by services. Services never throw transport exceptions: the HTTP filter
 * and the JSON-RPC layer each map these codes once (http-status.ts here, the gateway's rpc-dispatcher.ts).
 */

/** Failures of the non-RFQ surface (sign-in, admin, queries). */
export type AppErrorCode =
  | 'INVALID_PARAMS'
  | 'AUTH_REQUIRED'
  | 'AUTH_INVALID_SIGNATURE'
  | 'AUTH_INVALID_NONCE'
  | 'SESSION_INVALID'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'RATE_LIMITED'
  | 'UNAVAILABLE';

export class AppError extends Error {
  constructor(
    readonly code: AppErrorCode,
    message: string,
    /** RATE_LIMITED: when to try again (Retry-After over HTTP, `retry_after_ms` over JSON-RPC). */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

/**
 * Makes an error without a stack trace, for refusals thrown at a flood's rate (the rate limits):
 * capturing the stack was about a third of the server's CPU under a flood of refused sign-ins,
 * and a refusal's stack is never read (the filters answer with its code and message).
 */
export function withoutStack<E extends Error>(make: () => E): E {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return make();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** RFQ error codes of docs/spec/interface.md section 7.2: the contract's list. */
export type { RfqErrorCode };

/** docs/spec/design.md section 4: retryable exactly for these (and a paused leg, flagged by the thrower). */
const RETRYABLE: ReadonlySet<RfqErrorCode> = new Set(['RFQ_NOT_READY', 'RFQ_RATE_LIMITED', 'RFQ_OPEN_LIMIT', 'RFQ_BALANCE_INSUFFICIENT']);

export interface RfqErrorExtras {
  rfqId?: string;
  quoteId?: string;
  details?: unknown;
  /** RFQ_INVALID_SIGNATURE of respond and check: canonical base64 of the quote payload the exchange built. */
  payload?: string;
  /** Only for RFQ_INVALID_INSTRUMENT on a paused leg. */
  pausedLeg?: boolean;
  /** RFQ_RATE_LIMITED: when to try again (`retry_after_ms`). */
  retryAfterMs?: number;
  /** `data.reason`: which rule refused (e.g. `maker_protection`; docs/spec/design.md section 20). */
  reason?: string;
  /** Overrides the code's retryable flag (a freeze only the operator ends is not retryable). */
  retryable?: boolean;
}

export class RfqError extends Error {
  readonly retryable: boolean;
  constructor(
    readonly code: RfqErrorCode,
    message: string,
    readonly extras: RfqErrorExtras = {},
  ) {
    super(message);
    this.name = 'RfqError';
    this.retryable = extras.retryable ?? (RETRYABLE.has(code) || (code === 'RFQ_INVALID_INSTRUMENT' && extras.pausedLeg === true));
  }
}
