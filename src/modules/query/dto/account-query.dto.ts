import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, Matches } from 'class-validator';
import { ACCOUNT_ID_PARAM } from './rfq-query.dto';

/**
 * Query string of `/query/balances` and `/query/positions`: `account_id` only (any other
 * parameter is a 400 through the global pipe). Integer >= 0 in canonical decimal text.
 */
export class AccountQueryDto {
  @ApiPropertyOptional(ACCOUNT_ID_PARAM)
  @IsOptional()
  @Matches(/^(0|[1-9][0-9]{0,15})$/, { message: 'account_id must be an integer >= 0' })
  account_id?: string;
}
