import { ASSET_PATTERN } from './enums';
import { declareRoute } from './route-declaration';

/**
 * The public HTTP routes: sign-in (`/v1/auth/*`, as public/get_nonce and public/auth), the
 * listed instruments, the exchange's keys and receipt journal (docs/spec/design.md 14), and the
 * probes (`/health*`). Times are unix seconds.
 */

const PUBLIC = { kind: 'public' } as const;

const WALLET = {
  type: 'string',
  description: 'Solana wallet address: base58 of a 32-byte ed25519 public key (canonical, not of small order)',
  example: '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T',
} as const;
const UNIX_SECONDS = <const D extends string>(description: D) => ({ type: 'integer', format: 'int64', description: `${description} (unix seconds)` }) as const;
const ASSET = { type: 'string', description: 'Underlying asset', pattern: '^[A-Z][A-Z0-9]{1,7}$', example: 'SOL' } as const;
const RFQ_DECIMAL = <const D extends string>(description: D) =>
  ({
    type: 'string',
    pattern: '^(0|[1-9][0-9]*)(\\.[0-9]{1,6})?$',
    description: `${description}; decimal string, at most 6 fractional digits (RFQ output form)`,
  }) as const;
const object = <const P extends Record<string, object>>(properties: P) =>
  ({ type: 'object', properties, required: Object.keys(properties) as Array<keyof P & string>, additionalProperties: false }) as const;

const SIGN_IN_RESULT = {
  type: 'object',
  properties: {
    wallet: WALLET,
    account_id: { type: ['integer', 'null'], description: 'null for a wallet without an account: its token reads and trades nothing' },
    roles: { type: 'array', items: { type: 'string', enum: ['taker', 'quoter', 'admin'] } },
    session_token: { type: 'string', description: 'Session token (HS256 JWT): the HTTP bearer credential and the key of public/session_resume' },
  },
  required: ['wallet', 'account_id', 'roles', 'session_token'],
  additionalProperties: false,
} as const;

const INSTRUMENT_RECORD = {
  type: 'object',
  properties: {
    symbol: { type: 'string', description: '<ASSET>-<DDMMMYY>-<STRIKE>-<C|P>', example: 'SOL-27DEC26-152.5-C', maxLength: 32 },
    asset: ASSET,
    strike: RFQ_DECIMAL('Strike'),
    kind: { type: 'string', enum: ['call', 'put'] },
    expiry: UNIX_SECONDS('Expiry'),
    paused: { type: 'boolean', description: 'The round is paused (pause-by-expiration)' },
    settled: { type: 'boolean' },
    settlement_price: {
      ...RFQ_DECIMAL('Settlement price'),
      type: ['string', 'null'],
      description: 'Settlement price, null until settled; decimal string, at most 6 fractional digits',
    },
    created_at: UNIX_SECONDS('Listing time'),
  },
  required: ['symbol', 'asset', 'strike', 'kind', 'expiry', 'paused', 'settled', 'settlement_price', 'created_at'],
  additionalProperties: false,
} as const;

const HEALTH_STATES = ['up', 'down', 'embedded', 'in-process'] as const;
const HEALTH = {
  type: 'object',
  properties: {
    status: {
      type: 'string',
      enum: ['ok', 'degraded', 'draining'],
      description: '`degraded` (with status 503) when a dependency is down; `draining` (503) once the instance is shutting down (SIGTERM)',
    },
    service: { type: 'string', example: 'Legwork' },
    database: { type: 'string', enum: HEALTH_STATES, description: '`embedded`: PGlite (no DATABASE_URL)' },
    redis: { type: 'string', enum: HEALTH_STATES, description: '`in-process`: no REDIS_URL' },
  },
  required: ['status', 'service', 'database', 'redis'],
  additionalProperties: false,
} as const;
const READINESS = {
  query: {},
  otherQuery: 'ignored',
  response: HEALTH,
  responses: { 503: { description: 'A dependency is down, or the instance is draining', schema: HEALTH } },
} as const;

const JOURNAL_SEQ = /^(0|[1-9][0-9]{0,15})$/;
const LIMIT = /^([1-9][0-9]{0,2}|1000)$/;

export const PUBLIC_ROUTES = {
  'auth.nonce': declareRoute({
    method: 'POST',
    path: '/v1/auth/nonce',
    tag: 'auth',
    summary: 'Get a sign-in nonce for a wallet',
    description: 'Valid 5 minutes, single use; at most 3 live per wallet (a fourth evicts the oldest).',
    access: PUBLIC,
    query: {},
    otherQuery: 'ignored',
    body: object({ wallet: WALLET }),
    response: object({
      wallet: WALLET,
      nonce: { type: 'string', description: '32 lowercase hex characters; single use, valid 300 s', pattern: '^[0-9a-f]{32}$' },
      expires_at: UNIX_SECONDS('Expiry'),
      message: {
        type: 'string',
        description: 'The exact text to sign: "Sign in to <service>", an empty line, "Wallet: <wallet>", "Nonce: <nonce>" (newline separated)',
      },
    }),
    responses: { 429: { description: 'Over NONCE_RATE_PER_MINUTE (10) requests per minute from this client IP' } },
  }),
  'auth.open-session': declareRoute({
    method: 'POST',
    path: '/v1/auth/session',
    tag: 'auth',
    summary: 'Sign in over HTTP with the signed nonce message',
    description: 'Same body and result as public/auth. The nonce is consumed by the attempt, whatever its outcome.',
    access: PUBLIC,
    query: {},
    otherQuery: 'ignored',
    body: object({
      wallet: WALLET,
      signature: { type: 'string', description: 'base58 of the 64-byte ed25519 signature over `message`' },
      message: { type: 'string', description: 'The exact signed text returned with the nonce' },
    }),
    response: SIGN_IN_RESULT,
    responses: {
      401: { description: 'Bad signature, or unknown, expired or used nonce' },
      429: { description: 'Over AUTH_RATE_PER_MINUTE (30) sign-in attempts per minute from this client IP' },
    },
  }),
  'public.instruments': declareRoute({
    method: 'GET',
    path: '/v1/instruments',
    tag: 'instruments',
    summary: 'Listed instruments (default: open ones of every asset)',
    access: PUBLIC,
    query: {
      asset: { schema: ASSET, pattern: ASSET_PATTERN, message: `asset must match ${ASSET_PATTERN.source}` },
      expiry: {
        schema: { type: 'integer', minimum: 0, description: 'Only this expiry (unix seconds, decimal)' },
        pattern: /^[0-9]{1,16}$/,
        message: 'expiry must be an integer >= 0',
      },
      include_settled: {
        schema: { type: 'string', enum: ['true', 'false'], description: 'Also list settled instruments (default false)' },
        pattern: /^(true|false)$/,
        message: 'include_settled must be one of the following values: true, false',
      },
    },
    response: object({ instruments: { type: 'array', items: INSTRUMENT_RECORD, description: 'Ordered by asset, expiry, strike, kind' } }),
  }),
  'exchange.keys': declareRoute({
    method: 'GET',
    path: '/v1/exchange/keys',
    tag: 'exchange',
    summary: 'Public keys that sign fill receipts (rotation appends one)',
    access: PUBLIC,
    query: {},
    otherQuery: 'ignored',
    response: object({
      keys: {
        type: 'array',
        items: object({
          key_id: { type: 'string', description: 'Names the key in a receipt (key_id)' },
          public_key: { type: 'string', description: 'base58 of the ed25519 public key' },
          from: UNIX_SECONDS('Signs receipts from'),
        }),
      },
    }),
  }),
  'exchange.journal': declareRoute({
    method: 'GET',
    path: '/v1/exchange/journal',
    tag: 'exchange',
    summary: 'The receipt chain after `after` (no parties, no prices) and its head',
    access: PUBLIC,
    query: {
      after: {
        schema: { type: 'integer', minimum: 0, description: 'Only receipts after this journal_seq (default 0: from the first)' },
        pattern: JOURNAL_SEQ,
        message: 'after must be a journal_seq (an integer >= 0)',
      },
      limit: {
        schema: { type: 'integer', minimum: 1, maximum: 1000, description: 'At most this many receipts, 1 to 1000 (default 500)' },
        pattern: LIMIT,
        message: 'limit must be an integer from 1 to 1000',
      },
    },
    response: object({
      rows: {
        type: 'array',
        items: object({
          journal_seq: { type: 'integer' },
          kind: { type: 'integer', enum: [0, 1], description: '0 fill, 1 revert' },
          hash: { type: 'string', description: 'hex SHA-256 of the receipt payload' },
          prev_hash: { type: 'string', description: 'hash of the receipt before (zeros before journal_seq 1)' },
          at: UNIX_SECONDS('Time of the fill or revert'),
        }),
      },
      head: object({ journal_seq: { type: 'integer' }, hash: { type: 'string' } }),
    }),
  }),
  'operations.health': declareRoute({
    method: 'GET',
    path: '/health',
    tag: 'operations',
    summary: 'Readiness: the database and Redis answer',
    access: PUBLIC,
    ...READINESS,
  }),
  'operations.health-ready': declareRoute({
    method: 'GET',
    path: '/health/ready',
    tag: 'operations',
    summary: 'Readiness (same check as /health)',
    access: PUBLIC,
    ...READINESS,
  }),
  'operations.health-live': declareRoute({
    method: 'GET',
    path: '/health/live',
    tag: 'operations',
    summary: 'Liveness: the process answers',
    access: PUBLIC,
    query: {},
    otherQuery: 'ignored',
    response: object({ status: { type: 'string', enum: ['ok'] } }),
  }),
};
