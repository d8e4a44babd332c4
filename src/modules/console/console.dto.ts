import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import type { AccountView } from '../accounts/accounts.service';
import { RFQ_STATES, type RfqState } from '../rfq/domain/rfq-state';
import type { AdminRfqRow, RfqEventRow } from '../rfq/rfq-reads.service';
import type { MarketDataAge, Overview } from './console-reads.service';

export const RFQ_ID_PATTERN = /^[0-9a-f]{32}$/;
const MAX_RFQ_PAGE = 200;

/** GET /v1/admin/rfqs query. */
export class AdminRfqsQuery {
  @ApiPropertyOptional({ enum: RFQ_STATES, description: 'Only RFQs in this state' })
  @IsOptional()
  @IsIn(RFQ_STATES)
  state?: RfqState;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: "Only this taker's RFQs" })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  account_id?: number;

  @ApiPropertyOptional({ description: 'Cursor: only RFQs older than this rfq_id (the last row of the previous page)', pattern: RFQ_ID_PATTERN.source })
  @IsOptional()
  @IsString()
  @Matches(RFQ_ID_PATTERN, { message: 'before must be 32 lowercase hex characters' })
  before?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_RFQ_PAGE, default: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_RFQ_PAGE)
  limit?: number;
}

/** GET /v1/admin/accounts query. */
export class AdminAccountSearchQuery {
  @ApiPropertyOptional({ description: 'Base58 wallet address (exact)', example: '7Qn9ZcZ5j4u7oE3cV1bJd5x7cX5y3V1bJd5x7cX5y3V1' })
  @IsString()
  @Matches(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, { message: 'wallet must be a base58 address' })
  wallet: string;
}

const decimal = { type: ['string', 'null'], pattern: '^-?[0-9]+\\.[0-9]{8}$' };

/**
 * The properties of a row's schema, checked against its type: exactly the row's keys, so a field
 * added to (or dropped from) a row does not compile until its schema says so.
 */
const fieldsOf = <T extends object>(properties: { [K in keyof T]-?: object }) => properties;

export const OVERVIEW_SCHEMA = {
  type: 'object',
  required: ['queues', 'rfqs_by_state', 'fills_per_minute'],
  properties: fieldsOf<Overview>({
    queues: {
      type: 'object',
      description: 'Jobs waiting, delayed or active per queue (empty when Redis does not answer)',
      additionalProperties: { type: 'integer' },
    },
    rfqs_by_state: {
      type: 'object',
      description: 'Open states (pending, quoted, accepted, submitting): every RFQ; ended states: RFQs created in the last 24 hours',
      properties: Object.fromEntries(RFQ_STATES.map((s) => [s, { type: 'integer' }])),
    },
    fills_per_minute: {
      type: 'array',
      description: 'The last 30 minutes, oldest first, one point per minute (zeros included)',
      items: {
        type: 'object',
        required: ['minute', 'fills'],
        properties: { minute: { type: 'integer', description: 'Unix seconds of the minute' }, fills: { type: 'integer' } },
      },
    },
  }),
};

export const RFQ_ROW_SCHEMA = {
  type: 'object',
  properties: fieldsOf<AdminRfqRow>({
    rfq_id: { type: 'string', pattern: RFQ_ID_PATTERN.source },
    account_id: { type: 'integer', description: 'The taker' },
    asset: { type: 'string' },
    expiry: { type: 'integer' },
    legs: { type: 'array', items: { type: 'object', properties: { instrument: { type: 'string' }, quantity: { type: 'string' } } } },
    state: { type: 'string', enum: RFQ_STATES },
    created_at: { type: 'integer' },
    updated_at: { type: 'integer' },
    maker_account_id: { type: ['integer', 'null'] },
    bid: decimal,
    ask: decimal,
    accepted_side: { type: ['string', 'null'], enum: ['buy', 'sell', null] },
    fill_id: { type: ['string', 'null'] },
    fill_price: decimal,
    fill_reverted: { type: 'boolean' },
    failure_error: { type: ['string', 'null'] },
    decline_reason: { type: ['string', 'null'] },
  }),
};

export const RFQ_EVENTS_SCHEMA = {
  type: 'object',
  properties: {
    rfq_id: { type: 'string' },
    events: {
      type: 'array',
      items: {
        type: 'object',
        properties: fieldsOf<RfqEventRow>({ id: { type: 'string' }, event: { type: 'string' }, state: { type: 'string' }, at: { type: 'integer' } }),
      },
    },
  },
};

export const MARKET_DATA_SCHEMA = {
  type: 'object',
  properties: {
    max_age_seconds: { type: 'integer', description: 'MARKET_DATA_MAX_AGE_SECONDS: older data is stale and rfq.create refuses the asset' },
    assets: {
      type: 'array',
      items: {
        type: 'object',
        properties: fieldsOf<MarketDataAge>({
          asset: { type: 'string' },
          index_price: { type: 'string' },
          updated_at: { type: 'string', format: 'date-time' },
          age_seconds: { type: 'integer' },
          stale: { type: 'boolean' },
        }),
      },
    },
  },
};

export const ACCOUNT_SEARCH_SCHEMA = {
  type: 'object',
  properties: {
    accounts: {
      type: 'array',
      items: {
        type: 'object',
        properties: fieldsOf<AccountView>({
          account_id: { type: 'integer' },
          wallet: { type: 'string' },
          roles: { type: 'array', items: { type: 'string' } },
          created_at: { type: 'string', format: 'date-time' },
        }),
      },
    },
  },
};
