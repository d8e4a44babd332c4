import { declareRoute } from './route-declaration';
import { ACCOUNT_ID_PARAM, closed } from './route-schemas';

/**
 * The operator's ceiling over a maker's limits and its protection reset (docs/spec/design.md
 * sections 15 and 20): the console's Maker limits page. The limits document is the one
 * rfq.maker.set_limits takes (RfqDecimal strings), parsed by the handler field by field.
 */

const RFQ_DECIMAL = { type: 'string', pattern: '^(0|[1-9][0-9]*)(\\.[0-9]{1,6})?$' } as const;
const ASSET_DECIMALS = { type: 'object', additionalProperties: RFQ_DECIMAL, description: 'asset → RfqDecimal' } as const;

const LIMITS = {
  type: 'object',
  additionalProperties: false,
  properties: {
    max_open_quotes: { type: 'integer', minimum: 0, description: '0 is the kill switch' },
    max_open_notional: RFQ_DECIMAL,
    max_quote_notional: RFQ_DECIMAL,
    max_open_delta: ASSET_DECIMALS,
    max_open_vega: ASSET_DECIMALS,
    price_band_bps: { type: 'integer', minimum: 0 },
    protection: {
      type: 'object',
      additionalProperties: false,
      required: ['window_seconds', 'frozen_seconds'],
      properties: {
        window_seconds: { type: 'integer', minimum: 1 },
        max_fills: { type: 'integer', minimum: 0 },
        max_fill_notional: RFQ_DECIMAL,
        max_fill_delta: ASSET_DECIMALS,
        frozen_seconds: { type: 'integer', minimum: 0, description: '0: frozen until the maker resets it' },
      },
    },
  },
} as const;

/** The admin read of a maker's limits (every route here answers it): rfq.maker.get_limits of the account, with its id. */
const LIMITS_VIEW = closed({
  account_id: { type: 'integer' },
  limits: { ...LIMITS, description: "The maker's own limits (rfq.maker.set_limits)" },
  admin_limits: { ...LIMITS, description: "The operator's ceiling" },
  usage: {
    ...closed({ open_quotes: { type: 'integer' }, open_notional: RFQ_DECIMAL, open_delta: ASSET_DECIMALS, open_vega: ASSET_DECIMALS }),
    description: 'The live quotes at the current marks: count, sum of notionals, per asset the sums of |delta| and |vega|',
  },
  protection: {
    ...closed({
      frozen: { type: 'boolean' },
      until: { type: ['integer', 'null'] },
      window: closed({ fills: { type: 'integer' }, notional: RFQ_DECIMAL, delta: ASSET_DECIMALS }),
    }),
    description: 'Maker protection: frozen (until: unix seconds, null while frozen until reset) and the fills of the current window',
  },
});

const MAKER = { tag: 'admin', params: { account_id: ACCOUNT_ID_PARAM }, query: {}, otherQuery: 'ignored', response: LIMITS_VIEW } as const;
const NO_ACCOUNT = { 404: { description: 'No such account' } } as const;

export const MAKER_ADMIN_ROUTES = {
  'admin.maker-limits': declareRoute({
    ...MAKER,
    method: 'GET',
    path: '/v1/admin/accounts/{account_id}/maker-limits',
    summary: "A maker's limits, the operator's ceiling, the usage of its live quotes at the current marks, and its protection state",
    access: { kind: 'admin', command: 'read' },
    responses: NO_ACCOUNT,
  }),
  'admin.set-maker-limits': declareRoute({
    ...MAKER,
    method: 'PUT',
    path: '/v1/admin/accounts/{account_id}/maker-limits',
    summary: "Replace the operator's ceiling over a maker's limits",
    description: "Per field, the stricter of the maker's limits and this ceiling applies. Lowering never cancels a live quote.",
    access: { kind: 'admin', command: 'maker-limits' },
    body: {
      type: 'object',
      properties: {
        limits: {
          ...LIMITS,
          description: "The operator's ceiling: replaces the previous one; the stricter of it and the maker's own applies per field",
        },
      },
      required: ['limits'],
      additionalProperties: false,
    },
    bodyParsedByHandler: ['limits'],
    responses: { 400: { description: 'A field of the limits is invalid (the message names it)' }, ...NO_ACCOUNT },
  }),
  'admin.reset-protection': declareRoute({
    ...MAKER,
    method: 'POST',
    path: '/v1/admin/accounts/{account_id}/reset-protection',
    summary: "End a maker's protection freeze (the operator's reset)",
    description:
      "Ends the maker's freeze whatever its cause and starts a new fill window. A freeze implied by the operator's protection ends only by time or by this route (docs/spec/design.md section 20). Recorded in the audit log with the window's figures.",
    access: { kind: 'admin', command: 'reset-protection' },
    responses: NO_ACCOUNT,
  }),
};
