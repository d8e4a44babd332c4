import { randomBytes } from '@noble/hashes/utils.js';
import { hexBytes, newLayout, putBytes, putCheckedAscii, putI64, putSeconds, viewOf } from './bytes';
import { U64_MAX } from './decimal';
import { asciiBytes, asciiText, toHex } from './encoding';
import { MAX_LEGS, type PayloadLeg } from './quote-payload';
import { sha256 } from './sha256';
import { encodeWallet } from './wallet';

/**
 * StrategyFillReceipt (docs/spec/design.md sections 14 and 16): the fixed 1,072 bytes the exchange signs for
 * every fill and every revert. Layout rules of section 9: little-endian, every byte not written and
 * every unused leg slot zero; the leg slots are those of StrategyQuotePayload. The exchange
 * encodes it ({@link encodeReceipt}); a client decodes and checks it ({@link decodeReceipt}).
 *
 * Version 2 (what the exchange signs now) holds at offset 136 the taker's commitment
 * ({@link takerCommitment}), so a maker reading the receipt of its quote's fill learns nothing
 * about who took it (section 5); version 1 held the taker's wallet key there. Receipts of
 * version 1 already in a journal stay valid: {@link decodeReceipt} reads both.
 */

/** 0: a fill; 1: the revert of a fill. */
export type ReceiptKind = 0 | 1;

/** 1: offset 136 is the taker's wallet key (receipts signed before section 16); 2: the taker's commitment. */
export type ReceiptVersion = 1 | 2;

/** The version the exchange signs. */
export const RECEIPT_VERSION: ReceiptVersion = 2;

export interface ReceiptFields {
  /** Default {@link RECEIPT_VERSION}. */
  version?: ReceiptVersion;
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
  /** Version 2: the 32 bytes of {@link takerCommitment}. */
  takerCommitment?: Uint8Array;
  /** Version 1 only: the taker's wallet public key. */
  taker?: Uint8Array;
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

/** Size of a StrategyFillReceipt. */
export const RECEIPT_SIZE = 1_072;
const TAG = 'STRATEGY_FILL';
const LEGS_OFFSET = 240;
const LEG_SLOT_SIZE = 64;
const COMMITMENT_TAG = asciiBytes('LEGWORK_TAKER');
/** Bytes of a taker salt. */
export const TAKER_SALT_SIZE = 32;

/** A fresh taker salt: 32 random bytes, drawn once per fill (its revert reuses it). */
export function newTakerSalt(): Uint8Array {
  return randomBytes(TAKER_SALT_SIZE);
}

/**
 * `SHA-256(ASCII "LEGWORK_TAKER" || salt || taker wallet public key)`: what a version 2 receipt
 * holds at offset 136. Only who knows the salt (the taker, and the exchange) can tie it to a wallet.
 */
export function takerCommitment(salt: Uint8Array, takerPublicKey: Uint8Array): Uint8Array {
  if (salt?.length !== TAKER_SALT_SIZE) throw new Error(`taker_salt must be ${TAKER_SALT_SIZE} bytes, got ${salt?.length}`);
  if (takerPublicKey?.length !== 32) throw new Error(`the taker's public key must be 32 bytes, got ${takerPublicKey?.length}`);
  return sha256(COMMITMENT_TAG, salt, takerPublicKey);
}

/** The 32 bytes at offset 136 for the receipt's version; throws naming the field that is missing. */
function takerField(r: ReceiptFields, version: ReceiptVersion): Uint8Array {
  const bytes = version === 1 ? r.taker : r.takerCommitment;
  if (!bytes) throw new Error(version === 1 ? 'a version 1 receipt needs taker' : 'a version 2 receipt needs taker_commitment');
  return bytes;
}

/** Encodes the 1,072-byte receipt; throws an Error naming a field off the layout. */
export function encodeReceipt(r: ReceiptFields): Uint8Array {
  if (r.legs.length < 1 || r.legs.length > MAX_LEGS) throw new Error(`leg count ${r.legs.length} is not 1 to ${MAX_LEGS}`);
  if (r.kind !== 0 && r.kind !== 1) throw new Error('kind must be 0 (fill) or 1 (revert)');
  if (r.journalSeq < 1n || r.journalSeq > U64_MAX) throw new Error('journal_seq is not a positive u64');
  if (r.fillId < 0n || r.fillId > U64_MAX) throw new Error('fill_id is not a u64');
  const version = r.version ?? RECEIPT_VERSION;
  if (version !== 1 && version !== 2) throw new Error('version must be 1 or 2');
  const out = newLayout(RECEIPT_SIZE);
  putCheckedAscii(out, 0, TAG); //                                 0..13
  out.bytes[13] = version;
  out.bytes[14] = r.kind;
  out.bytes[15] = r.legs.length;
  putBytes(out, 16, r.domain, 32, 'domain'); //                    16..48
  out.view.setBigUint64(48, r.journalSeq, true);
  putBytes(out, 56, r.prevHash, 32, 'prev_hash'); //               56..88
  putBytes(out, 88, hexBytes(r.rfqId, 16, 'rfq_id'), 16, 'rfq_id');
  putBytes(out, 104, hexBytes(r.quoteId, 32, 'quote_id'), 32, 'quote_id');
  putBytes(out, 136, takerField(r, version), 32, version === 1 ? 'taker' : 'taker_commitment');
  putBytes(out, 168, r.maker, 32, 'maker');
  out.bytes[200] = r.side === 'buy' ? 0 : 1; //                           201..208 zero
  putI64(out, 208, r.price, 'price');
  putI64(out, 216, r.fee, 'fee');
  putSeconds(out, 224, r.at, 'at');
  out.view.setBigUint64(232, r.fillId, true);
  r.legs.forEach((leg, i) => {
    const slot = LEGS_OFFSET + i * LEG_SLOT_SIZE;
    if (!/^[\x21-\x7e]{1,32}$/.test(leg.symbol)) throw new Error(`legs[${i}].symbol must be 1 to 32 printable ASCII characters`);
    putCheckedAscii(out, slot, leg.symbol);
    if (leg.strike < 0n || leg.strike > U64_MAX) throw new Error(`legs[${i}].strike is not a u64`);
    out.view.setBigUint64(slot + 32, leg.strike, true);
    out.bytes[slot + 40] = leg.kind === 'call' ? 0 : 1;
    putI64(out, slot + 48, leg.quantity, `legs[${i}].quantity`);
  });
  return out.bytes;
}

/** SHA-256 of the payload: the receipt's `hash`, and the next receipt's prev_hash. */
export function receiptHash(payload: Uint8Array): Uint8Array {
  return sha256(payload);
}

/** `key_id`: the first 8 bytes of SHA-256 of the exchange's public key, in hex. */
export function keyIdOf(publicKey: Uint8Array): string {
  return toHex(sha256(publicKey).subarray(0, 8));
}

/** The fields of a decoded receipt (money in bigint micro-units). */
export interface DecodedReceipt {
  version: ReceiptVersion;
  kind: 0 | 1;
  domain: string;
  journalSeq: bigint;
  prevHash: string;
  rfqId: string;
  quoteId: string;
  /** Version 2: the taker's commitment, 64 hex characters; null in version 1. */
  takerCommitment: string | null;
  /** Version 1: the taker's wallet (base58); null in version 2, where only the commitment is signed. */
  taker: string | null;
  maker: string;
  side: 'buy' | 'sell';
  price: bigint;
  fee: bigint;
  at: number;
  fillId: bigint;
  legs: Array<{ instrument: string; strike: bigint; kind: 'call' | 'put'; quantity: bigint }>;
}

/** Thrown by {@link decodeReceipt} (and the SDK's receipt checks) for a receipt that is not right. */
export class ReceiptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReceiptError';
  }
}

const allZero = (bytes: Uint8Array) => bytes.every((x) => x === 0);

/** The legs of the slots (`count` used, the rest all zero), refusing a slot off the layout. */
function decodeLegs(b: Uint8Array, count: number): DecodedReceipt['legs'] {
  const legs: DecodedReceipt['legs'] = [];
  for (let i = 0; i < MAX_LEGS; i++) {
    const slot = b.subarray(LEGS_OFFSET + i * LEG_SLOT_SIZE, LEGS_OFFSET + (i + 1) * LEG_SLOT_SIZE);
    if (i >= count) {
      if (!allZero(slot)) throw new ReceiptError(`unused leg slot ${i} is not zero`);
      continue;
    }
    const end = slot.indexOf(0);
    const symbol = asciiText(slot.subarray(0, end < 0 || end > 32 ? 32 : end));
    if (!allZero(slot.subarray(symbol.length, 32)) || slot[40] > 1 || !allZero(slot.subarray(41, 48)) || !allZero(slot.subarray(56, 64))) {
      throw new ReceiptError(`leg slot ${i} is off the layout`);
    }
    const view = viewOf(slot);
    legs.push({ instrument: symbol, strike: view.getBigUint64(32, true), kind: slot[40] === 0 ? 'call' : 'put', quantity: view.getBigInt64(48, true) });
  }
  return legs;
}

/** Decodes the 1,072 bytes, refusing anything off the layout (a byte that must be zero, a bad tag). */
export function decodeReceipt(payload: Uint8Array): DecodedReceipt {
  const b = payload;
  if (b?.length !== RECEIPT_SIZE) throw new ReceiptError(`a receipt is ${RECEIPT_SIZE} bytes, got ${b?.length}`);
  if (asciiText(b.subarray(0, 13)) !== TAG) throw new ReceiptError('not a STRATEGY_FILL receipt');
  const version = b[13];
  if (version !== 1 && version !== 2) throw new ReceiptError(`version ${version} is not a STRATEGY_FILL receipt version (1 or 2)`);
  const kind = b[14];
  const count = b[15];
  if (kind > 1) throw new ReceiptError(`kind ${kind} is neither fill (0) nor revert (1)`);
  if (count < 1 || count > MAX_LEGS) throw new ReceiptError(`leg count ${count} is not 1 to ${MAX_LEGS}`);
  if (b[200] > 1 || !allZero(b.subarray(201, 208))) throw new ReceiptError('side bytes off the layout');
  const legs = decodeLegs(b, count);
  const view = viewOf(b);
  const atTaker = b.subarray(136, 168);
  return {
    version,
    kind: kind as 0 | 1,
    domain: toHex(b.subarray(16, 48)),
    journalSeq: view.getBigUint64(48, true),
    prevHash: toHex(b.subarray(56, 88)),
    rfqId: toHex(b.subarray(88, 104)),
    quoteId: toHex(b.subarray(104, 136)),
    takerCommitment: version === 2 ? toHex(atTaker) : null,
    taker: version === 1 ? encodeWallet(atTaker) : null,
    maker: encodeWallet(b.subarray(168, 200)),
    side: b[200] === 0 ? 'buy' : 'sell',
    price: view.getBigInt64(208, true),
    fee: view.getBigInt64(216, true),
    at: Number(view.getBigInt64(224, true)),
    fillId: view.getBigUint64(232, true),
    legs,
  };
}
