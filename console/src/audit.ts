import { type AuditRow, ZERO_HASH, auditHash } from '@legwork/protocol';

/**
 * The admin audit log checked in the browser (docs/spec/design.md section 16), trusting nothing the
 * server says about it: every row's hash is recomputed here from the row itself (with the server's
 * own canonical JSON and hash, `@legwork/protocol`'s auditHash), and every link from the head back
 * to the first row (whose prev_hash is 64 zeros) must hold.
 */

export type { AuditRow } from '@legwork/protocol';

interface AuditHead {
  audit_seq: number;
  hash: string;
}
export interface AuditPage {
  rows: AuditRow[];
  next_cursor?: string;
  head: AuditHead;
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
        own = auditHash(row);
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
