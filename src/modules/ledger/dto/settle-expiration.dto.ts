import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Matches } from 'class-validator';
import { ASSET_PATTERN } from '../../instruments/domain/symbol';

/** POST /v1/admin/instruments/settle-expiration (docs/spec/design.md section 7). The service checks the values. */
export class SettleExpirationDto {
  @ApiProperty({ description: 'Underlying asset', pattern: ASSET_PATTERN.source, example: 'SOL' })
  @IsString()
  @Matches(ASSET_PATTERN, { message: `asset must match ${ASSET_PATTERN.source}` })
  asset: string;

  /** Unix seconds: the round's expiry. */
  @ApiProperty({ type: 'integer', format: 'int64', description: "The round's expiry (unix seconds)", example: 1798358400 })
  @IsInt()
  expiration: number;

  /** > 0, a decimal string or JSON number; without it, the asset's fresh index price. */
  @ApiPropertyOptional({
    description: 'Settlement price > 0: a decimal string or a JSON number. Default: the fresh index price of the asset',
    oneOf: [
      { type: 'number', minimum: 0 },
      { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$' },
    ],
    example: '152.5',
  })
  @IsOptional()
  settlement_price?: unknown;
}
