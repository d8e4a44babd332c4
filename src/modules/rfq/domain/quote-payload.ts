import { createHash } from 'node:crypto';
import { I64_MAX, U64_MAX } from '../../../common/decimal/decimal';

/**
 * StrategyQuotePayload (design.md section 9): the fixed 1,050 bytes a maker signs.
 * Integers are little-endian; every byte not written, and every unused leg slot, is zero.
 */

export interface PayloadLeg {
  symbol: string;
  /** Micro-units, u64. */
  strike: bigint;
  kind: 'call' | 'put';
  /** Micro-units, i64, taker-buy orientation. */
  quantity: bigint;
}

export interface QuotePayloadFields {
  /** signingDomain(SERVICE_NAME), 32 bytes. */
  domain: Uint8Array;
  /** 32 lowercase hex characters. */
  rfqId: string;
  /** Maker wallet public key, 32 bytes. */
  maker: Uint8Array;
  quoteNonce: bigint;
  /** Micro-units, i64. */
  bid: bigint;
  /** Micro-units, i64. */
  ask: bigint;
  /** Unix seconds. */
  issuedAt: number;
  expiresAt: number;
  asset: string;
  /** Unix seconds: the expiry of the legs. */
  expiry: number;
  legs: PayloadLeg[];
}

export const QUOTE_PAYLOAD_SIZE = 1_050;
export const MAX_LEGS = 13;
const QUOTE_TAG = 'STRATEGY_QUOTE';
const PAYLOAD_VERSION = 1;
const LEGS_OFFSET = 218;
const LEG_SLOT_SIZE = 64;

const I64_MIN = -I64_MAX - 1n;

/** SHA-256 of the UTF-8 service name: binds every signature to this service. */
export function signingDomain(serviceName: string): Buffer {
  return createHash('sha256').update(serviceName, 'utf8').digest();
}

/** QuoteId: lowercase hex SHA-256 of the 1,050-byte payload. */
export function quoteId(payload: Uint8Array): string {
  if (payload.length !== QUOTE_PAYLOAD_SIZE) throw new Error(`a quote payload is ${QUOTE_PAYLOAD_SIZE} bytes, got ${payload.length}`);
  return createHash('sha256').update(payload).digest('hex');
}

export function encodeQuotePayload(q: QuotePayloadFields): Buffer {
  if (q.legs.length < 1 || q.legs.length > MAX_LEGS) throw new Error(`leg count ${q.legs.length} is not 1 to ${MAX_LEGS}`);
  const out = Buffer.alloc(QUOTE_PAYLOAD_SIZE); // zero filled
  out.write(QUOTE_TAG, 0, 'ascii'); //                        0..14
  out[14] = PAYLOAD_VERSION;
  out[15] = q.legs.length;
  putBytes(out, 16, q.domain, 32, 'domain'); //                16..48
  putBytes(out, 48, hexBytes(q.rfqId, 16, 'rfq_id'), 16, 'rfq_id'); // 48..64
  putBytes(out, 64, q.maker, 32, 'maker'); //                  64..96
  putU64(out, 96, q.quoteNonce, 'quote_nonce');
  putI64(out, 104, q.bid, 'bid');
  putI64(out, 112, q.ask, 'ask');
  putSeconds(out, 120, q.issuedAt, 'issued_at');
  putSeconds(out, 128, q.expiresAt, 'expires_at');
  putAscii(out, 136, q.asset, 16, 'asset'); //                 136..152
  putSeconds(out, 152, q.expiry, 'expiry');
  // 160..218 stays zero.
  q.legs.forEach((leg, i) => {
    const slot = LEGS_OFFSET + i * LEG_SLOT_SIZE;
    putAscii(out, slot, leg.symbol, 32, `legs[${i}].symbol`); // slot+0..32
    putU64(out, slot + 32, leg.strike, `legs[${i}].strike`); // slot+32..40
    if (leg.kind !== 'call' && leg.kind !== 'put') throw new Error(`legs[${i}].kind must be call or put`);
    out[slot + 40] = leg.kind === 'call' ? 0 : 1; //            slot+40; 41..48 zero
    putI64(out, slot + 48, leg.quantity, `legs[${i}].quantity`); // slot+48..56; 56..64 zero
  });
  return out;
}

// Shared with accept-payload.ts.

/** Exactly `size` bytes from `2 * size` lowercase hex characters. */
export function hexBytes(text: string, size: number, field: string): Buffer {
  if (typeof text !== 'string' || !new RegExp(`^[0-9a-f]{${size * 2}}$`).test(text)) {
    throw new Error(`${field} must be ${size * 2} lowercase hex characters`);
  }
  return Buffer.from(text, 'hex');
}

export function putBytes(out: Buffer, offset: number, bytes: Uint8Array, size: number, field: string): void {
  if (bytes.length !== size) throw new Error(`${field} must be ${size} bytes, got ${bytes.length}`);
  out.set(bytes, offset);
}

export function putI64(out: Buffer, offset: number, value: bigint, field: string): void {
  if (typeof value !== 'bigint' || value < I64_MIN || value > I64_MAX) throw new Error(`${field} is not a signed 64-bit integer`);
  out.writeBigInt64LE(value, offset);
}

function putU64(out: Buffer, offset: number, value: bigint, field: string): void {
  if (typeof value !== 'bigint' || value < 0n || value > U64_MAX) throw new Error(`${field} is not an unsigned 64-bit integer`);
  out.writeBigUInt64LE(value, offset);
}

/** Unix seconds held in a JS number, written as i64. */
export function putSeconds(out: Buffer, offset: number, value: number, field: string): void {
  if (!Number.isSafeInteger(value)) throw new Error(`${field} must be an integer number of seconds`);
  out.writeBigInt64LE(BigInt(value), offset);
}

/** Printable ASCII, 1 to `size` bytes, zero padded (the buffer is already zero). */
function putAscii(out: Buffer, offset: number, text: string, size: number, field: string): void {
  if (typeof text !== 'string' || !/^[\x21-\x7e]+$/.test(text) || text.length > size) {
    throw new Error(`${field} must be 1 to ${size} printable ASCII characters`);
  }
  out.write(text, offset, 'ascii');
}
