import { DecimalError, parseHttpDecimal } from './decimal';
import { fromBase64, fromHex, toHex } from './encoding';
import { verifyEd25519 } from './ed25519';
import { type DecodedReceipt, ReceiptError, type ReceiptKind, decodeReceipt, keyIdOf, receiptHash, takerCommitment } from './receipt';
import { signingDomain } from './quote-payload';
import { parseWallet } from './wallet';

/**
 * Fill receipts and the journal (docs/spec/design.md sections 14 and 16): verify a StrategyFillReceipt's
 * signature and layout (version 2, and version 1 receipts already in a journal) and that it is the
 * receipt of a given fill, prove and check who its taker was (the commitment of version 2), and
 * check a journal segment's links. How and what it proves: docs/receipts.md. What a client of the
 * exchange checks, in Node (the SDK, the tools) and in a browser (the operator console) alike.
 */

const ZERO_HASH = '0'.repeat(64);

/** A receipt as the exchange sends it (`rfq.fill.receipt`, `/query/rfq-fills` rows). */
export interface Receipt {
  journal_seq: number;
  kind: ReceiptKind;
  payload: string;
  hash: string;
  key_id: string;
  signature: string;
  /**
   * The taker's copies only: the salt (hex) of the taker's commitment at offset 136 of a version 2
   * receipt. Keep it: with it, and only with it, the taker can show that the fill was its own.
   */
  taker_salt?: string;
}

/** A key of `GET /v1/exchange/keys`. */
export interface ExchangeKeyInfo {
  key_id: string;
  public_key: string;
  from: number;
}

/** The payload's bytes; throws ReceiptError unless it is canonical base64. */
function payloadBytes(receipt: Receipt): Uint8Array {
  const payload = typeof receipt.payload === 'string' ? fromBase64(receipt.payload) : null;
  if (!payload) throw new ReceiptError('payload is not canonical base64');
  return payload;
}

/** A decimal of the wire (RFQ form, or the 8-place HTTP form) in micro-units. */
function micro(text: string | number | bigint): bigint {
  if (typeof text === 'bigint') return text;
  try {
    return parseHttpDecimal(String(text));
  } catch (error) {
    throw new ReceiptError(error instanceof DecimalError ? error.message : `${text} is not a decimal`);
  }
}

/** A fill as a client has it: an `rfq.fill` of an event, or a `/query/rfq-fills` row (with rfq_id and legs). */
export interface FillToMatch {
  fill_id: string;
  side: 'buy' | 'sell';
  price: string;
  fee?: string;
  filled_at: number | string;
  rfq_id?: string;
  quote_id?: string;
  role?: 'taker' | 'maker';
  legs?: ReadonlyArray<{ instrument: string; quantity: string }>;
}

export interface VerifyReceiptOptions {
  /** `GET /v1/exchange/keys`. */
  keys: readonly ExchangeKeyInfo[];
  /**
   * The service the receipt must be for (its domain); default Legwork. null: any service, for a
   * reader that does not know the service's name (the operator console, which takes the keys
   * from the same server).
   */
  serviceName?: string | null;
  /** The fill the receipt must be of; its revert receipt when `kind` is 1. */
  fill?: FillToMatch;
  /**
   * The taker's wallet (base58) the receipt must be of: version 1, the key at offset 136; version 2,
   * the commitment recomputed from `receipt.taker_salt` (refused without one).
   */
  taker?: string;
}

/**
 * Verifies a receipt: the payload is on the layout, its SHA-256 is `hash`, the exchange key
 * `key_id` signed it, `journal_seq` and `kind` are the payload's, the domain is the service's,
 * and (with `fill`) it is that fill's: same fill id, side, price, fee (taker rows), time (fills),
 * RFQ, quote and legs. The decoded receipt; throws ReceiptError naming the first mismatch.
 */
export function verifyReceipt(receipt: Receipt, options: VerifyReceiptOptions): DecodedReceipt {
  const payload = payloadBytes(receipt);
  const decoded = decodeReceipt(payload);
  if (toHex(receiptHash(payload)) !== receipt.hash) throw new ReceiptError('hash is not the SHA-256 of the payload');
  const key = options.keys.find((k) => k.key_id === receipt.key_id);
  if (!key) throw new ReceiptError(`key ${receipt.key_id} is not one of the exchange's keys`);
  const publicKey = parseWallet(key.public_key);
  if (keyIdOf(publicKey) !== key.key_id) throw new ReceiptError("key_id is not the public key's");
  const signature = typeof receipt.signature === 'string' ? fromBase64(receipt.signature) : null;
  if (!signature || !verifyEd25519(publicKey, payload, signature)) throw new ReceiptError('signature does not verify with the exchange key');
  if (decoded.journalSeq !== BigInt(receipt.journal_seq)) throw new ReceiptError("journal_seq differs from the payload's");
  if (decoded.kind !== receipt.kind) throw new ReceiptError("kind differs from the payload's");
  if (options.serviceName !== null && decoded.domain !== toHex(signingDomain(options.serviceName)))
    throw new ReceiptError('the receipt is for another service (domain)');
  if (options.taker !== undefined && !isTakerOf(receipt, options.taker)) throw new ReceiptError(`the receipt's taker is not ${options.taker}`);
  const fill = options.fill;
  if (fill) {
    const differs = (field: string) => new ReceiptError(`${field} differs from the fill's`);
    if (decoded.fillId !== BigInt(fill.fill_id)) throw differs('fill_id');
    if (decoded.side !== fill.side) throw differs('side');
    if (decoded.price !== micro(fill.price)) throw differs('price');
    if (fill.fee !== undefined && fill.role !== 'maker' && decoded.fee !== micro(fill.fee)) throw differs('fee');
    if (decoded.kind === 0 && decoded.at !== Number(fill.filled_at)) throw differs('filled_at');
    if (fill.rfq_id !== undefined && decoded.rfqId !== fill.rfq_id) throw differs('rfq_id');
    if (fill.quote_id !== undefined && decoded.quoteId !== fill.quote_id) throw differs('quote_id');
    if (fill.legs !== undefined) {
      if (fill.legs.length !== decoded.legs.length) throw differs('leg count');
      fill.legs.forEach((leg, i) => {
        if (leg.instrument !== decoded.legs[i].instrument || micro(leg.quantity) !== decoded.legs[i].quantity) throw differs(`legs[${i}]`);
      });
    }
  }
  return decoded;
}

/** `SHA-256("LEGWORK_TAKER" || salt || taker key)` in hex: what a version 2 receipt holds at offset 136. */
export function takerCommitmentOf(takerSalt: string, taker: string): string {
  if (!/^[0-9a-f]{64}$/.test(takerSalt)) throw new ReceiptError('taker_salt is not 64 lowercase hex characters');
  return toHex(takerCommitment(fromHex(takerSalt)!, parseWallet(taker)));
}

/**
 * Whether `taker` (a wallet, base58) took the fill of this receipt: version 1 names the wallet;
 * version 2 holds the commitment, recomputed from `takerSalt` (default: the receipt's own
 * `taker_salt`, which only the taker's copy has). False, never a throw, for a wrong salt or none.
 */
export function isTakerOf(receipt: Receipt, taker: string, takerSalt: string | undefined = receipt.taker_salt): boolean {
  const decoded = decodeReceipt(payloadBytes(receipt));
  if (decoded.version === 1) return decoded.taker === taker;
  if (takerSalt === undefined || !/^[0-9a-f]{64}$/.test(takerSalt)) return false;
  return takerCommitmentOf(takerSalt, taker) === decoded.takerCommitment;
}

/** What a taker shows to prove a fill was its own: the receipt, its wallet and the salt. */
export interface TakerProof {
  receipt: Receipt;
  taker: string;
  taker_salt: string;
}

/** The proof a taker hands over, from its copy of a receipt (which carries `taker_salt`). */
export function takerProof(receipt: Receipt, taker: string): TakerProof {
  if (receipt.taker_salt === undefined) throw new ReceiptError("this copy of the receipt has no taker_salt: only the taker's copy can prove it");
  const proof = { receipt: { ...receipt }, taker, taker_salt: receipt.taker_salt };
  if (!isTakerOf(proof.receipt, taker)) throw new ReceiptError(`the receipt's taker is not ${taker}`);
  return proof;
}

/**
 * Checks a taker's proof: the receipt verifies (signature, layout, `keys`) and its taker is the
 * wallet shown, by the commitment and the salt shown (version 2) or the key it names (version 1).
 * The decoded receipt; throws ReceiptError when it does not hold.
 */
export function verifyTakerProof(proof: TakerProof, options: Omit<VerifyReceiptOptions, 'taker'>): DecodedReceipt {
  return verifyReceipt({ ...proof.receipt, taker_salt: proof.taker_salt }, { ...options, taker: proof.taker });
}

/** A row of `GET /v1/exchange/journal`. */
export interface JournalRow {
  journal_seq: number;
  kind: 0 | 1;
  hash: string;
  prev_hash: string;
  at: number;
}

export type JournalCheck = { ok: true; head: { journal_seq: number; hash: string } } | { ok: false; journal_seq: number; problem: string };

/**
 * Checks a journal segment: numbers continue `after` one by one, and each row's prev_hash is the
 * hash of the row before (`after.hash` for the first; zero before journal_seq 1). The last row as
 * the head, or the first broken link.
 */
export function verifyJournalSegment(
  rows: readonly JournalRow[],
  after: { journal_seq: number; hash: string } = { journal_seq: 0, hash: ZERO_HASH },
): JournalCheck {
  let previous = after;
  for (const row of rows) {
    if (row.journal_seq !== previous.journal_seq + 1)
      return { ok: false, journal_seq: previous.journal_seq + 1, problem: `journal_seq ${previous.journal_seq + 1} is missing (next is ${row.journal_seq})` };
    if (row.prev_hash !== previous.hash)
      return {
        ok: false,
        journal_seq: row.journal_seq,
        problem: `prev_hash ${row.prev_hash} is not the hash ${previous.hash} of journal_seq ${previous.journal_seq}`,
      };
    if (!/^[0-9a-f]{64}$/.test(row.hash)) return { ok: false, journal_seq: row.journal_seq, problem: 'hash is not 64 hex characters' };
    previous = { journal_seq: row.journal_seq, hash: row.hash };
  }
  return { ok: true, head: previous };
}

/** Checks a receipt's row in the journal: the row's hash and prev_hash are the receipt's. */
export function receiptInJournal(receipt: Receipt, row: JournalRow): boolean {
  const decoded = decodeReceipt(payloadBytes(receipt));
  return row.journal_seq === receipt.journal_seq && row.hash === receipt.hash && row.prev_hash === decoded.prevHash;
}
