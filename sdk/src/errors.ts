import { RPC_CODES, type RfqErrorCode, type RfqErrorReason } from '@legwork/protocol';

/** JSON-RPC error code of every `rfq.*` failure. */
export const RFQ_ERROR_CODE = RPC_CODES.RFQ_ERROR;

/**
 * A JSON-RPC error reply (`error: { code, message, data? }`). Non-RFQ failures carry
 * `data = { error, message }` (docs/spec/design.md 4: PARSE_ERROR, INVALID_PARAMS, AUTH_INVALID_NONCE, ...).
 */
export class LegworkRpcError extends Error {
  constructor(
    /** JSON-RPC error code (-32700 … -32603, 1000 … 1005, 1200). */
    readonly code: number,
    message: string,
    /** `error.data` as the server sent it. */
    readonly data?: unknown,
    /** The method of the failed request, when known. */
    readonly method?: string,
  ) {
    super(message);
    this.name = 'LegworkRpcError';
  }

  /** `data.error`, the symbolic name of the failure (`SESSION_INVALID`, `RFQ_NOT_FOUND`, ...), when the server gave one. */
  get errorName(): string | undefined {
    const data = this.data as { error?: unknown } | undefined;
    return typeof data?.error === 'string' ? data.error : undefined;
  }

  /**
   * How long to wait before trying again, in milliseconds: `data.retry_after_ms` of a 1005
   * RATE_LIMITED or an RFQ_RATE_LIMITED refusal (undefined for other failures).
   */
  get retryAfterMs(): number | undefined {
    const wait = (this.data as { retry_after_ms?: unknown } | undefined)?.retry_after_ms;
    return typeof wait === 'number' && Number.isFinite(wait) && wait >= 0 ? wait : undefined;
  }
}

/** The typed data of an `rfq.*` failure (docs/spec/interface.md 7.2). */
export interface RfqErrorData {
  error: RfqErrorCode | (string & {});
  /** The word that refines `error` (docs/errors.md), e.g. `quoted_by_another`, `kill_switch`. */
  reason: RfqErrorReason | (string & {});
  message: string;
  operation_id: string;
  retryable: boolean;
  rfq_id?: string;
  quote_id?: string;
  details?: unknown;
  /** RFQ_INVALID_SIGNATURE of `rfq.maker.check`: base64 of the payload the exchange built. */
  payload?: string;
  /** RFQ_RATE_LIMITED: milliseconds until a call would be admitted. */
  retry_after_ms?: number;
}

/** A failed `rfq.*` call: code 1200 with the typed RFQ error. */
export class RfqError extends LegworkRpcError {
  /** The RFQ error code, e.g. `RFQ_TAKER_UNFUNDED`. */
  readonly error: RfqErrorCode | (string & {});
  /**
   * Why, within the code: a stable snake_case word (`quoted_by_another`, `rfq_ended`,
   * `nonce_not_increasing`, `kill_switch`, ...; the table is docs/errors.md). A server older than
   * design.md section 19 sends none: then the empty string.
   */
  readonly reason: RfqErrorReason | (string & {});
  /** True when the same call may succeed later (RFQ_NOT_READY, RFQ_RATE_LIMITED, ...). */
  readonly retryable: boolean;
  /** Server correlation id: quote it to support. */
  readonly operationId: string;
  readonly rfqId?: string;
  readonly quoteId?: string;
  /** For RFQ_TAKER_UNFUNDED: the funding view (`FundingView`). */
  readonly details?: unknown;
  /** For RFQ_INVALID_SIGNATURE of `rfq.maker.check`: base64 of the payload the exchange built (diff it against yours). */
  readonly payload?: string;

  constructor(message: string, data: RfqErrorData, method?: string) {
    super(RFQ_ERROR_CODE, message, data, method);
    this.name = 'RfqError';
    this.error = data.error;
    this.reason = data.reason;
    this.retryable = data.retryable === true;
    this.operationId = data.operation_id;
    this.rfqId = data.rfq_id;
    this.quoteId = data.quote_id;
    this.details = data.details;
    this.payload = data.payload;
  }
}

/** Maps a JSON-RPC `error` object to {@link RfqError} (code 1200 with typed data) or {@link LegworkRpcError}. */
export function rpcErrorFrom(error: { code?: unknown; message?: unknown; data?: unknown }, method?: string): LegworkRpcError {
  const code = typeof error?.code === 'number' ? error.code : 0;
  const message = typeof error?.message === 'string' ? error.message : 'JSON-RPC error';
  const data = error?.data as Partial<RfqErrorData> | undefined;
  if (code === RFQ_ERROR_CODE && data && typeof data === 'object' && typeof data.error === 'string') {
    return new RfqError(
      message,
      {
        error: data.error,
        reason: typeof data.reason === 'string' ? data.reason : '',
        message: typeof data.message === 'string' ? data.message : message,
        operation_id: typeof data.operation_id === 'string' ? data.operation_id : '',
        retryable: data.retryable === true,
        rfq_id: data.rfq_id,
        quote_id: data.quote_id,
        details: data.details,
        payload: typeof data.payload === 'string' ? data.payload : undefined,
        ...(typeof data.retry_after_ms === 'number' ? { retry_after_ms: data.retry_after_ms } : {}),
      },
      method,
    );
  }
  return new LegworkRpcError(code, message, error?.data, method);
}

/** An HTTP reply with a non-2xx status; `error` is the `{ error }` of the body. */
export class HttpError extends Error {
  constructor(
    /** HTTP status. */
    readonly status: number,
    /** The body's `error` text (or the raw body when it is not the documented shape). */
    readonly error: string,
    /** The parsed body. */
    readonly body?: unknown,
    /** A 429's `Retry-After`, in milliseconds: how long to wait before trying again. */
    readonly retryAfterMs?: number,
  ) {
    super(`HTTP ${status}: ${error}`);
    this.name = 'HttpError';
  }
}

/** `Retry-After` in milliseconds: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMsOf(header: string | null | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** A request that got no reply within its timeout (the server may still have run it). */
export class TimeoutError extends Error {
  constructor(
    readonly method: string,
    readonly timeoutMs: number,
  ) {
    super(`${method}: no reply within ${timeoutMs} ms`);
    this.name = 'TimeoutError';
  }
}

/**
 * The connection closed before a reply came (the server may still have run the request), or the
 * client is closed.
 */
export class ConnectionError extends Error {
  constructor(
    message: string,
    readonly method?: string,
  ) {
    super(message);
    this.name = 'ConnectionError';
  }
}
