import { RFQ_STATES, ROLES } from './enums';
import { declareRoute } from './route-declaration';
import { RFQ_ID_PARAM, closed } from './route-schemas';

/**
 * The admin reads the operator console polls (docs/console.md): admin:read like every admin GET.
 * Decimals are HTTP decimal strings (8 places); times are unix seconds unless ISO-8601.
 */

const READ = { kind: 'admin', command: 'read' } as const;
const RFQ_ID = /^[0-9a-f]{32}$/;
const MAX_RFQ_PAGE = 200;

const decimal = { type: ['string', 'null'], pattern: '^-?[0-9]+\\.[0-9]{8}$' } as const;
const COUNT = { type: 'integer' } as const;
const nullable = <const T extends string>(type: T) => ({ type: [type, 'null'] }) as const;

const RFQ_ROW = closed({
  rfq_id: { type: 'string', pattern: RFQ_ID.source },
  account_id: { type: 'integer', description: 'The taker' },
  asset: { type: 'string' },
  expiry: { type: 'integer' },
  legs: { type: 'array', items: closed({ instrument: { type: 'string' }, quantity: { type: 'string' } }) },
  state: { type: 'string', enum: RFQ_STATES },
  created_at: { type: 'integer' },
  updated_at: { type: 'integer' },
  maker_account_id: nullable('integer'),
  bid: decimal,
  ask: decimal,
  accepted_side: { type: ['string', 'null'], enum: ['buy', 'sell', null] },
  fill_id: nullable('string'),
  fill_price: decimal,
  fill_reverted: { type: 'boolean' },
  failure_error: nullable('string'),
  decline_reason: nullable('string'),
});

export const CONSOLE_ROUTES = {
  'admin.overview': declareRoute({
    method: 'GET',
    path: '/v1/admin/overview',
    tag: 'admin',
    summary: 'Queue depths, RFQs by state and fills per minute (the console overview)',
    access: READ,
    query: {},
    otherQuery: 'ignored',
    response: closed({
      queues: {
        type: 'object',
        description: 'Jobs waiting, delayed or active per queue (empty when Redis does not answer)',
        additionalProperties: { type: 'integer' },
      },
      rfqs_by_state: {
        ...closed(Object.fromEntries(RFQ_STATES.map((s) => [s, COUNT])) as Record<(typeof RFQ_STATES)[number], typeof COUNT>),
        description: 'Open states (pending, quoted, accepted, submitting): every RFQ; ended states: RFQs created in the last 24 hours',
      },
      fills_per_minute: {
        type: 'array',
        description: 'The last 30 minutes, oldest first, one point per minute (zeros included)',
        items: closed({ minute: { type: 'integer', description: 'Unix seconds of the minute' }, fills: { type: 'integer' } }),
      },
    }),
  }),
  'admin.rfqs': declareRoute({
    method: 'GET',
    path: '/v1/admin/rfqs',
    tag: 'admin',
    summary: 'RFQs of every account, newest first, with their quote and fill',
    access: READ,
    query: {
      state: {
        schema: { type: 'string', enum: RFQ_STATES, description: 'Only RFQs in this state' },
        pattern: new RegExp(`^(${RFQ_STATES.join('|')})$`),
        message: `state must be one of the following values: ${RFQ_STATES.join(', ')}`,
      },
      account_id: {
        schema: { type: 'integer', minimum: 1, description: "Only this taker's RFQs" },
        pattern: /^[1-9][0-9]{0,15}$/,
        message: 'account_id must be an integer >= 1',
      },
      before: {
        schema: { type: 'string', pattern: RFQ_ID.source, description: 'Cursor: only RFQs older than this rfq_id (the last row of the previous page)' },
        pattern: RFQ_ID,
        message: 'before must be 32 lowercase hex characters',
      },
      limit: {
        schema: { type: 'integer', minimum: 1, maximum: MAX_RFQ_PAGE, description: 'Rows per page (default 50)' },
        pattern: /^([1-9][0-9]?|1[0-9]{2}|200)$/,
        message: `limit must be an integer from 1 to ${MAX_RFQ_PAGE}`,
      },
    },
    response: closed({ rfqs: { type: 'array', items: RFQ_ROW } }),
  }),
  'admin.rfq-events': declareRoute({
    method: 'GET',
    path: '/v1/admin/rfqs/{rfq_id}/events',
    tag: 'admin',
    summary: 'Every state move of one RFQ, in order',
    access: READ,
    params: { rfq_id: RFQ_ID_PARAM },
    query: {},
    otherQuery: 'ignored',
    response: closed({
      rfq_id: { type: 'string' },
      events: { type: 'array', items: closed({ id: { type: 'string' }, event: { type: 'string' }, state: { type: 'string' }, at: { type: 'integer' } }) },
    }),
    responses: { 404: { description: 'No such RFQ' } },
  }),
  'admin.market-data-ages': declareRoute({
    method: 'GET',
    path: '/v1/admin/market-data',
    tag: 'admin',
    summary: "Every asset's index price and its age (stale past MARKET_DATA_MAX_AGE_SECONDS)",
    access: READ,
    query: {},
    otherQuery: 'ignored',
    response: closed({
      max_age_seconds: { type: 'integer', description: 'MARKET_DATA_MAX_AGE_SECONDS: older data is stale and rfq.create refuses the asset' },
      assets: {
        type: 'array',
        items: closed({
          asset: { type: 'string' },
          index_price: { type: 'string' },
          updated_at: { type: 'string', format: 'date-time' },
          age_seconds: { type: 'integer' },
          stale: { type: 'boolean' },
        }),
      },
    }),
  }),
  'admin.account-search': declareRoute({
    method: 'GET',
    path: '/v1/admin/accounts',
    tag: 'admin',
    summary: 'Find the account of a wallet (an empty list when it has none)',
    access: READ,
    query: {
      wallet: {
        schema: { type: 'string', description: 'Base58 wallet address (exact)', example: '7Qn9ZcZ5j4u7oE3cV1bJd5x7cX5y3V1bJd5x7cX5y3V1' },
        pattern: /^[1-9A-HJ-NP-Za-km-z]{32,44}$/,
        message: 'wallet must be a base58 address',
        required: true,
      },
    },
    response: closed({
      accounts: {
        type: 'array',
        items: closed({
          account_id: { type: 'integer' },
          wallet: { type: 'string' },
          roles: { type: 'array', items: { type: 'string', enum: ROLES } },
          created_at: { type: 'string', format: 'date-time' },
        }),
      },
    }),
  }),
};
