import { utf8ToBytes } from '@noble/hashes/utils.js';
import { hexBytes, newLayout, putAscii, putBytes, putCheckedAscii, putI64, putSeconds, putU64 } from './bytes';
import { MAX_RFQ_LEGS } from './contract/enums';
import { toHex } from './encoding';
import { sha256 } from './sha256';

/**
 * StrategyQuotePayload (docs/spec/design.md section 9): the fixed 1,050 bytes a maker signs.
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

/** Size of a StrategyQuotePayload. */
export const QUOTE_PAYLOAD_SIZE = 1_050;
/** Most legs of an RFQ. */
export const MAX_LEGS = MAX_RFQ_LEGS;
/** The service name the default signing domain is made of. */
export const DEFAULT_SERVICE_NAME = 'Legwork';
const QUOTE_TAG = 'STRATEGY_QUOTE';
const PAYLOAD_VERSION = 1;
const LEGS_OFFSET = 218;
const LEG_SLOT_SIZE = 64;

/** SHA-256 of the UTF-8 service name (`quote_domain` of the market config): binds every signature to this service. */
export function signingDomain(serviceName: string = DEFAULT_SERVICE_NAME): Uint8Array {
  return sha256(utf8ToBytes(serviceName));
}

/** QuoteId: lowercase hex SHA-256 of the 1,050-byte payload. */
export function quoteId(payload: Uint8Array): string {
  if (payload.length !== QUOTE_PAYLOAD_SIZE) throw new Error(`a quote payload is ${QUOTE_PAYLOAD_SIZE} bytes, got ${payload.length}`);
  return toHex(sha256(payload));
}

/**
 * Encodes the 1,050-byte StrategyQuotePayload.
 * @throws {Error} when a field does not fit its slot
 */
export function encodeQuotePayload(q: QuotePayloadFields): Uint8Array {
  if (!Array.isArray(q.legs) || q.legs.length < 1 || q.legs.length > MAX_LEGS) throw new Error(`leg count ${q.legs?.length} is not 1 to ${MAX_LEGS}`);
  const out = newLayout(QUOTE_PAYLOAD_SIZE); // zero filled
  putCheckedAscii(out, 0, QUOTE_TAG); //                      0..14
  out.bytes[14] = PAYLOAD_VERSION;
  out.bytes[15] = q.legs.length;
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
    out.bytes[slot + 40] = leg.kind === 'call' ? 0 : 1; //            slot+40; 41..48 zero
    putI64(out, slot + 48, leg.quantity, `legs[${i}].quantity`); // slot+48..56; 56..64 zero
  });
  return out.bytes;
}
