import { NOT_RETRYABLE_REASONS, RFQ_ERROR_REASONS, type RfqErrorCode, type RfqErrorReason } from '@legwork/protocol';

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
export type { RfqErrorCode, RfqErrorReason };

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
  /** False where retrying cannot help although the code is retryable (maker protection that only a reset ends). */
  retryable?: false;
}

/**
 * An rfq.* refusal: its code, its `reason` (docs/spec/design.md section 19: the code's first
 * declared reason when the thrower names none) and whether retrying can help.
 */
export class RfqError<C extends RfqErrorCode = RfqErrorCode> extends Error {
  readonly retryable: boolean;
  readonly reason: RfqErrorReason<C>;
  constructor(
    readonly code: C,
    message: string,
    readonly extras: RfqErrorExtras & { reason?: RfqErrorReason<C> } = {},
  ) {
    super(message);
    this.name = 'RfqError';
    this.reason = extras.reason ?? RFQ_ERROR_REASONS[code][0];
    this.retryable =
      extras.retryable !== false &&
      !NOT_RETRYABLE_REASONS.includes(this.reason) &&
      (RETRYABLE.has(code) || (code === 'RFQ_INVALID_INSTRUMENT' && extras.pausedLeg === true));
  }
}
