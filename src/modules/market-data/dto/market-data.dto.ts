import { IsDefined, IsObject, IsOptional, IsString, Matches } from 'class-validator';
import { ASSET_PATTERN } from '../../instruments/domain/symbol';

/** POST /v1/admin/market-data (design.md section 6). Decimals: strings or JSON numbers, checked by the service. */
export class MarketDataDto {
  @IsString()
  @Matches(ASSET_PATTERN, { message: `asset must match ${ASSET_PATTERN.source}` })
  asset: string;

  /** > 0 */
  @IsDefined()
  index_price: unknown;

  /** Flat IV for every open instrument of the asset (0.8 = 80 %). */
  @IsOptional()
  iv?: unknown;

  /** `{ [symbol]: iv }` */
  @IsOptional()
  @IsObject()
  ivs?: Record<string, unknown>;
}
