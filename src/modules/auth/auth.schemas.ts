import type { RpcDeclaration } from '../gateway/rpc-method';
import { ref } from '../gateway/schema/json-schema';
import { checkedByService, object, required, string } from '../gateway/schema/schema';

/**
 * The sign-in methods of auth.rpc.ts. The values are documented here but checked by the services
 * (the same as POST /v1/auth/*): an attempt counts against the client's rate limit before its
 * values are read, so the validator refuses only unknown params.
 */
const WALLET = checkedByService(string({ ref: 'Wallet', invalid: 'wallet must be a string' }));

export const AUTH_METHODS = {
  'public/get_nonce': {
    summary: 'Get a sign-in nonce for a wallet',
    description:
      'Same as POST /v1/auth/nonce. Valid 300 s, single use; a fourth live nonce evicts the oldest. 10 requests per minute per client IP (HTTP and WebSocket together).',
    params: object({ wallet: required(WALLET) }),
    result: ref('NonceChallenge'),
    errors: ['INVALID_PARAMS', 'RATE_LIMITED'],
  },
  'public/auth': {
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
  },
  'public/session_resume': {
    summary: 'Resume a session with a session token, without signing again',
    description: 'Roles are read again from the database (a revoked role is gone on resume).',
    params: object({ session_token: required(checkedByService(string({ invalid: 'session_token must be a string' }))) }),
    result: ref('SignInResult'),
    errors: ['INVALID_PARAMS', 'SESSION_INVALID'],
  },
} satisfies Record<string, RpcDeclaration<unknown>>;
