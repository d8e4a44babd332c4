import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsDefined, IsIn, IsInt, IsOptional, IsString, Matches, Min } from 'class-validator';
import { ASSET_PATTERN } from '../domain/symbol';
import { MAX_STRIKES } from '../domain/listing';
import type { InstrumentRecord } from '../instrument';
import type { CreateInstrumentsResult, PauseResult } from '../instruments.service';

const ASSET = { description: 'Underlying asset', pattern: ASSET_PATTERN.source, example: 'SOL' };
const UNIX_SECONDS = (description: string): ApiPropertyOptions => ({
  type: 'integer',
  format: 'int64',
  description: `${description} (unix seconds)`,
  example: 1798358400,
});
const RFQ_DECIMAL = {
  type: 'string',
  pattern: '^(0|[1-9][0-9]*)(\\.[0-9]{1,6})?$',
  description: 'Decimal string, at most 6 fractional digits (RFQ output form)',
} as const;

/** POST /v1/admin/create-instruments (docs/spec/design.md section 2). The service checks the values themselves. */
export class CreateInstrumentsDto {
  @ApiProperty(ASSET)
  @IsString()
  @Matches(ASSET_PATTERN, { message: `asset must match ${ASSET_PATTERN.source}` })
  asset: string;

  /** Unix seconds, in the future. */
  @ApiProperty(UNIX_SECONDS('Expiry of the round, in the future; at most one expiration per asset and UTC date'))
  @IsInt()
  expiration: number;

  /** > 0, a JSON number or a decimal string. */
  @ApiProperty({
    description: 'Spot price > 0: a JSON number (no exponent) or a decimal string, up to 8 fractional digits; centres the default strike grid',
    oneOf: [
      { type: 'number', minimum: 0 },
      { type: 'string', pattern: '^[0-9]+(\\.[0-9]{1,8})?$' },
    ],
    example: '150',
  })
  @IsDefined()
  spot_price: unknown;

  /** Decimal strings; without it, the default grid around the spot. */
  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_STRIKES,
    description:
      'Strikes as decimal strings. Default: every multiple of the step in [0.5 * spot, 1.5 * spot] (step: the largest 1, 2, 2.5 or 5 times a power of ten <= 2.5 % of spot)',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_STRIKES)
  @IsString({ each: true })
  strikes?: string[];
}

/** POST /v1/admin/instruments/pause-by-expiration and resume-by-expiration. */
export class RoundDto {
  @ApiProperty(UNIX_SECONDS('Expiration of the round'))
  @IsInt()
  expiration: number;

  @ApiPropertyOptional({ ...ASSET, description: 'Only this asset’s instruments (default: every asset at that expiration)' })
  @IsOptional()
  @IsString()
  @Matches(ASSET_PATTERN, { message: `asset must match ${ASSET_PATTERN.source}` })
  asset?: string;
}

/** GET /v1/instruments query. */
export class ListInstrumentsQuery {
  @ApiPropertyOptional(ASSET)
  @IsOptional()
  @IsString()
  @Matches(ASSET_PATTERN, { message: `asset must match ${ASSET_PATTERN.source}` })
  asset?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, description: 'Only this expiry (unix seconds)' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  expiry?: number;

  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'Also list settled instruments (default false)' })
  @IsOptional()
  @IsIn(['true', 'false'])
  include_settled?: 'true' | 'false';
}

/** The instrument record (docs/spec/design.md section 2). */
export class InstrumentRecordDto implements InstrumentRecord {
  @ApiProperty({ description: '<ASSET>-<DDMMMYY>-<STRIKE>-<C|P>', example: 'SOL-27DEC26-152.5-C', maxLength: 32 })
  symbol: string;

  @ApiProperty(ASSET)
  asset: string;

  @ApiProperty(RFQ_DECIMAL)
  strike: string;

  @ApiProperty({ enum: ['call', 'put'] })
  kind: 'call' | 'put';

  @ApiProperty(UNIX_SECONDS('Expiry'))
  expiry: number;

  @ApiProperty({ description: 'The round is paused (pause-by-expiration)' })
  paused: boolean;

  @ApiProperty()
  settled: boolean;

  @ApiProperty({ ...RFQ_DECIMAL, nullable: true, description: 'null until settled' })
  settlement_price: string | null;

  @ApiProperty(UNIX_SECONDS('Listing time'))
  created_at: number;
}

export class InstrumentListDto {
  @ApiProperty({ type: [InstrumentRecordDto], description: 'Ordered by asset, expiry, strike, kind' })
  instruments: InstrumentRecordDto[];
}

export class CreateInstrumentsResultDto implements CreateInstrumentsResult {
  @ApiProperty(ASSET)
  asset: string;

  @ApiProperty(UNIX_SECONDS('Expiration'))
  expiration: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Instruments created now (existing ones are skipped: the command is idempotent)' })
  created: number;
}

export class PauseResultDto implements PauseResult {
  @ApiProperty(UNIX_SECONDS('Expiration'))
  expiration: number;

  @ApiProperty({ ...ASSET, type: 'string', nullable: true, description: 'The asset asked for, or null for every asset' })
  asset: string | null;

  @ApiProperty()
  paused: boolean;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'How many instruments the round holds' })
  instruments: number;
}
