import { declareRoute } from './route-declaration';
import { httpDecimal } from './route-schemas';

/**
 * The HTTP query API (docs/spec/interface.md 4.1, docs/spec/design.md sections 6 and 8): an
 * account's reads. Amounts are 8-dp decimal strings (the HTTP form); times are unix seconds
 * unless named `updated_at` (ISO-8601).
 */

const MAX_QUERY_LIMIT = 1000;
const READER = { kind: 'reader' } as const;

const ACCOUNT_ID = {
  schema: {
    type: 'integer',
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    description:
      "The account to read (canonical decimal): default the token's own; another account only for an admin reader (admin token, role admin, scope admin:* or admin:read), which must name one when it has no account",
  },
  pattern: /^(0|[1-9][0-9]{0,15})$/,
  message: 'account_id must be an integer >= 0',
} as const;

const limit = (fallback: number) =>
  ({
    schema: { type: 'integer', minimum: 1, maximum: MAX_QUERY_LIMIT, description: `Rows per page (canonical decimal; default ${fallback})` },
    pattern: /^([1-9][0-9]{0,2}|1000)$/,
    message: `limit must be an integer from 1 to ${MAX_QUERY_LIMIT}`,
  }) as const;

const ISO_TIME = { type: 'string', format: 'date-time', description: 'ISO 8601 UTC' } as const;

/** `{ rows }`, or `{ rows, next_cursor }` (CursorRows, docs/spec/interface.md 2.2). */
const rows = <const R extends object>(row: R) =>
  ({ type: 'object', properties: { rows: { type: 'array', items: row } }, required: ['rows'], additionalProperties: false }) as const;
const cursorRows = <const R extends object>(row: R) =>
  ({
    type: 'object',
    properties: { rows: { type: 'array', items: row }, next_cursor: { type: 'string' } },
    required: ['rows'],
    additionalProperties: false,
  }) as const;

export const BALANCE_ROW = {
  type: 'object',
  properties: {
    account_id: { type: 'number' },
    currency: { type: 'string', enum: ['USDC'] },
    available: httpDecimal('Free balance: total - locked'),
    locked: httpDecimal('Locked against short option positions'),
    total: httpDecimal('Total balance'),
    updated_at: ISO_TIME,
  },
  required: ['account_id', 'currency', 'available', 'locked', 'total', 'updated_at'],
  additionalProperties: false,
} as const;

export const RFQ_POSITION_ROW = {
  type: 'object',
  properties: {
    account_id: { type: 'number' },
    instrument: { type: 'string' },
    asset: { type: 'string' },
    strike: httpDecimal('Strike price'),
    kind: { type: 'string', enum: ['call', 'put'] },
    expiry: { type: 'number', description: 'unix seconds' },
    settled: { type: 'boolean' },
    quantity: httpDecimal('Net quantity, negative when short'),
    average_price: { type: ['string', 'null'], description: 'Average opening price; decimal string with 8 decimal places, null when unknown' },
    updated_at: ISO_TIME,
  },
  required: ['account_id', 'instrument', 'asset', 'strike', 'kind', 'expiry', 'settled', 'quantity', 'average_price', 'updated_at'],
  additionalProperties: false,
} as const;

const RECEIPT_PROPERTIES = {
  journal_seq: { type: 'number' },
  kind: { type: 'number', enum: [0, 1], description: '0 fill, 1 revert' },
  payload: { type: 'string', description: 'base64 of the 1,072-byte StrategyFillReceipt' },
  hash: { type: 'string', description: 'hex SHA-256 of the payload' },
  key_id: { type: 'string', description: 'the signing key, as in GET /v1/exchange/keys' },
  signature: { type: 'string', description: 'base64 ed25519 signature of the payload' },
  taker_salt: {
    type: 'string',
    pattern: '^[0-9a-f]{64}$',
    description: "The taker's salt (hex): the receipt's taker_commitment is SHA-256(\"LEGWORK_TAKER\" || salt || taker key); on the taker's copies only",
  },
} as const;
const RECEIPT_REQUIRED = ['journal_seq', 'kind', 'payload', 'hash', 'key_id', 'signature'] as const;

export const RFQ_FILL_ROW = {
  type: 'object',
  properties: {
    fill_id: { type: 'string' },
    rfq_id: { type: 'string' },
    quote_id: { type: 'string' },
    role: { type: 'string', enum: ['taker', 'maker'] },
    side: { type: 'string', enum: ['buy', 'sell'] },
    legs: {
      type: 'array',
      items: {
        type: 'object',
        properties: { instrument: { type: 'string' }, quantity: httpDecimal('Leg quantity') },
        required: ['instrument', 'quantity'],
        additionalProperties: false,
      },
    },
    price: httpDecimal('Package price'),
    fee: httpDecimal('Taker fee (0 for the maker)'),
    filled_at: { type: 'number', description: 'unix seconds' },
    reverted: { type: 'boolean' },
    receipt: { type: 'object', properties: RECEIPT_PROPERTIES, required: RECEIPT_REQUIRED, additionalProperties: false },
    revert_receipt: {
      type: ['object', 'null'],
      description: "The revert's receipt (kind 1); null unless reverted",
      properties: RECEIPT_PROPERTIES,
      required: RECEIPT_REQUIRED,
      additionalProperties: false,
    },
  },
  required: ['fill_id', 'rfq_id', 'quote_id', 'role', 'side', 'legs', 'price', 'fee', 'filled_at', 'reverted', 'receipt', 'revert_receipt'],
  additionalProperties: false,
} as const;

export const QUERY_ROUTES = {
  'query.balances': declareRoute({
    method: 'GET',
    path: '/query/balances',
    tag: 'query',
    summary: 'The USDC balance row of the account (none for an account that does not exist)',
    access: READER,
    query: { account_id: ACCOUNT_ID },
    response: rows(BALANCE_ROW),
  }),
  'query.positions': declareRoute({
    method: 'GET',
    path: '/query/positions',
    tag: 'query',
    summary: 'Central limit order book positions: always none (Legwork has no order book; RFQ positions are /query/rfq-positions)',
    access: READER,
    query: { account_id: ACCOUNT_ID },
    response: { type: 'object', properties: { rows: { type: 'array', maxItems: 0, items: {} } }, required: ['rows'], additionalProperties: false },
  }),
  'query.rfq-positions': declareRoute({
    method: 'GET',
    path: '/query/rfq-positions',
    tag: 'query',
    summary: 'Net RFQ positions per instrument, non-zero only, by expiry then instrument; no cursor (`after` is a 400)',
    access: READER,
    query: {
      account_id: ACCOUNT_ID,
      limit: limit(500),
      status: {
        schema: { type: 'string', enum: ['open', 'settled', 'all'], description: 'open (default): unsettled instruments; settled; all' },
        pattern: /^(open|settled|all)$/,
        message: 'status must be one of open, settled, all',
      },
      // Cursor pagination is not supported: the handler refuses `after` with its own message.
      after: { schema: { type: 'string', description: 'not supported' }, pattern: /^/, message: '', refusedByHandler: true },
    },
    response: rows(RFQ_POSITION_ROW),
  }),
  'query.rfq-fills': declareRoute({
    method: 'GET',
    path: '/query/rfq-fills',
    tag: 'query',
    summary: 'RFQ fills of the account as taker or maker, newest first, with their signed receipts; next_cursor continues with after',
    access: READER,
    query: {
      account_id: ACCOUNT_ID,
      limit: limit(100),
      after: {
        schema: { type: 'string', description: 'Cursor: the next_cursor of the previous page (a fill id)', pattern: '^(0|[1-9][0-9]{0,18})$' },
        pattern: /^(0|[1-9][0-9]{0,18})$/,
        message: 'after must be a fill id (a decimal integer)',
      },
    },
    response: cursorRows(RFQ_FILL_ROW),
  }),
  'query.session': declareRoute({
    method: 'GET',
    path: '/query/session',
    tag: 'query',
    summary: "The caller as its bearer token authenticates it: the account, wallet, the account's current roles and scopes, and when the session expires",
    access: READER,
    query: {},
    response: {
      type: 'object',
      properties: {
        account_id: { type: ['number', 'null'], description: 'null for the admin token' },
        wallet: { type: ['string', 'null'], description: 'null for the admin token' },
        roles: { type: 'array', items: { type: 'string', enum: ['taker', 'quoter', 'admin'] } },
        scopes: { type: 'array', items: { type: 'string' } },
        expires_at: { type: ['number', 'null'], description: 'unix seconds; null for the admin token, which does not expire' },
      },
      required: ['account_id', 'wallet', 'roles', 'scopes', 'expires_at'],
      additionalProperties: false,
    },
  }),
};
