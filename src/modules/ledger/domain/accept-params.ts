import { RfqError } from '../../../common/errors/app-error';
import type { AcceptSide } from './funding';

/**
 * Params of rfq.accept (interface.md 4.2), with the mapping of design.md section 4: anything off
 * the schema (missing, extra, wrong type, bad pattern) is RFQ_VALUE_OUT_OF_RANGE naming the field.
 * Fields are checked in the order of the interface's table, after the unknown-field check.
 * Whether `taker_signature` is canonical base64 of 64 bytes is the signature check's business
 * (RFQ_INVALID_SIGNATURE), so any string passes here.
 */

export interface AcceptCommand {
  quoteId: string;
  side: AcceptSide;
  /** Unix seconds. */
  expiresAt: number;
  takerSignature: string;
}

const QUOTE_ID = /^[0-9a-f]{64}$/;
const FIELDS = ['quote_id', 'side', 'expires_at', 'taker_signature'] as const;

const outOfRange = (message: string) => new RfqError('RFQ_VALUE_OUT_OF_RANGE', message);

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

export function parseAcceptParams(params: Record<string, unknown>): AcceptCommand {
  const extra = Object.keys(params).find((k) => !(FIELDS as readonly string[]).includes(k));
  if (extra !== undefined) throw outOfRange(`params has an unknown field ${show(extra)}`);
  for (const field of FIELDS) if (params[field] === undefined) throw outOfRange(`${field} is required`);

  const quoteId = params.quote_id;
  if (typeof quoteId !== 'string' || !QUOTE_ID.test(quoteId)) throw outOfRange('quote_id must be 64 lowercase hex characters');
  const side = params.side;
  if (side !== 'buy' && side !== 'sell') throw outOfRange('side must be "buy" or "sell"');
  const expiresAt = params.expires_at;
  // int64 unix seconds; a JSON number beyond 2^53 cannot be held exactly, so it is refused too.
  if (typeof expiresAt !== 'number' || !Number.isSafeInteger(expiresAt)) throw outOfRange('expires_at must be an integer of unix seconds');
  const takerSignature = params.taker_signature;
  if (typeof takerSignature !== 'string') throw outOfRange('taker_signature must be a string');
  return { quoteId, side, expiresAt, takerSignature };
}
