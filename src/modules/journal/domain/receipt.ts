import { createHash } from 'node:crypto';
import { type PayloadLeg, hexBytes, putBytes, putI64, putSeconds } from '@legwork/protocol';

/**
 * StrategyFillReceipt (design.md section 14): the fixed 1,072 bytes the exchange signs for every
 * fill and every revert. Layout rules of section 9: little-endian, every byte not written and
 * every unused leg slot zero; the leg slots are those of StrategyQuotePayload.
 */

export type ReceiptKind = 0 | 1;
export const RECEIPT_KIND = { fill: 0, revert: 1 } as const;

export interface ReceiptFields {
  kind: ReceiptKind;
  /** signingDomain(SERVICE_NAME), 32 bytes. */
  domain: Uint8Array;
  journalSeq: bigint;
  /** 32 bytes: SHA-256 of the receipt before (zero for journal_seq 1). */
  prevHash: Uint8Array;
  /** 32 lowercase hex characters. */
  rfqId: string;
  /** 64 lowercase hex characters. */
  quoteId: string;
  taker: Uint8Array;
  maker: Uint8Array;
  side: 'buy' | 'sell';
  /** Micro-units, i64: the accepted side's package price. */
  price: bigint;
  fee: bigint;
  /** Unix seconds: filled_at, or the revert's time. */
  at: number;
  fillId: bigint;
  legs: PayloadLeg[];
}

export const RECEIPT_SIZE = 1_072;
export const ZERO_HASH = Buffer.alloc(32);
const TAG = 'STRATEGY_FILL';
const VERSION = 1;
const LEGS_OFFSET = 240;
const LEG_SLOT_SIZE = 64;
const MAX_LEGS = 13;
const U64_MAX = (1n << 64n) - 1n;

export function encodeReceipt(r: ReceiptFields): Buffer {
  if (r.legs.length < 1 || r.legs.length > MAX_LEGS) throw new Error(`leg count ${r.legs.length} is not 1 to ${MAX_LEGS}`);
  if (r.kind !== 0 && r.kind !== 1) throw new Error('kind must be 0 (fill) or 1 (revert)');
  if (r.journalSeq < 1n || r.journalSeq > U64_MAX) throw new Error('journal_seq is not a positive u64');
  if (r.fillId < 0n || r.fillId > U64_MAX) throw new Error('fill_id is not a u64');
  const out = Buffer.alloc(RECEIPT_SIZE);
  out.write(TAG, 0, 'ascii'); //                                  0..13
  out[13] = VERSION;
  out[14] = r.kind;
  out[15] = r.legs.length;
  putBytes(out, 16, r.domain, 32, 'domain'); //                    16..48
  out.writeBigUInt64LE(r.journalSeq, 48);
  putBytes(out, 56, r.prevHash, 32, 'prev_hash'); //               56..88
  putBytes(out, 88, hexBytes(r.rfqId, 16, 'rfq_id'), 16, 'rfq_id');
  putBytes(out, 104, hexBytes(r.quoteId, 32, 'quote_id'), 32, 'quote_id');
  putBytes(out, 136, r.taker, 32, 'taker');
  putBytes(out, 168, r.maker, 32, 'maker');
  out[200] = r.side === 'buy' ? 0 : 1; //                           201..208 zero
  putI64(out, 208, r.price, 'price');
  putI64(out, 216, r.fee, 'fee');
  putSeconds(out, 224, r.at, 'at');
  out.writeBigUInt64LE(r.fillId, 232);
  r.legs.forEach((leg, i) => {
    const slot = LEGS_OFFSET + i * LEG_SLOT_SIZE;
    if (!/^[\x21-\x7e]{1,32}$/.test(leg.symbol)) throw new Error(`legs[${i}].symbol must be 1 to 32 printable ASCII characters`);
    out.write(leg.symbol, slot, 'ascii');
    if (leg.strike < 0n || leg.strike > U64_MAX) throw new Error(`legs[${i}].strike is not a u64`);
    out.writeBigUInt64LE(leg.strike, slot + 32);
    out[slot + 40] = leg.kind === 'call' ? 0 : 1;
    putI64(out, slot + 48, leg.quantity, `legs[${i}].quantity`);
  });
  return out;
}

export function receiptHash(payload: Uint8Array): Buffer {
  return createHash('sha256').update(payload).digest();
}

/** `key_id`: the first 8 bytes of SHA-256 of the exchange's public key, in hex. */
export function keyIdOf(publicKey: Uint8Array): string {
  return createHash('sha256').update(publicKey).digest().subarray(0, 8).toString('hex');
}

/** The wire form of a receipt (section 14). */
export interface ReceiptView {
  journal_seq: number;
  kind: ReceiptKind;
  payload: string;
  hash: string;
  key_id: string;
  signature: string;
}
