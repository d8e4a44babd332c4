import { IsIn, IsOptional, Matches } from 'class-validator';

const ACCOUNT_ID = /^(0|[1-9][0-9]{0,15})$/;
/** The most rows one page of a query holds. */
const MAX_QUERY_LIMIT = 1000;
/** 1 to MAX_QUERY_LIMIT in canonical decimal text: the whole check of `limit` (the service only reads it). */
const LIMIT = /^([1-9][0-9]{0,2}|1000)$/;

/**
 * GET /query/rfq-positions (docs/spec/interface.md 4.1, docs/spec/design.md section 8): `account_id`, `limit` (1 to
 * 1000), `status` (open, settled, all). `after` is declared only so that the service can refuse it
 * with its own message: cursor pagination is not supported (400).
 */
export class RfqPositionsQueryDto {
  @IsOptional()
  @Matches(ACCOUNT_ID, { message: 'account_id must be an integer >= 0' })
  account_id?: string;

  @IsOptional()
  @Matches(LIMIT, { message: `limit must be an integer from 1 to ${MAX_QUERY_LIMIT}` })
  limit?: string;

  @IsOptional()
  @IsIn(['open', 'settled', 'all'], { message: 'status must be one of open, settled, all' })
  status?: 'open' | 'settled' | 'all';

  @IsOptional()
  after?: unknown;
}

/** GET /query/rfq-fills: `account_id`, `limit` (1 to 1000), `after` (a fill id from `next_cursor`). */
export class RfqFillsQueryDto {
  @IsOptional()
  @Matches(ACCOUNT_ID, { message: 'account_id must be an integer >= 0' })
  account_id?: string;

  @IsOptional()
  @Matches(LIMIT, { message: `limit must be an integer from 1 to ${MAX_QUERY_LIMIT}` })
  limit?: string;

  @IsOptional()
  @Matches(/^(0|[1-9][0-9]{0,18})$/, { message: 'after must be a fill id (a decimal integer)' })
  after?: string;
}
