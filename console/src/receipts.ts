import bs58 from 'bs58';
import nacl from 'tweetnacl';

/** A fill receipt as /query/rfq-fills carries it (docs/spec/design.md 14). */
export interface Receipt {
  journal_seq: number;
  kind: number;
  payload: string;
  hash: string;
  key_id: string;
  signature: string;
}
export interface ExchangeKey {
  key_id: string;
  public_key: string;
  from: number;
}
export interface JournalRow {
  journal_seq: number;
  kind: number;
  hash: string;
  prev_hash: string;
  at: number;
}

const RECEIPT_BYTES = 1072;
const ZERO_HASH = '0'.repeat(64);
const base64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const hex = (bytes: ArrayBuffer | Uint8Array) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');
const sha256 = async (bytes: Uint8Array) => hex(await crypto.subtle.digest('SHA-256', bytes as BufferSource));

/**
 * Checks a receipt in the browser, trusting nothing the server says about it: the payload's
 * SHA-256 is its hash, the signature verifies under a published key whose id is the first 8
 * bytes of SHA-256 of the key, and the payload names this fill (fill_id at offset 232, kind at 14).
 * Resolves with null when it holds, else the first thing that does not.
 */
export async function checkReceipt(receipt: Receipt, keys: ExchangeKey[], fillId: string, kind: 0 | 1): Promise<string | null> {
  const payload = base64(receipt.payload);
  if (payload.length !== RECEIPT_BYTES) return `payload is ${payload.length} bytes, not ${RECEIPT_BYTES}`;
  if ((await sha256(payload)) !== receipt.hash) return 'hash is not the SHA-256 of the payload';
  const key = keys.find((k) => k.key_id === receipt.key_id);
  if (!key) return `key ${receipt.key_id} is not published`;
  const publicKey = bs58.decode(key.public_key);
  if ((await sha256(publicKey)).slice(0, 16) !== key.key_id) return 'key id does not match the key';
  if (!nacl.sign.detached.verify(payload, base64(receipt.signature), publicKey)) return 'signature does not verify';
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  if (view.getBigUint64(232, true).toString() !== fillId) return 'payload names another fill';
  if (payload[14] !== kind) return `payload kind ${payload[14]}, expected ${kind}`;
  if (view.getBigUint64(48, true) !== BigInt(receipt.journal_seq)) return 'payload journal_seq differs';
  return null;
}

/**
 * Walks the journal from the start and checks its links: journal_seq 1, 2, 3, … without a gap,
 * the first prev_hash zero, each prev_hash the hash before it, and the last hash the head's.
 */
export async function verifyJournal(
  page: (after: number) => Promise<{ rows: JournalRow[]; head: { journal_seq: number; hash: string } }>,
): Promise<{ ok: boolean; checked: number; head: { journal_seq: number; hash: string }; problem: string | null }> {
  let after = 0;
  let previous = ZERO_HASH;
  let head: { journal_seq: number; hash: string };
  for (;;) {
    const segment = await page(after);
    head = segment.head;
    for (const row of segment.rows) {
      if (row.journal_seq !== after + 1) return { ok: false, checked: after, head, problem: `gap: ${row.journal_seq} after ${after}` };
      if (row.prev_hash !== previous)
        return { ok: false, checked: after, head, problem: `broken link at ${row.journal_seq}: prev_hash is not the hash of ${after}` };
      previous = row.hash;
      after = row.journal_seq;
    }
    if (segment.rows.length === 0 || after >= head.journal_seq) break;
  }
  // The head may have moved on while we walked; what we walked must be on its chain.
  if (after === head.journal_seq && previous !== head.hash) return { ok: false, checked: after, head, problem: 'the last hash is not the head' };
  return { ok: true, checked: after, head, problem: null };
}
