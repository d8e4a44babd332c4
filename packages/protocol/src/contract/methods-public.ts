import { declareMethod } from './declaration';
import { ASSET_PATTERN, MAX_EXPIRY } from './enums';
import { ref } from './json-schema';
import { boolean, checkedByService, integer, object, optional, required, string } from './params';

/**
 * The sign-in methods. The values are documented here but checked by the services (the same as
 * POST /v1/auth/*): an attempt counts against the client's rate limit before its values are read,
 * so the validator refuses only unknown params.
 */
const WALLET = checkedByService(string({ ref: 'Wallet', invalid: 'wallet must be a string' }));

const SIGN_IN = { dialect: 'public', access: { kind: 'public' }, mode: 'read', ownRateLimit: true } as const;
/** The public reads: the public bucket of the caller's IP, INVALID_PARAMS naming the field (docs/spec/design.md section 4). */
const PUBLIC_READ = { dialect: 'public', access: { kind: 'public' }, mode: 'read' } as const;

export const PUBLIC_METHODS = {
  'public/get_nonce': declareMethod({
    ...SIGN_IN,
    summary: 'Get a sign-in nonce for a wallet',
    description:
      'Same as POST /v1/auth/nonce. Valid 300 s, single use; a fourth live nonce evicts the oldest. 10 requests per minute per client IP (HTTP and WebSocket together).',
    params: object({ wallet: required(WALLET) }),
    result: ref('NonceChallenge'),
    errors: ['INVALID_PARAMS', 'RATE_LIMITED'],
  }),
  'public/auth': declareMethod({
    ...SIGN_IN,
    summary: 'Sign in with the wallet signature of the nonce message',
    description: 'The connection is signed in as the wallet from then on. The nonce is consumed by the attempt, whatever its outcome.',
    params: object({
      wallet: required(WALLET),
      signature: required(
        checkedByService(string({ invalid: 'signature must be a string' }), { description: 'base58 of the 64-byte ed25519 signature of `message`' }),
      ),
      message: required(checkedByService(string({ invalid: 'message must be a string' }), { description: 'The exact signed text returned with the nonce' })),
    }),
    result: ref('SignInResult'),
    errors: ['INVALID_PARAMS', 'AUTH_INVALID_SIGNATURE', 'AUTH_INVALID_NONCE'],
  }),
  'public/session_resume': declareMethod({
    ...SIGN_IN,
    summary: 'Resume a session with a session token, without signing again',
    description: 'Roles are read again from the database (a revoked role is gone on resume).',
    params: object({ session_token: required(checkedByService(string({ invalid: 'session_token must be a string' }))) }),
    result: ref('SignInResult'),
    errors: ['INVALID_PARAMS', 'SESSION_INVALID'],
  }),
  'public/get_market_config': declareMethod({
    ...PUBLIC_READ,
    summary: 'Service, signing domain, assets with index prices and the RFQ limits',
    params: object({}),
    result: ref('MarketConfig'),
    errors: ['INVALID_PARAMS'],
  }),
  'public/get_instruments': declareMethod({
    ...PUBLIC_READ,
    summary: 'Listed instruments with marks',
    description: 'Default: the open instruments of every asset, ordered by asset, expiry, strike, kind.',
    params: object({
      asset: optional(
        string({ ref: 'Asset', pattern: ASSET_PATTERN, invalid: '{path} must be a string', mismatch: `{path} must match ${ASSET_PATTERN.source}` }),
      ),
      expiry: optional(
        integer({
          ref: 'UnixSeconds',
          minimum: 0,
          maximum: MAX_EXPIRY - 1,
          invalid: '{path} must be an integer of unix seconds',
          range: `{path} must be between 0 and ${MAX_EXPIRY - 1}`,
        }),
      ),
      include_settled: optional(boolean({ invalid: '{path} must be a boolean', default: false })),
    }),
    result: {
      type: 'object',
      properties: { instruments: { type: 'array', items: ref('InstrumentRecord') } },
      required: ['instruments'],
      additionalProperties: false,
    },
    errors: ['INVALID_PARAMS'],
  }),
  'public/get_time': declareMethod({
    ...PUBLIC_READ,
    summary: "The server's clock in unix milliseconds",
    description:
      "To measure the offset of the client's clock before signing a quote or an accept (issued_at and expires_at are checked against the server's clock): half the round trip is the usual estimate of the one-way delay.",
    params: object({}),
    result: {
      type: 'object',
      properties: { time_ms: { type: 'integer', minimum: 0, description: 'Unix milliseconds when the server answered' } },
      required: ['time_ms'],
      additionalProperties: false,
    },
    errors: ['INVALID_PARAMS'],
  }),
};
