import { IsInt, IsOptional, IsString, Matches } from 'class-validator';
import { ASSET_PATTERN } from '../../instruments/domain/symbol';

/** POST /v1/admin/instruments/settle-expiration (docs/spec/design.md section 7). The service checks the values. */
export class SettleExpirationDto {
  @IsString()
  @Matches(ASSET_PATTERN, { message: `asset must match ${ASSET_PATTERN.source}` })
  asset: string;

  /** Unix seconds: the round's expiry. */
  @IsInt()
  expiration: number;

  /** > 0, a decimal string or JSON number; without it, the asset's fresh index price. */
  @IsOptional()
  settlement_price?: unknown;
}
