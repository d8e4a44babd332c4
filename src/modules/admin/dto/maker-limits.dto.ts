import { ApiProperty } from '@nestjs/swagger';
import { IsObject } from 'class-validator';
import type { LimitsView } from '../../rfq/maker-limits.service';

const RFQ_DECIMAL = { type: 'string', pattern: '^(0|[1-9][0-9]*)(\\.[0-9]{1,6})?$' };
const ASSET_DECIMALS = { type: 'object', additionalProperties: RFQ_DECIMAL, description: 'asset → RfqDecimal' };

/** The limits document (docs/spec/design.md section 15): the same as rfq.maker.set_limits takes, RfqDecimal strings. */
const LIMITS_SCHEMA = {
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
  description: 'Every field optional (absent = no limit)',
};

/** PUT /v1/admin/accounts/{account_id}/maker-limits. The service checks the document field by field. */
export class PutMakerLimitsDto {
  @ApiProperty({
    ...LIMITS_SCHEMA,
    description: "The operator's ceiling: replaces the previous one; the stricter of it and the maker's own applies per field",
  } as never)
  @IsObject()
  limits: Record<string, unknown>;
}

/** The admin read of a maker's limits (GET and PUT answer it): rfq.maker.get_limits of the account, with its id. */
export class MakerLimitsViewDto {
  @ApiProperty({ type: 'integer' })
  account_id: number;

  @ApiProperty({ ...LIMITS_SCHEMA, description: "The maker's own limits (rfq.maker.set_limits)" } as never)
  limits: LimitsView['limits'];

  @ApiProperty({ ...LIMITS_SCHEMA, description: "The operator's ceiling" } as never)
  admin_limits: LimitsView['admin_limits'];

  @ApiProperty({
    type: 'object',
    description: 'The live quotes at the current marks: count, sum of notionals, per asset the sums of |delta| and |vega|',
    properties: { open_quotes: { type: 'integer' }, open_notional: RFQ_DECIMAL, open_delta: ASSET_DECIMALS, open_vega: ASSET_DECIMALS },
    required: ['open_quotes', 'open_notional', 'open_delta', 'open_vega'],
  } as never)
  usage: LimitsView['usage'];

  @ApiProperty({
    type: 'object',
    description: 'Maker protection: frozen (until: unix seconds, null while frozen until reset) and the fills of the current window',
    properties: {
      frozen: { type: 'boolean' },
      until: { type: ['integer', 'null'] },
      window: {
        type: 'object',
        properties: { fills: { type: 'integer' }, notional: RFQ_DECIMAL, delta: ASSET_DECIMALS },
        required: ['fills', 'notional', 'delta'],
      },
    },
    required: ['frozen', 'until', 'window'],
  } as never)
  protection: LimitsView['protection'];
}
