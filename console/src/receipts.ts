import bs58 from 'bs58';
import nacl from 'tweetnacl';

/** A fill receipt as /query/rfq-fills carries it (docs/spec/design.md 14); the taker's rows add `taker_salt` (section 16). */
export interface Receipt {
  journal_seq: number;
  kind: number;
  payload: string;
  hash: string;
  key_id: string;
  signature: string;
  taker_salt?: string;
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
const TAG = 'STRATEGY_FILL';
const TAKER_TAG = new TextEncoder().encode('LEGWORK_TAKER');
const ZERO_HASH = '0'.repeat(64);
const base64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const hex = (bytes: ArrayBuffer | Uint8Array) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');
const sha256 = async (bytes: Uint8Array) => hex(await crypto.subtle.digest('SHA-256', bytes as BufferSource));

/**
 * `SHA-256("LEGWORK_TAKER" || salt || taker wallet key)` in hex: what a version 2 receipt holds
 * at offset 136 instead of the taker's key (docs/spec/design.md 16).
 */
async function takerCommitment(saltHex: string, wallet: string): Promise<string> {
  if (!/^[0-9a-f]{64}$/.test(saltHex)) throw new Error('taker_salt is not 64 hex characters');
  const salt = Uint8Array.from(saltHex.match(/../g)!, (b) => parseInt(b, 16));
  const key = bs58.decode(wallet);
  if (key.length !== 32) throw new Error('the wallet is not a 32-byte key');
  return sha256(new Uint8Array([...TAKER_TAG, ...salt, ...key]));
}

/**
 * Offset 136 against the taker's wallet: version 1 holds the key itself, version 2 the commitment,
 * which only the taker's copy (with `taker_salt`) can recompute. null when it is this taker's.
 */
async function takerProblem(payload: Uint8Array, receipt: Receipt, wallet: string): Promise<string | null> {
  const field = payload.subarray(136, 168);
  if (payload[13] === 1) return hex(field) === hex(bs58.decode(wallet)) ? null : 'the receipt names another taker';
  if (receipt.taker_salt === undefined) return "no taker_salt: not the taker's copy";
  return hex(field) === (await takerCommitment(receipt.taker_salt, wallet)) ? null : "the taker's commitment does not hold";
}

/**
 * Checks a receipt in the browser, trusting nothing the server says about it: a STRATEGY_FILL
 * receipt of version 2 (or 1, signed before the taker's commitment), the payload's SHA-256 is its
 * hash, the signature verifies under a published key whose id is the first 8 bytes of SHA-256 of
 * the key, and the payload names this fill (fill_id at offset 232, kind at 14). With `taker` (the
 * wallet of a taker row), offset 136 is that taker's. Resolves with null when it holds, else the
 * first thing that does not.
 */
export async function checkReceipt(receipt: Receipt, keys: ExchangeKey[], fillId: string, kind: 0 | 1, taker?: string): Promise<string | null> {
  const payload = base64(receipt.payload);
  if (payload.length !== RECEIPT_BYTES) return `payload is ${payload.length} bytes, not ${RECEIPT_BYTES}`;
  if (String.fromCharCode(...payload.subarray(0, 13)) !== TAG) return 'not a STRATEGY_FILL receipt';
  if (payload[13] !== 1 && payload[13] !== 2) return `receipt version ${payload[13]} is not 1 or 2`;
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
  return taker === undefined ? null : takerProblem(payload, receipt, taker);
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
