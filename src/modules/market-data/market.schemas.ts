import type { RpcDeclaration } from '../gateway/rpc-method';
import { ref } from '../gateway/schema/json-schema';
import { boolean, integer, object, optional, string } from '../gateway/schema/schema';
import { MAX_EXPIRY } from '../instruments/domain/inputs';
import { ASSET_PATTERN } from '../instruments/domain/symbol';

/** The public market reads of market.rpc.ts (docs/spec/design.md section 4): INVALID_PARAMS naming the field. */
export const MARKET_METHODS = {
  'public/get_market_config': {
    summary: 'Service, signing domain, assets with index prices and the RFQ limits',
    params: object({}),
    result: ref('MarketConfig'),
    errors: ['INVALID_PARAMS'],
  },
  'public/get_instruments': {
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
  },
} satisfies Record<string, RpcDeclaration<unknown>>;
