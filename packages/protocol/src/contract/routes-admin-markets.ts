import { ASSET_PATTERN, MAX_STRIKES } from './enums';
import { declareRoute } from './route-declaration';
import { RFQ_ID_PARAM, closed, httpDecimal } from './route-schemas';

/**
 * Admin commands on the markets: instruments and their rounds (docs/spec/design.md section 2),
 * market data (section 6), settlement and a fill's revert (sections 5, 7). Each is recorded in
 * the audit log. Decimals given as text or a JSON number are parsed by the handler's service with
 * its own messages (`bodyParsedByHandler`); the checker asks only that a required one is there.
 */

const ASSET = { type: 'string', description: 'Underlying asset', pattern: ASSET_PATTERN.source, example: 'SOL' } as const;
const ASSET_MESSAGE = { asset: `asset must match ${ASSET_PATTERN.source}` };
const unixSeconds = <const D extends string>(description: D) =>
  ({ type: 'integer', format: 'int64', description: `${description} (unix seconds)`, example: 1798358400 }) as const;
/** A decimal input: a JSON number (no exponent) or decimal text, as the service parses it. */
const decimalInput = <const D extends string, const P extends string>(description: D, pattern: P, minimum?: 0) =>
  ({
    description,
    oneOf: [
      { type: 'number', ...(minimum === undefined ? {} : { minimum }) },
      { type: 'string', pattern },
    ],
  }) as const;
const DECIMAL_TEXT = '^[0-9]+(\\.[0-9]+)?$';

const ROUND_BODY = {
  type: 'object',
  properties: {
    expiration: unixSeconds('Expiration of the round'),
    asset: { ...ASSET, description: 'Only this asset’s instruments (default: every asset at that expiration)' },
  },
  required: ['expiration'],
  additionalProperties: false,
} as const;

const PAUSE_RESULT = closed({
  expiration: unixSeconds('Expiration'),
  asset: { ...ASSET, type: ['string', 'null'], description: 'The asset asked for, or null for every asset' },
  paused: { type: 'boolean' },
  instruments: { type: 'integer', minimum: 0, description: 'How many instruments the round holds' },
});

/** The commands on an expiration round: their admin command is the path's last segment. */
const roundRoute = <const V extends 'pause' | 'resume', const S extends string>(verb: V, summary: S) =>
  declareRoute({
    method: 'POST',
    path: `/v1/admin/instruments/${verb}-by-expiration`,
    tag: 'admin',
    summary,
    access: { kind: 'admin', command: `${verb}-by-expiration` },
    query: {},
    otherQuery: 'ignored',
    body: ROUND_BODY,
    bodyMessages: ASSET_MESSAGE,
    response: PAUSE_RESULT,
  });

export const MARKET_ADMIN_ROUTES = {
  'admin.create-instruments': declareRoute({
    method: 'POST',
    path: '/v1/admin/create-instruments',
    tag: 'admin',
    summary: 'Create the calls and puts of an asset and expiration',
    description:
      'Idempotent: existing instruments are skipped. Instruments created for a paused round are paused. Also schedules the settlement of the expiration.',
    access: { kind: 'admin', command: 'create-instruments' },
    query: {},
    otherQuery: 'ignored',
    body: {
      type: 'object',
      properties: {
        asset: ASSET,
        expiration: unixSeconds('Expiry of the round, in the future; at most one expiration per asset and UTC date'),
        spot_price: {
          ...decimalInput(
            'Spot price > 0: a JSON number (no exponent) or a decimal string, up to 8 fractional digits; centres the default strike grid',
            '^[0-9]+(\\.[0-9]{1,8})?$',
            0,
          ),
          example: '150',
        },
        strikes: {
          type: 'array',
          items: { type: 'string' },
          maxItems: MAX_STRIKES,
          description:
            'Strikes as decimal strings. Default: every multiple of the step in [0.5 * spot, 1.5 * spot] (step: the largest 1, 2, 2.5 or 5 times a power of ten <= 2.5 % of spot)',
        },
      },
      required: ['asset', 'expiration', 'spot_price'],
      additionalProperties: false,
    },
    bodyMessages: ASSET_MESSAGE,
    bodyParsedByHandler: ['spot_price'],
    response: closed({
      asset: ASSET,
      expiration: unixSeconds('Expiration'),
      created: { type: 'integer', minimum: 0, description: 'Instruments created now (existing ones are skipped: the command is idempotent)' },
    }),
    responses: { 409: { description: 'The UTC date of the expiration holds a different expiration for the asset' } },
  }),
  'admin.pause-by-expiration': roundRoute('pause', 'Pause every instrument of an expiration round (durable and in the engine)'),
  'admin.resume-by-expiration': roundRoute('resume', 'Resume a paused expiration round'),
  'admin.settle-expiration': declareRoute({
    method: 'POST',
    path: '/v1/admin/instruments/settle-expiration',
    tag: 'admin',
    summary: 'Settle an expiration round now, at settlement_price or the fresh index; idempotent',
    access: { kind: 'admin', command: 'settle-expiration' },
    query: {},
    otherQuery: 'ignored',
    body: {
      type: 'object',
      properties: {
        asset: ASSET,
        expiration: { ...unixSeconds("The round's expiry"), description: "The round's expiry (unix seconds)" },
        settlement_price: {
          ...decimalInput('Settlement price > 0: a decimal string or a JSON number. Default: the fresh index price of the asset', DECIMAL_TEXT, 0),
          example: '152.5',
        },
      },
      required: ['asset', 'expiration'],
      additionalProperties: false,
    },
    bodyMessages: ASSET_MESSAGE,
    bodyParsedByHandler: ['settlement_price'],
    response: closed({
      asset: ASSET,
      expiration: unixSeconds('Expiration'),
      settled: { type: 'boolean', const: true },
      settlement_price: httpDecimal('The settlement price'),
      settled_at: unixSeconds('When the round was settled'),
      positions: { type: 'integer', minimum: 0, description: 'Position rows of the round that paid or received (non-zero quantities)' },
    }),
    responses: {
      400: { description: 'Bad asset, expiration or settlement_price' },
      404: { description: 'No such expiration of the asset' },
      409: { description: 'Settled already at another price, or no fresh index and no settlement_price' },
    },
  }),
  'admin.revert': declareRoute({
    method: 'POST',
    path: '/v1/admin/rfq/{rfq_id}/revert',
    tag: 'admin',
    summary: 'Revert a fill exactly (cash, fee, positions, locks); the RFQ moves filled → failed (RFQ_TX_FAILED, reverted)',
    access: { kind: 'admin', command: 'revert' },
    params: { rfq_id: RFQ_ID_PARAM },
    query: {},
    otherQuery: 'ignored',
    response: closed({
      rfq_id: { type: 'string', pattern: '^[0-9a-f]{32}$' },
      state: { type: 'string', const: 'failed' },
      reverted: { type: 'boolean', const: true },
    }),
    responses: {
      404: { description: 'No such RFQ' },
      409: { description: 'Not filled (or reverted already), its round settled, or undoing would take an account below zero' },
    },
  }),
  'admin.market-data': declareRoute({
    method: 'POST',
    path: '/v1/admin/market-data',
    tag: 'admin',
    summary: 'Set the index price and implied volatilities of an asset (stands for the market data feed)',
    access: { kind: 'admin', command: 'market-data' },
    query: {},
    otherQuery: 'ignored',
    body: {
      type: 'object',
      properties: {
        asset: ASSET,
        index_price: { ...decimalInput('Index price > 0: a decimal string or a JSON number (no exponent)', DECIMAL_TEXT), example: '150.25' },
        iv: {
          ...decimalInput(
            'Flat implied volatility for every open instrument of the asset (0.8 = 80 %): a decimal string or a JSON number (no exponent)',
            DECIMAL_TEXT,
          ),
          example: '0.8',
        },
        ivs: {
          type: 'object',
          description: 'Implied volatility per instrument symbol',
          additionalProperties: decimalInput('Implied volatility: a decimal string or a JSON number (no exponent)', DECIMAL_TEXT),
          example: { 'SOL-27DEC26-152.5-C': '0.75' },
        },
      },
      required: ['asset', 'index_price'],
      additionalProperties: false,
    },
    bodyMessages: ASSET_MESSAGE,
    bodyParsedByHandler: ['index_price', 'iv', 'ivs'],
    response: closed({
      asset: { type: 'string', example: 'SOL' },
      index_price: httpDecimal('Index price'),
      updated_at: { type: 'integer', format: 'int64', description: 'Server time of receipt (unix seconds)' },
      instruments: { type: 'integer', minimum: 0, description: 'How many instrument IVs were set' },
    }),
    responses: { 404: { description: 'No instrument of the asset is listed' } },
  }),
};
