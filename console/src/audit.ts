/**
 * The admin audit log checked in the browser (docs/spec/design.md section 16), trusting nothing the
 * server says about it: every row's hash is recomputed here from the row itself, and every link
 * from the head back to the first row (whose prev_hash is 64 zeros) must hold.
 */

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

export interface AuditRow {
  audit_seq: number;
  at: number;
  actor: { via: 'admin_token' | 'session'; account_id: number | null; wallet: string | null; jti: string | null };
  client_ip: string;
  action: string;
  target: Json;
  params: Json;
  status: number;
  prev_hash: string;
  hash: string;
}
interface AuditHead {
  audit_seq: number;
  hash: string;
}
export interface AuditPage {
  rows: AuditRow[];
  next_cursor?: string;
  head: AuditHead;
}

const ZERO_HASH = '0'.repeat(64);

/** RFC 8785 for what the log holds (strings, integers, booleans, null, objects, arrays): keys sorted by UTF-16 units, no whitespace. */
export function canonicalJson(value: Json): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isSafeInteger(value)) throw new Error(`not an integer: ${value}`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  return `{${Object.keys(value)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`)
    .join(',')}}`;
}

const hexBytes = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (pair) => parseInt(pair, 16));
const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');

/** SHA-256(prev_hash bytes || UTF-8 of the row without hash as canonical JSON), with WebCrypto. */
export async function auditRowHash(row: AuditRow): Promise<string> {
  const { hash: _hash, ...rest } = row;
  if (!/^[0-9a-f]{64}$/.test(row.prev_hash)) throw new Error('prev_hash is not 64 hex characters');
  const text = new TextEncoder().encode(canonicalJson(rest));
  const bytes = new Uint8Array(32 + text.length);
  bytes.set(hexBytes(row.prev_hash), 0);
  bytes.set(text, 32);
  return hex(await crypto.subtle.digest('SHA-256', bytes));
}

export type AuditVerdict = { ok: true; head: AuditHead; checked: number } | { ok: false; head: AuditHead; checked: number; brokenAt: number; problem: string };

/**
 * Walks the log from the head back to row 1, a page at a time (`page(after)`: newest first, older
 * than `after`). Each row must be the next seq down, hash to its own hash, and be the row the
 * newer one links to; row 1 must link to 64 zeros. The verdict names the first row (from the
 * oldest) whose link does not hold as it is found walking back.
 */
export async function verifyAuditLog(page: (after: string | undefined) => Promise<AuditPage>): Promise<AuditVerdict> {
  const first = await page(undefined);
  const head = first.head;
  let expectedSeq = head.audit_seq;
  let expectedHash = head.hash;
  let checked = 0;
  let current: AuditPage = first;
  const broken = (brokenAt: number, problem: string): AuditVerdict => ({ ok: false, head, checked, brokenAt, problem });
  for (;;) {
    for (const row of current.rows) {
      // Rows newer than the head read with the first page are not this walk's.
      if (row.audit_seq > head.audit_seq) continue;
      if (row.audit_seq !== expectedSeq) return broken(expectedSeq, `row ${expectedSeq} is missing (found ${row.audit_seq})`);
      let own: string;
      try {
        own = await auditRowHash(row);
      } catch (e) {
        return broken(row.audit_seq, `the row cannot be hashed: ${(e as Error).message}`);
      }
      if (own !== row.hash) return broken(row.audit_seq, 'its hash is not the hash of the row');
      if (row.hash !== expectedHash)
        return expectedSeq === head.audit_seq
          ? broken(row.audit_seq, 'its hash is not the head')
          : broken(row.audit_seq + 1, `its prev_hash is not the hash of row ${row.audit_seq}`);
      expectedHash = row.prev_hash;
      expectedSeq -= 1;
      checked += 1;
    }
    if (!current.next_cursor || expectedSeq === 0) break;
    current = await page(current.next_cursor);
  }
  if (expectedSeq !== 0) return broken(expectedSeq, `row ${expectedSeq} is missing`);
  if (expectedHash !== ZERO_HASH) return broken(1, 'the first row does not link to 64 zeros');
  return { ok: true, head, checked };
}
