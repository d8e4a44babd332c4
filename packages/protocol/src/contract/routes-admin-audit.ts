import { declareRoute } from './route-declaration';
import { closed } from './route-schemas';

/** The admin audit log (docs/spec/design.md section 16): who ran which admin command, and how it ended. */

const MAX_AUDIT_PAGE = 200;
const HASH = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;
/**
 * A JSON value of the log: strings, integers, booleans, null, objects and arrays of them (never a
 * float). No type: the serializer writes it as JSON.stringify does, whole (a typed object would
 * be written with its declared properties only), so the hash a client recomputes is the row's.
 */
const JSON_VALUE = 'Any JSON value of the log: strings, integers, booleans, null, objects and arrays of them (never a float)';
const nullable = <const T extends string, const D extends string>(type: T, description: D) => ({ type: [type, 'null'], description }) as const;

const AUDIT_ROW = closed({
  audit_seq: { type: 'integer', minimum: 1, description: 'Gapless, from 1' },
  at: { type: 'integer', description: 'Unix seconds' },
  actor: closed({
    via: {
      type: 'string',
      enum: ['admin_token', 'session', 'exchange'],
      description: "The static ADMIN_TOKEN, a session (an admin's; a maker's for its own protection reset), or the exchange (a protection trip)",
    },
    account_id: { type: ['integer', 'null'] },
    wallet: nullable('string', 'Base58 wallet of the session'),
    jti: nullable('string', "The session token's jti"),
  }),
  client_ip: { type: 'string', description: 'The client address as the rate limits see it (TRUST_PROXY)' },
  action: { type: 'string', description: 'The command: the last path segment of its route, as its admin:<command> scope names it', example: 'deposit' },
  target: { description: `The path parameters of the route ({ account_id }, { rfq_id }), or null. ${JSON_VALUE}` },
  params: {
    description: `The request body as sent, with signatures and secrets replaced by "[redacted]" at any depth and strings over 1,024 characters cut. ${JSON_VALUE}`,
  },
  status: { type: 'integer', description: 'The HTTP status the command was answered with (a failed command is recorded too)' },
  prev_hash: { ...HASH, description: 'The hash of the row before (64 zeros for the first)' },
  hash: {
    ...HASH,
    description: 'SHA-256(prev_hash bytes || UTF-8 of this row without hash as RFC 8785 canonical JSON: keys sorted, no whitespace)',
  },
});

/** The newest row of the whole log, signed by the exchange key after each append (docs/spec/design.md section 20). */
const SIGNED_HEAD = closed({
  audit_seq: { type: 'integer', description: '0 while the log is empty' },
  hash: { ...HASH, description: '64 zeros while the log is empty' },
  at: nullable('integer', 'Unix seconds of the append the head is at; null while the log is empty'),
  key_id: nullable('string', 'The exchange key that signed (GET /v1/exchange/keys); null while the log is empty'),
  signature: nullable(
    'string',
    'ed25519 signature (hex) of the UTF-8 of canonical JSON (RFC 8785) { kind: "legwork.audit_head", service, audit_seq, hash, at }; keep a copy to check the log later (cli verify-audit --head)',
  ),
});

/** A positive integer in canonical decimal text. */
const POSITIVE = /^[1-9][0-9]{0,15}$/;

export const AUDIT_ROUTES = {
  'admin.audit': declareRoute({
    method: 'GET',
    path: '/v1/admin/audit',
    tag: 'admin',
    summary: 'The admin audit log, newest first, keyset-paginated',
    description:
      'One row per admin command (every non-GET /v1/admin route, through the admin token or an admin session), failed ones included, chained by hash: ' +
      'hash = SHA-256(prev_hash bytes || UTF-8 of the row without hash as RFC 8785 canonical JSON), prev_hash of the first row 64 zeros. ' +
      'A client checks the chain itself from the rows (docs/security.md).',
    access: { kind: 'admin', command: 'read' },
    query: {
      after: {
        schema: { type: 'string', pattern: POSITIVE.source, description: 'Cursor: only rows older than this audit_seq (next_cursor of the previous page)' },
        pattern: POSITIVE,
        message: 'after must be an audit_seq (a positive integer)',
      },
      limit: {
        schema: { type: 'integer', minimum: 1, maximum: MAX_AUDIT_PAGE, default: 50, description: 'Rows per page (canonical decimal)' },
        pattern: /^(?:[1-9][0-9]?|1[0-9]{2}|200)$/,
        message: `limit must be an integer from 1 to ${MAX_AUDIT_PAGE}`,
      },
      action: {
        schema: { type: 'string', pattern: '^[a-z0-9-]{1,64}$', description: 'Only this command (deposit, roles, revert, ...)' },
        pattern: /^[a-z0-9-]{1,64}$/,
        message: 'action must be a command name (lowercase letters, digits, -)',
      },
      account_id: {
        schema: { type: 'integer', minimum: 1, description: 'Only commands run by this account (through an admin session)' },
        pattern: POSITIVE,
        message: 'account_id must be a positive integer',
      },
    },
    response: {
      type: 'object',
      properties: {
        rows: { type: 'array', items: AUDIT_ROW, description: 'Newest first' },
        next_cursor: { type: 'string', description: 'Pass as `after` for the next (older) page; absent on the last page' },
        head: { ...SIGNED_HEAD, description: 'The newest row of the whole log (filters aside), signed by the exchange' },
      },
      required: ['rows', 'head'],
      additionalProperties: false,
    },
  }),
};
