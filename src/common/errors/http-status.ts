import { AppError, type AppErrorCode, type RfqError, type RfqErrorCode } from './app-error';

/** docs/spec/design.md section 8: every HTTP error body is `{ error }` with these statuses. */
const APP_STATUS: Record<AppErrorCode, number> = {
  INVALID_PARAMS: 400,
  AUTH_REQUIRED: 401,
  AUTH_INVALID_SIGNATURE: 401,
  AUTH_INVALID_NONCE: 401,
  SESSION_INVALID: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  UNAVAILABLE: 503,
};

function rfqStatus(code: RfqErrorCode): number {
  switch (code) {
    case 'RFQ_NOT_FOUND':
      return 404;
    case 'RFQ_STATE_CONFLICT':
    case 'RFQ_CANONICAL_MISMATCH':
      return 409;
    case 'RFQ_RATE_LIMITED':
      return 429;
    case 'RFQ_WRONG_ROLE':
      return 403;
    case 'RFQ_NOT_READY':
    case 'RFQ_NOT_ENABLED':
      return 503;
    default:
      return 400;
  }
}

export function httpStatusOf(error: AppError | RfqError): number {
  return error instanceof AppError ? APP_STATUS[error.code] : rfqStatus(error.code);
}
