import { DecimalError, MAX_LEGS, U64_MAX, parseRfqSigned } from '@legwork/protocol';
import { RfqError } from '../../../common/errors/app-error';
import { DECLINE_REASONS, type DeclineReason, type RfqLeg } from './rfq-record';
import { type RfqState, isRfqState } from './rfq-state';

/**
 * Params of the rfq.* methods, checked by hand with the error mapping of design.md section 4:
 * a param off the method's schema (missing, extra, wrong type, bad pattern) is
 * RFQ_VALUE_OUT_OF_RANGE naming the field; a decimal that is not canonical text is
 * RFQ_PRECISION_UNSUPPORTED (before the zero-quantity rule); legs not 1 to 13 or a zero quantity
 * is RFQ_SIZE_INVALID. Fields are checked in the order of the interface's tables.
 */

type Params = Record<string, unknown>;

const RFQ_ID = /^[0-9a-f]{32}$/;
const CLIENT_REF = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const QUOTE_NONCE = /^[1-9][0-9]*$/;
export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 100;

const outOfRange = (message: string) => new RfqError('RFQ_VALUE_OUT_OF_RANGE', message);

/** A short, safe rendering of a client value for a message. */
function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

function onlyKeys(params: Params, allowed: readonly string[], where = 'params'): void {
  const extra = Object.keys(params).find((k) => !allowed.includes(k));
  if (extra !== undefined) throw outOfRange(`${where} has an unknown field ${show(extra)}`);
}

function required(params: Params, field: string, where = ''): unknown {
  const value = params[field];
  if (value === undefined) throw outOfRange(`${where}${field} is required`);
  return value;
}

function rfqId(value: unknown, field: string): string {
  if (typeof value !== 'string' || !RFQ_ID.test(value)) throw outOfRange(`${field} must be 32 lowercase hex characters`);
  return value;
}

function isObject(value: unknown): value is Params {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * RfqSignedDecimal. Text off the pattern, a JSON number, an exponent, negative zero or more than
 * 6 fractional digits: RFQ_PRECISION_UNSUPPORTED. Canonical but beyond the signed 64-bit range:
 * RFQ_VALUE_OUT_OF_RANGE. Any other JSON type: off the schema, RFQ_VALUE_OUT_OF_RANGE.
 */
export function signedDecimal(value: unknown, field: string): bigint {
  if (typeof value !== 'string' && typeof value !== 'number') throw outOfRange(`${field} must be a decimal string`);
  try {
    return parseRfqSigned(value);
  } catch (error) {
    if (!(error instanceof DecimalError)) throw error;
    if (error.fault === 'out_of_range') throw outOfRange(`${field} ${show(value)} is outside the signed 64-bit range of 6-decimal values`);
    throw new RfqError('RFQ_PRECISION_UNSUPPORTED', `${field} must be a canonical decimal string with at most 6 fractional digits, got ${show(value)}`);
  }
}

/** An integer of unix seconds (int64, held exactly in a JS number: safe integers only). */
function seconds(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw outOfRange(`${field} must be an integer of unix seconds`);
  return value;
}

function pageLimit(params: Params): number {
  if (params.limit === undefined) return DEFAULT_PAGE;
  const limit = params.limit;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw outOfRange(`limit must be an integer from 1 to ${MAX_PAGE}`);
  return limit;
}

function cursor(params: Params): string | null {
  return params.cursor === undefined ? null : rfqId(params.cursor, 'cursor');
}

function noParams(params: Params): void {
  onlyKeys(params, []);
}

// rfq.create

export interface CreateRfqCommand {
  clientRef: string;
  /** Canonical values in the taker's order; not yet checked against the instruments. */
  legs: RfqLeg[];
}

export function parseCreateParams(params: Params): CreateRfqCommand {
  onlyKeys(params, ['client_ref', 'legs']);
  const clientRef = required(params, 'client_ref');
  if (typeof clientRef !== 'string' || !CLIENT_REF.test(clientRef)) throw outOfRange('client_ref must be a lowercase UUID');
  const legs = required(params, 'legs');
  if (!Array.isArray(legs)) throw outOfRange('legs must be an array of legs');
  if (legs.length < 1 || legs.length > MAX_LEGS) throw new RfqError('RFQ_SIZE_INVALID', `legs must hold 1 to ${MAX_LEGS} legs, got ${legs.length}`);
  // Shape of every leg first, then precision of every quantity, then the zero rule.
  legs.forEach((leg: unknown, i) => {
    const where = `legs[${i}]`;
    if (!isObject(leg)) throw outOfRange(`${where} must be an object with instrument and quantity`);
    onlyKeys(leg, ['instrument', 'quantity'], where);
    if (typeof required(leg, 'instrument', `${where}.`) !== 'string') throw outOfRange(`${where}.instrument must be a string`);
    required(leg, 'quantity', `${where}.`);
  });
  const parsed: RfqLeg[] = legs.map((leg: Params, i) => ({ instrument: leg.instrument as string, quantity: signedDecimal(leg.quantity, `legs[${i}].quantity`) }));
  const zero = parsed.findIndex((leg) => leg.quantity === 0n);
  if (zero >= 0) throw new RfqError('RFQ_SIZE_INVALID', `legs[${zero}].quantity must not be zero`);
  return { clientRef, legs: parsed };
}

// rfq.get, rfq.list, rfq.subscribe

export function parseGetParams(params: Params): { rfqId: string } {
  onlyKeys(params, ['rfq_id']);
  return { rfqId: rfqId(required(params, 'rfq_id'), 'rfq_id') };
}

export interface ListRfqsQuery {
  /** null: every state. */
  states: RfqState[] | null;
  cursor: string | null;
  limit: number;
}

export function parseListParams(params: Params): ListRfqsQuery {
  onlyKeys(params, ['states', 'cursor', 'limit']);
  let states: RfqState[] | null = null;
  if (params.states !== undefined) {
    const value = params.states;
    if (!Array.isArray(value)) throw outOfRange('states must be an array of RFQ states');
    value.forEach((s: unknown, i) => {
      if (!isRfqState(s)) throw outOfRange(`states[${i}] must be an RFQ state, got ${show(s)}`);
    });
    if (new Set(value).size !== value.length) throw outOfRange('states must not repeat a state');
    states = value as RfqState[];
  }
  return { states, cursor: cursor(params), limit: pageLimit(params) };
}

/** rfq.subscribe and rfq.maker.subscribe: `since`, an account_seq to replay after (design.md 13). */
export function parseSubscribeParams(params: Params): { since: number | null } {
  onlyKeys(params, ['since']);
  const since = params.since;
  if (since === undefined || since === null) return { since: null };
  if (typeof since !== 'number' || !Number.isSafeInteger(since) || since < 0) throw outOfRange('since must be an account_seq: an integer >= 0');
  return { since };
}

// rfq.maker.*

export interface PollQuery {
  cursor: string | null;
  limit: number;
}

export function parsePollParams(params: Params): PollQuery {
  onlyKeys(params, ['cursor', 'limit']);
  return { cursor: cursor(params), limit: pageLimit(params) };
}

export interface RespondCommand {
  rfqId: string;
  quoteNonce: bigint;
  bid: bigint;
  ask: bigint;
  issuedAt: number;
  expiresAt: number;
  /** As sent: whether it is canonical base64 of 64 bytes is the signature check's business. */
  makerSignature: string;
}

export function parseRespondParams(params: Params): RespondCommand {
  onlyKeys(params, ['rfq_id', 'quote_nonce', 'bid', 'ask', 'issued_at', 'expires_at', 'maker_signature']);
  const rfq = rfqId(required(params, 'rfq_id'), 'rfq_id');
  const nonce = required(params, 'quote_nonce');
  if (typeof nonce !== 'string' || !QUOTE_NONCE.test(nonce)) throw outOfRange('quote_nonce must be a canonical decimal u64 string of 1 or more');
  if (nonce.length > 20 || BigInt(nonce) > U64_MAX) throw outOfRange('quote_nonce is above the u64 range');
  const bid = signedDecimal(required(params, 'bid'), 'bid');
  const ask = signedDecimal(required(params, 'ask'), 'ask');
  const issuedAt = seconds(required(params, 'issued_at'), 'issued_at');
  const expiresAt = seconds(required(params, 'expires_at'), 'expires_at');
  const signature = required(params, 'maker_signature');
  if (typeof signature !== 'string') throw outOfRange('maker_signature must be a string');
  return { rfqId: rfq, quoteNonce: BigInt(nonce), bid, ask, issuedAt, expiresAt, makerSignature: signature };
}

export interface DeclineCommand {
  rfqId: string;
  reason: DeclineReason;
}

export function parseDeclineParams(params: Params): DeclineCommand {
  onlyKeys(params, ['rfq_id', 'reason']);
  const rfq = rfqId(required(params, 'rfq_id'), 'rfq_id');
  const reason = required(params, 'reason');
  if (typeof reason !== 'string' || !(DECLINE_REASONS as readonly string[]).includes(reason)) {
    throw outOfRange(`reason must be one of ${DECLINE_REASONS.join(', ')}`);
  }
  return { rfqId: rfq, reason: reason as DeclineReason };
}
