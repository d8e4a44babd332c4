import { encodeReceipt, type ReceiptFields } from '@legwork/protocol';
import { asBuffer } from '../../../common/bytes';

/** Where a receipt's chain fields and the taker's commitment sit (docs/spec/design.md 14). */
const JOURNAL_SEQ_AT = 48;
const PREV_HASH_AT = 56;
const TAKER_AT = 136;
const HASH_SIZE = 32;

/**
 * The receipt a fill or revert stages in its own transaction (docs/receipts.md): every byte of the
 * version 2 layout but journal_seq, prev_hash and the taker's commitment, which stay zero until the
 * appender chains it (`linkReceipt`). The layout's checks run here, in the fill's transaction, so a
 * receipt that cannot be encoded rolls the fill back as before.
 */
export function unlinkedBody(fields: Omit<ReceiptFields, 'journalSeq' | 'prevHash' | 'takerCommitment' | 'taker' | 'version'>): Buffer {
  const body = asBuffer(encodeReceipt({ ...fields, journalSeq: 1n, prevHash: new Uint8Array(HASH_SIZE), takerCommitment: new Uint8Array(HASH_SIZE) }));
  body.fill(0, JOURNAL_SEQ_AT, PREV_HASH_AT);
  return body;
}

/**
 * The signed bytes of a staged receipt once its place in the chain is known: a copy of `body`
 * with journal_seq, prev_hash and the taker's commitment written in; byte for byte what
 * encodeReceipt makes of the same fields.
 */
export function linkReceipt(body: Uint8Array, journalSeq: bigint, prevHash: Uint8Array, takerCommitment: Uint8Array): Buffer {
  if (prevHash.length !== HASH_SIZE || takerCommitment.length !== HASH_SIZE) throw new Error('prev_hash and the taker commitment are 32 bytes');
  const payload = Buffer.from(body);
  payload.writeBigUInt64LE(journalSeq, JOURNAL_SEQ_AT);
  payload.set(prevHash, PREV_HASH_AT);
  payload.set(takerCommitment, TAKER_AT);
  return payload;
}
