import { ROLES } from './enums';
import { declareRoute } from './route-declaration';
import { ACCOUNT_ID_PARAM, closed, httpDecimal } from './route-schemas';
import { AUDIT_ROUTES } from './routes-admin-audit';
import { BALANCE_ROW } from './routes-query';

/**
 * Admin reads of an account and of the exchange's shortfall (admin:read like every admin GET), and
 * admin commands on an account (each recorded in the audit log). Decimals are 8-place strings.
 */

const READ = { kind: 'admin', command: 'read' } as const;

const WALLET = {
  type: 'string',
  description: 'Solana wallet address: base58 of a 32-byte ed25519 public key (canonical, not of small order)',
  example: '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T',
} as const;

/** An account as the admin commands answer it. */
const ACCOUNT_VIEW = {
  account_id: { type: 'integer', minimum: 1 },
  wallet: WALLET,
  roles: { type: 'array', items: { type: 'string', enum: ROLES } },
  created_at: { type: 'string', format: 'date-time', description: 'ISO 8601 UTC' },
} as const;

/** A body's roles: each one of ROLES (the account service refuses one given twice); the DTO's message for a bad item. */
const roles = (description: string) => ({ type: 'array', description, items: { type: 'string', enum: ROLES } }) as const;
const ROLES_MESSAGES = { 'roles[]': `roles must be an array of ${ROLES.join(', ')}` };

/** A deposit's or withdrawal's body (the amount is parsed by the handler: decimal text, > 0, representable in micro-units) and result. */
const TRANSFER = {
  body: {
    type: 'object',
    properties: {
      amount: { type: 'string', description: 'USDC amount > 0: decimal text, up to 8 fractional digits, representable in 10^-6 units', example: '100.5' },
      reference: {
        type: 'string',
        description: 'Idempotency key (1 to 128 characters): the chain transaction the transfer stands for; a repeat changes nothing',
        minLength: 1,
        maxLength: 128,
      },
    },
    required: ['amount', 'reference'],
    additionalProperties: false,
  },
  bodyMessages: { amount: 'amount must be a decimal string', reference: 'reference must be a string of 1 to 128 characters' },
  response: closed({
    account_id: { type: 'integer' },
    reference: { type: 'string' },
    kind: { type: 'string', enum: ['deposit', 'withdrawal'] },
    amount: httpDecimal('Amount moved'),
    balance: { ...BALANCE_ROW, description: 'The balance row after the transfer (on a repeat: the row as it is now)' },
  }),
} as const;

/** POST /v1/admin/accounts/{account_id}/<deposit|withdraw>: its admin command is its verb; only the summary and the 409 differ. */
const transferRoute = <const V extends 'deposit' | 'withdraw', const S extends string>(verb: V, summary: S, conflict: string) =>
  declareRoute({
    method: 'POST',
    path: `/v1/admin/accounts/{account_id}/${verb}`,
    tag: 'admin',
    summary,
    access: { kind: 'admin', command: verb },
    params: { account_id: ACCOUNT_ID_PARAM },
    query: {},
    otherQuery: 'ignored',
    status: 200,
    ...TRANSFER,
    responses: { 404: { description: 'No such account' }, 409: { description: conflict } },
  });

export const ADMIN_ROUTES = {
  'admin.account': declareRoute({
    method: 'GET',
    path: '/v1/admin/accounts/{account_id}',
    tag: 'admin',
    summary: 'An account with its balance row',
    access: READ,
    params: { account_id: ACCOUNT_ID_PARAM },
    query: {},
    otherQuery: 'ignored',
    response: closed({
      ...ACCOUNT_VIEW,
      anchored: { type: 'boolean', description: 'The account has a ledger row (created by its first deposit)' },
      balance: BALANCE_ROW,
    }),
    responses: { 404: { description: 'No such account' } },
  }),
  'admin.risk': declareRoute({
    method: 'GET',
    path: '/v1/admin/risk',
    tag: 'admin',
    summary: 'Under-collateralized accounts (available < 0 at the latest index), most negative first, and their deficit (design.md section 12)',
    access: READ,
    query: {},
    otherQuery: 'ignored',
    response: closed({
      accounts: {
        type: 'array',
        description: 'Accounts with available < 0, most negative first',
        items: closed({
          account_id: { type: 'integer' },
          total: httpDecimal('Total balance; negative: a debt left by a settlement beyond the stress range'),
          locked: httpDecimal('Lock of the open positions at the latest index'),
          available: httpDecimal('total - locked, below zero'),
        }),
      },
      totals: closed({
        total: httpDecimal("Sum of the listed accounts' total"),
        locked: httpDecimal("Sum of the listed accounts' locked"),
        deficit: httpDecimal("Sum of the listed accounts' negative available (zero or below)"),
      }),
    }),
  }),
  'admin.revoke-sessions': declareRoute({
    method: 'POST',
    path: '/v1/admin/accounts/{account_id}/revoke-sessions',
    tag: 'admin',
    summary: 'End every session of an account',
    description:
      'Tokens issued at or before revoked_at are refused from then on (401; public/session_resume 1004); live WebSocket sessions on every instance receive the session/revoked notification within 1 s.',
    access: { kind: 'admin', command: 'revoke-sessions' },
    params: { account_id: ACCOUNT_ID_PARAM },
    query: {},
    otherQuery: 'ignored',
    response: closed({
      account_id: { type: 'integer', description: 'Account id', example: 42 },
      revoked_at: { type: 'integer', description: 'Unix seconds: every session token of the account issued at or before it is refused', example: 1767225600 },
    }),
    responses: { 404: { description: 'No such account' } },
  }),
  'admin.deposit': transferRoute(
    'deposit',
    'Credit a deposit (stands for the chain watcher); idempotent by reference',
    'The deposit would take the balance out of range',
  ),
  'admin.withdraw': transferRoute('withdraw', 'Debit a withdrawal; idempotent by reference', 'The free balance would go below zero'),
  // Accounts stand for the out-of-band web sign-up (docs/spec/design.md section 3); the wallet is checked by the account service.
  'admin.create-account': declareRoute({
    method: 'POST',
    path: '/v1/admin/accounts',
    tag: 'admin',
    summary: 'Create the account of a wallet (stands for the web sign-up)',
    access: { kind: 'admin', command: 'accounts' },
    query: {},
    otherQuery: 'ignored',
    body: {
      type: 'object',
      properties: { wallet: WALLET, roles: roles('Default: no role. taker: may open RFQs (the allowlist); quoter: may quote') },
      required: ['wallet'],
      additionalProperties: false,
    },
    bodyMessages: ROLES_MESSAGES,
    status: 201,
    response: closed(ACCOUNT_VIEW),
    responses: { 409: { description: 'The wallet has an account already' } },
  }),
  'admin.set-roles': declareRoute({
    method: 'PUT',
    path: '/v1/admin/accounts/{account_id}/roles',
    tag: 'admin',
    summary: "Replace an account's roles",
    access: { kind: 'admin', command: 'roles' },
    params: { account_id: ACCOUNT_ID_PARAM },
    query: {},
    otherQuery: 'ignored',
    body: { type: 'object', properties: { roles: roles('The whole new set of roles') }, required: ['roles'], additionalProperties: false },
    bodyMessages: ROLES_MESSAGES,
    response: closed(ACCOUNT_VIEW),
    responses: { 404: { description: 'No such account' } },
  }),
  ...AUDIT_ROUTES,
};
