import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches } from 'class-validator';

const ACCOUNT_ID = /^(0|[1-9][0-9]{0,15})$/;
/** The most rows one page of a query holds. */
const MAX_QUERY_LIMIT = 1000;
/** 1 to MAX_QUERY_LIMIT in canonical decimal text: the whole check of `limit` (the service only reads it). */
const LIMIT = /^([1-9][0-9]{0,2}|1000)$/;

/** The OpenAPI description of `account_id` (every /query/* route): an integer in canonical decimal text (interface.md 4.1). */
export const ACCOUNT_ID_PARAM = {
  type: 'integer',
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  description:
    "The account to read (canonical decimal): default the token's own; another account only for an admin reader (admin token, role admin, scope admin:* or admin:read), which must name one when it has no account",
} as const;
const limitParam = (fallback: number) =>
  ({ type: 'integer', minimum: 1, maximum: MAX_QUERY_LIMIT, description: `Rows per page (canonical decimal; default ${fallback})` }) as const;

/**
 * GET /query/rfq-positions (docs/spec/interface.md 4.1, docs/spec/design.md section 8): `account_id`, `limit` (1 to
 * 1000), `status` (open, settled, all). `after` is declared only so that the service can refuse it
 * with its own message: cursor pagination is not supported (400).
 */
export class RfqPositionsQueryDto {
  @ApiPropertyOptional(ACCOUNT_ID_PARAM)
  @IsOptional()
  @Matches(ACCOUNT_ID, { message: 'account_id must be an integer >= 0' })
  account_id?: string;

  @ApiPropertyOptional(limitParam(500))
  @IsOptional()
  @Matches(LIMIT, { message: `limit must be an integer from 1 to ${MAX_QUERY_LIMIT}` })
  limit?: string;

  @ApiPropertyOptional({ enum: ['open', 'settled', 'all'], description: 'open (default): unsettled instruments; settled; all' })
  @IsOptional()
  @IsIn(['open', 'settled', 'all'], { message: 'status must be one of open, settled, all' })
  status?: 'open' | 'settled' | 'all';

  @IsOptional()
  after?: unknown;
}

/** GET /query/rfq-fills: `account_id`, `limit` (1 to 1000), `after` (a fill id from `next_cursor`). */
export class RfqFillsQueryDto {
  @ApiPropertyOptional(ACCOUNT_ID_PARAM)
  @IsOptional()
  @Matches(ACCOUNT_ID, { message: 'account_id must be an integer >= 0' })
  account_id?: string;

  @ApiPropertyOptional(limitParam(100))
  @IsOptional()
  @Matches(LIMIT, { message: `limit must be an integer from 1 to ${MAX_QUERY_LIMIT}` })
  limit?: string;

  @ApiPropertyOptional({ description: 'Cursor: the next_cursor of the previous page (a fill id)', pattern: '^(0|[1-9][0-9]{0,18})$' })
  @IsOptional()
  @Matches(/^(0|[1-9][0-9]{0,18})$/, { message: 'after must be a fill id (a decimal integer)' })
  after?: string;
}
