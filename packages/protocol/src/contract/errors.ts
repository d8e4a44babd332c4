/** The RFQ error codes of docs/spec/interface.md 7.2: `error.data.error` of every rfq.* failure (code 1200). */
export const RFQ_ERROR_CODES = [
  'RFQ_NOT_ENABLED',
  'RFQ_NOT_READY',
  'RFQ_INVALID_INSTRUMENT',
  'RFQ_SIZE_INVALID',
  'RFQ_PRECISION_UNSUPPORTED',
  'RFQ_VALUE_OUT_OF_RANGE',
  'RFQ_OPEN_LIMIT',
  'RFQ_NOT_FOUND',
  'RFQ_WRONG_ROLE',
  'RFQ_INVALID_SIGNATURE',
  'RFQ_CANONICAL_MISMATCH',
  'RFQ_QUOTE_EXPIRED',
  'RFQ_STATE_CONFLICT',
  'RFQ_TAKER_UNFUNDED',
  'RFQ_BALANCE_INSUFFICIENT',
  'RFQ_PRICE_TOLERANCE',
  'RFQ_ATTESTATION_FAILED',
  'RFQ_TX_FAILED',
  'RFQ_RATE_LIMITED',
] as const;
export type RfqErrorCode = (typeof RFQ_ERROR_CODES)[number];

/** The JSON-RPC error codes (docs/spec/design.md section 4): the non-RFQ failures, and 1200 for every rfq.* one. */
export const RPC_CODES = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  AUTH_REQUIRED: 1000,
  AUTH_INVALID_SIGNATURE: 1001,
  AUTH_INVALID_NONCE: 1002,
  SESSION_INVALID: 1004,
  RATE_LIMITED: 1005,
  RFQ_ERROR: 1200,
} as const;

/** A non-RFQ failure: `error.data.error` of a reply whose code is not 1200. */
export type RpcErrorName = Exclude<keyof typeof RPC_CODES, 'RFQ_ERROR'>;
export const RPC_ERROR_NAMES = (Object.keys(RPC_CODES) as RpcErrorName[]).filter((name) => (name as string) !== 'RFQ_ERROR');

/** Errors every method of the rfq dialect may answer, whatever the method (docs/spec/design.md section 4). */
export const RFQ_COMMON_ERRORS = ['RFQ_NOT_ENABLED', 'RFQ_WRONG_ROLE', 'RFQ_RATE_LIMITED', 'RFQ_VALUE_OUT_OF_RANGE', 'RFQ_NOT_READY'] as const;

/** Errors every method of the public dialect may answer, whatever the method. */
export const PUBLIC_COMMON_ERRORS = ['INTERNAL_ERROR'] as const;
