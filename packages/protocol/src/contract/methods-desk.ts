import { declareMethod } from './declaration';
import { ref } from './json-schema';
import { checkedByService, integer, object, optional, required, string } from './params';
import { RESPOND_ERRORS, RESPOND_PARAMS } from './methods-rfq';

/**
 * The maker desk methods (docs/spec/design.md section 15). The limits document is checked by the
 * service (its per-asset maps have keys the params compiler cannot declare), field by field: a
 * value off its type is RFQ_VALUE_OUT_OF_RANGE naming the field, a decimal that is not canonical
 * RFQ_PRECISION_UNSUPPORTED. The nodes below document it.
 */

/** RfqDecimal (unsigned), documented only: the service checks it. */
const DECIMAL = (description: string) =>
  string({ ref: 'RfqDecimal', pattern: /^(0|[1-9][0-9]*)(\.[0-9]{1,6})?$/, invalid: '{path} must be a decimal string', description });
const COUNT = (description: string) => integer({ minimum: 0, invalid: '{path} must be an integer >= 0', description });
const ASSET_DECIMALS = (description: string) => checkedByService(object({}, { ref: 'AssetDecimals' }), { description });

const PROTECTION = object(
  {
    window_seconds: required(integer({ minimum: 1, invalid: '{path} must be an integer >= 1', description: 'The window the fills are counted over' })),
    max_fills: optional(COUNT('Trips when more fills than this fall in the window')),
    max_fill_notional: optional(DECIMAL('Trips when the notional filled in the window exceeds this')),
    max_fill_delta: optional(ASSET_DECIMALS('Trips when the absolute delta filled in the window on an asset exceeds this')),
    frozen_seconds: required(COUNT('How long a trip freezes new quotes; 0: until rfq.maker.reset_protection')),
  },
  { ref: 'MakerProtection' },
);

const LIMITS = object(
  {
    max_open_quotes: optional(COUNT('Live quotes at most; 0 is the kill switch')),
    max_open_notional: optional(DECIMAL('Sum of the live quotes’ notionals at most')),
    max_quote_notional: optional(DECIMAL('One quote’s notional at most (RFQ_SIZE_INVALID)')),
    max_open_delta: optional(ASSET_DECIMALS('Per asset: the sum of |delta| of the live quotes at most')),
    max_open_vega: optional(ASSET_DECIMALS('Per asset: the sum of |vega| of the live quotes at most')),
    price_band_bps: optional(COUNT('A quote’s farther side at most this far from the package mark, in bps of its notional (RFQ_PRICE_TOLERANCE)')),
    protection: optional(PROTECTION),
  },
  { ref: 'MakerLimits' },
);

/**
 * Every desk method is priced on the current marks (usage, price band), so each is refused on
 * unconfirmed views like a write.
 */
const DESK = { dialect: 'rfq', access: { kind: 'account', role: 'quoter' }, mode: 'write' } as const;

export const DESK_METHODS = {
  'rfq.maker.set_limits': declareMethod({
    ...DESK,
    summary: "Replace the caller's maker limits (quoter role); answers rfq.maker.get_limits",
    description:
      'Every field optional (absent = no limit); the effective limit of each is the stricter of the maker’s and the operator’s. Lowering a limit never cancels a live quote.',
    params: object({ limits: required(checkedByService(LIMITS)) }),
    result: ref('MakerLimitsView'),
    errors: ['RFQ_PRECISION_UNSUPPORTED'],
  }),
  'rfq.maker.get_limits': declareMethod({
    ...DESK,
    summary: "The caller's maker limits, the operator's ceiling, the usage of its live quotes at the current marks, and its protection state",
    params: object({}),
    result: ref('MakerLimitsView'),
    errors: [],
  }),
  'rfq.maker.reset_protection': declareMethod({
    ...DESK,
    summary: "End the caller's protection freeze and start a new window; answers rfq.maker.get_limits",
    params: object({}),
    result: ref('MakerLimitsView'),
    errors: [],
  }),
  'rfq.maker.check': declareMethod({
    ...DESK,
    summary: 'Run every check of rfq.maker.respond on these params without storing, moving or consuming anything',
    description:
      'Takes exactly the params of rfq.maker.respond and answers the error respond would give; RFQ_INVALID_SIGNATURE carries the payload the exchange built and its quote_id. Counts against the rate limit like respond.',
    params: RESPOND_PARAMS,
    result: {
      type: 'object',
      properties: {
        ok: { const: true },
        quote_id: ref('QuoteId'),
        payload: { type: 'string', contentEncoding: 'base64', description: 'Canonical base64 of the 1,050-byte StrategyQuotePayload the exchange built' },
      },
      required: ['ok', 'quote_id', 'payload'],
      additionalProperties: false,
    },
    errors: RESPOND_ERRORS,
  }),
};
