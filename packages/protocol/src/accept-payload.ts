import { hexBytes, newLayout, putBytes, putCheckedAscii, putSeconds } from './bytes';

/**
 * StrategyAcceptPayload (docs/spec/design.md section 9): the fixed 105 bytes a taker signs to accept one
 * side of a quote. Integers are little-endian.
 */

export interface AcceptPayloadFields {
  /** 32 lowercase hex characters. */
  rfqId: string;
  /** QuoteId: 64 lowercase hex characters, written as its 32 raw bytes. */
  quoteId: string;
  /** Taker wallet public key, 32 bytes. */
  taker: Uint8Array;
  side: 'buy' | 'sell';
  /** Unix seconds. */
  expiresAt: number;
}

/** Size of a StrategyAcceptPayload. */
export const ACCEPT_PAYLOAD_SIZE = 105;
const ACCEPT_TAG = 'STRATEGY_ACCEPT';
const PAYLOAD_VERSION = 1;

/**
 * Encodes the 105-byte StrategyAcceptPayload.
 * @throws {Error} when a field does not fit its slot
 */
export function encodeAcceptPayload(a: AcceptPayloadFields): Uint8Array {
  const out = newLayout(ACCEPT_PAYLOAD_SIZE);
  putCheckedAscii(out, 0, ACCEPT_TAG); //                                0..15
  out.bytes[15] = PAYLOAD_VERSION;
  putBytes(out, 16, hexBytes(a.rfqId, 16, 'rfq_id'), 16, 'rfq_id'); //    16..32
  putBytes(out, 32, hexBytes(a.quoteId, 32, 'quote_id'), 32, 'quote_id'); // 32..64
  putBytes(out, 64, a.taker, 32, 'taker'); //                             64..96
  if (a.side !== 'buy' && a.side !== 'sell') throw new Error('side must be buy or sell');
  out.bytes[96] = a.side === 'buy' ? 0 : 1;
  putSeconds(out, 97, a.expiresAt, 'expires_at'); //                       97..105
  return out.bytes;
}
