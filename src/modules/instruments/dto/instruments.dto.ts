import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsDefined, IsIn, IsInt, IsOptional, IsString, Matches, Min } from 'class-validator';
import { ASSET_PATTERN } from '../domain/symbol';
import { MAX_STRIKES } from '../domain/listing';

/** POST /v1/admin/create-instruments (design.md section 2). The service checks the values themselves. */
export class CreateInstrumentsDto {
  @IsString()
  @Matches(ASSET_PATTERN, { message: `asset must match ${ASSET_PATTERN.source}` })
  asset: string;

  /** Unix seconds, in the future. */
  @IsInt()
  expiration: number;

  /** > 0, a JSON number or a decimal string. */
  @IsDefined()
  spot_price: unknown;

  /** Decimal strings; without it, the default grid around the spot. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_STRIKES)
  @IsString({ each: true })
  strikes?: string[];
}

/** POST /v1/admin/instruments/pause-by-expiration and resume-by-expiration. */
export class RoundDto {
  @IsInt()
  expiration: number;

  @IsOptional()
  @IsString()
  @Matches(ASSET_PATTERN, { message: `asset must match ${ASSET_PATTERN.source}` })
  asset?: string;
}

/** GET /v1/instruments query. */
export class ListInstrumentsQuery {
  @IsOptional()
  @IsString()
  @Matches(ASSET_PATTERN, { message: `asset must match ${ASSET_PATTERN.source}` })
  asset?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  expiry?: number;

  @IsOptional()
  @IsIn(['true', 'false'])
  include_settled?: 'true' | 'false';
}
