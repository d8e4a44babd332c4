import { applyDecorators } from '@nestjs/common';
import { RouteSchema } from '@nestjs/platform-fastify';
import { ApiOkResponse } from '@nestjs/swagger';
import type { BalanceRow } from '../ledger/balances.service';
import type { RfqFillRow, RfqPositionRow } from '../ledger/ledger-reads.service';

/** The JSON Schema subset the query bodies use. */
type FieldSchema =
  | { type: 'string' | 'number' | 'boolean'; enum?: readonly string[]; description?: string }
  | { type: readonly ['string', 'null']; description?: string }
  | { type: 'array'; items: FieldSchema }
  | JsonObjectSchema;

/** Any object schema (what an ObjectSchema<T> is once its row type is no longer needed). */
interface JsonObjectSchema {
  type: 'object';
  properties: Record<string, FieldSchema>;
  required: readonly string[];
  additionalProperties: false;
}

/**
 * An object schema whose properties are exactly the keys of `T`, all required, nothing else
 * allowed: a field added to a row type does not compile until its schema says how it is written.
 */
export interface ObjectSchema<T extends object> {
  type: 'object';
  properties: { [K in keyof T]-?: FieldSchema };
  required: ReadonlyArray<keyof T & string>;
  additionalProperties: false;
}

function objectSchema<T extends object>(properties: { [K in keyof T]-?: FieldSchema }): ObjectSchema<T> {
  return { type: 'object', properties, required: Object.keys(properties) as Array<keyof T & string>, additionalProperties: false };
}

const httpDecimal = (description: string): FieldSchema => ({ type: 'string', description: `${description}: 8 decimal places` });
const isoTime: FieldSchema = { type: 'string', description: 'ISO 8601 time, UTC, milliseconds' };

export const BALANCE_ROW = objectSchema<BalanceRow>({
  account_id: { type: 'number' },
  currency: { type: 'string', enum: ['USDC'] },
  available: httpDecimal('total - locked'),
  locked: httpDecimal('held by the portfolio lock'),
  total: httpDecimal('the balance'),
  updated_at: isoTime,
});

export const RFQ_POSITION_ROW = objectSchema<RfqPositionRow>({
  account_id: { type: 'number' },
  instrument: { type: 'string' },
  asset: { type: 'string' },
  strike: httpDecimal('strike price'),
  kind: { type: 'string', enum: ['call', 'put'] },
  expiry: { type: 'number', description: 'unix seconds' },
  settled: { type: 'boolean' },
  quantity: httpDecimal('net quantity, negative when short'),
  average_price: { type: ['string', 'null'], description: 'average opening price, 8 decimal places; null when unknown' },
  updated_at: isoTime,
});

export const RFQ_FILL_ROW = objectSchema<RfqFillRow>({
  fill_id: { type: 'string' },
  rfq_id: { type: 'string' },
  quote_id: { type: 'string' },
  role: { type: 'string', enum: ['taker', 'maker'] },
  side: { type: 'string', enum: ['buy', 'sell'] },
  legs: { type: 'array', items: objectSchema<RfqFillRow['legs'][number]>({ instrument: { type: 'string' }, quantity: httpDecimal('leg quantity') }) },
  price: httpDecimal('package price'),
  fee: httpDecimal('taker fee (0 for the maker)'),
  filled_at: { type: 'number', description: 'unix seconds' },
  reverted: { type: 'boolean' },
});

/** `{ rows }`, or `{ rows, next_cursor }` when `cursor` (CursorRows, interface.md 2.2). */
export function rowsSchema(row: JsonObjectSchema, cursor: boolean): object {
  return {
    type: 'object',
    properties: { rows: { type: 'array', items: row }, ...(cursor ? { next_cursor: { type: 'string' } } : {}) },
    required: ['rows'],
    additionalProperties: false,
  };
}

/**
 * The 200 body of a query route, declared once for both readers of it: Fastify compiles it into
 * the route's serializer (fast-json-stringify: about 0.6x the CPU of JSON.stringify for 50
 * position rows; the largest single cost of a query request), and the OpenAPI document shows it.
 */
export function QueryResponse(row: JsonObjectSchema, options: { cursor: boolean }): MethodDecorator {
  const schema = rowsSchema(row, options.cursor);
  return applyDecorators(RouteSchema({ response: { 200: schema } }), ApiOkResponse({ schema: schema as Record<string, unknown> }));
}
