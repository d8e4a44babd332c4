import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsObject, IsOptional, IsString, Matches } from 'class-validator';
import { ASSET_PATTERN } from '../../instruments/domain/symbol';
import type { MarketDataResult } from '../market-data.service';

const DECIMAL_INPUT = (description: string) => ({
  description: `${description}: a decimal string or a JSON number (no exponent)`,
  oneOf: [{ type: 'number' }, { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$' }],
});

/** POST /v1/admin/market-data (docs/spec/design.md section 6). Decimals: strings or JSON numbers, checked by the service. */
export class MarketDataDto {
  @ApiProperty({ description: 'Underlying asset', pattern: ASSET_PATTERN.source, example: 'SOL' })
  @IsString()
  @Matches(ASSET_PATTERN, { message: `asset must match ${ASSET_PATTERN.source}` })
  asset: string;

  /** > 0 */
  @ApiProperty({ ...DECIMAL_INPUT('Index price > 0'), example: '150.25' })
  @IsDefined()
  index_price: unknown;

  /** Flat IV for every open instrument of the asset (0.8 = 80 %). */
  @ApiPropertyOptional({ ...DECIMAL_INPUT('Flat implied volatility for every open instrument of the asset (0.8 = 80 %)'), example: '0.8' })
  @IsOptional()
  iv?: unknown;

  /** `{ [symbol]: iv }` */
  @ApiPropertyOptional({
    type: 'object',
    description: 'Implied volatility per instrument symbol',
    additionalProperties: DECIMAL_INPUT('Implied volatility'),
    example: { 'SOL-27DEC26-152.5-C': '0.75' },
  })
  @IsOptional()
  @IsObject()
  ivs?: Record<string, unknown>;
}

export class MarketDataResultDto implements MarketDataResult {
  @ApiProperty({ example: 'SOL' })
  asset: string;

  @ApiProperty({ description: 'Decimal string with 8 decimal places', example: '150.25000000' })
  index_price: string;

  @ApiProperty({ type: 'integer', format: 'int64', description: 'Server time of receipt (unix seconds)' })
  updated_at: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'How many instrument IVs were set' })
  instruments: number;
}
