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

/**
 * `error.data.reason` of every rfq.* failure (docs/spec/design.md section 19): a stable snake_case
 * word that refines the code, declared per code. The first reason of a code is the one a refusal
 * gets when its thrower names none. docs/errors.md has the table; a reason is never renamed.
 * The competition reasons (`quote_replaced`, `quote_cancelled`, `quote_traded_away`,
 * `quote_firm`) are declared for the competitive quotes of section 18.
 */
export const RFQ_ERROR_REASONS = {
  RFQ_NOT_ENABLED: ['rfq_disabled'],
  RFQ_NOT_READY: ['market_data_stale', 'views_unconfirmed', 'shutting_down', 'internal_error', 'redis_unavailable'],
  RFQ_INVALID_INSTRUMENT: ['instrument_unknown', 'instrument_settled', 'instrument_expired', 'leg_duplicate', 'legs_mixed', 'instrument_paused'],
  RFQ_SIZE_INVALID: ['zero_quantity', 'leg_count', 'max_quote_notional'],
  RFQ_PRECISION_UNSUPPORTED: ['not_canonical_decimal'],
  RFQ_VALUE_OUT_OF_RANGE: [
    'invalid_params',
    'bid_above_ask',
    'quote_times',
    'quote_expiry_too_late',
    'issued_in_future',
    'accept_after_quote',
    'since_out_of_range',
  ],
  RFQ_OPEN_LIMIT: ['max_open_rfqs', 'max_open_quotes', 'max_open_notional', 'max_open_delta', 'max_open_vega', 'kill_switch', 'maker_protection'],
  RFQ_NOT_FOUND: ['rfq_not_found', 'quote_not_found', 'cursor_not_found'],
  RFQ_WRONG_ROLE: ['role_missing', 'not_signed_in', 'own_rfq'],
  RFQ_INVALID_SIGNATURE: ['signature_mismatch', 'signature_not_canonical'],
  RFQ_CANONICAL_MISMATCH: ['client_ref_reused'],
  RFQ_QUOTE_EXPIRED: ['quote_expired', 'accept_expired', 'quote_replaced', 'quote_cancelled', 'quote_traded_away'],
  RFQ_STATE_CONFLICT: [
    'rfq_ended',
    'quoted_by_another',
    'already_quoted',
    'nonce_not_increasing',
    'not_quoted',
    'already_accepted',
    'rfq_cancelled',
    'replay_running',
    'quote_firm',
  ],
  RFQ_TAKER_UNFUNDED: ['taker_unfunded'],
  RFQ_BALANCE_INSUFFICIENT: ['maker_unfunded'],
  RFQ_PRICE_TOLERANCE: ['price_band', 'fee_above_max'],
  RFQ_ATTESTATION_FAILED: ['ledger_check_failed'],
  RFQ_TX_FAILED: ['ledger_write_failed'],
  RFQ_RATE_LIMITED: ['rate_limited', 'query_rate', 'replay_busy'],
} as const satisfies Record<RfqErrorCode, readonly string[]>;

/** The reasons of one code (all of them for the union). */
export type RfqErrorReason<C extends RfqErrorCode = RfqErrorCode> = (typeof RFQ_ERROR_REASONS)[C][number];

/** Every reason, each once (a reason belongs to one code). */
export const RFQ_REASONS: RfqErrorReason[] = Object.values(RFQ_ERROR_REASONS).flat();

/**
 * Reasons whose refusal stays `retryable: false` although their code is retryable: retrying
 * cannot help until the maker itself acts (raises max_open_quotes). `maker_protection` is not
 * retryable only when the freeze ends with rfq.maker.reset_protection alone (frozen_seconds 0):
 * the thrower says so.
 */
export const NOT_RETRYABLE_REASONS: readonly RfqErrorReason[] = ['kill_switch'];
