import { utf8ToBytes } from '@noble/hashes/utils.js';
import { LONE_SURROGATE, canonicalJson } from './canonical-json';
import { fromHex, toHex } from './encoding';
import { sha256 } from './sha256';

/**
 * The admin audit log as a hash chain (docs/spec/design.md section 16): each row's hash covers
 * the hash before it, so a row changed, removed or inserted afterwards breaks every link from
 * there on, and anyone holding the rows can check them without trusting the server: the server
 * hashes each row with these functions, and the operator console checks the chain with them.
 */

/** What an audit row holds: strings, integers, booleans, null, and objects and arrays of them (never a float). */
export type AuditValue = string | number | boolean | null | AuditValue[] | { [key: string]: AuditValue };

export const ZERO_HASH = '0'.repeat(64);

/** RFC 8785 canonical JSON, shared with the RFQ transcript (canonical-json.ts); re-exported here where the audit log has always had it. */
export { LONE_SURROGATE, canonicalJson };

/** Who ran an admin command: the admin token (no account) or a session of an admin account. */
export interface AuditActor {
  via: 'admin_token' | 'session';
  account_id: number | null;
  wallet: string | null;
  /** The session token's `jti`; null for the admin token. */
  jti: string | null;
}

/** One row of the audit log, as GET /v1/admin/audit answers it and as it is hashed. */
export interface AuditRow {
  audit_seq: number;
  /** Unix seconds. */
  at: number;
  actor: AuditActor;
  client_ip: string;
  /** The command: the last path segment of its route, as its `admin:<command>` scope names it. */
  action: string;
  /** The route's path parameters (`{ account_id: "12" }`), or null when it has none. */
  target: AuditValue;
  /** The request body with signatures and secrets dropped (`redactParams`). */
  params: AuditValue;
  /** The HTTP status the command was answered with. */
  status: number;
  prev_hash: string;
  hash: string;
}

/** SHA-256(prev_hash bytes || UTF-8 of the row without `hash` as canonical JSON), in lowercase hex. */
export function auditHash(row: Omit<AuditRow, 'hash'> & { hash?: string }): string {
  const { hash: _hash, ...rest } = row;
  if (!/^[0-9a-f]{64}$/.test(row.prev_hash)) throw new Error('prev_hash is not 64 lowercase hex characters');
  return toHex(sha256(fromHex(row.prev_hash)!, utf8ToBytes(canonicalJson(rest))));
}

/** Where a walk of the chain stands: the last row it trusts. */
export interface ChainPoint {
  audit_seq: number;
  hash: string;
}

export type ChainVerdict = { ok: true; checked: number; last: ChainPoint } | { ok: false; broken_at: number; reason: string };

/**
 * Walks rows (in any order; they are taken by audit_seq) and reports the first link that does not
 * hold: a gap or a repeat in audit_seq, a prev_hash that is not the hash before it (row 1: 64 zeros),
 * or a hash that is not the row's own. `from` is the row just before the first one given (a page
 * in the middle of the chain); without it the rows must start at audit_seq 1. With `head`, the last
 * row, when it is the head's, must have the head's hash. Pure: it trusts nothing but the rows.
 */
export function verifyAuditChain(rows: readonly AuditRow[], options: { from?: ChainPoint; head?: ChainPoint } = {}): ChainVerdict {
  const sorted = [...rows].sort((a, b) => a.audit_seq - b.audit_seq);
  let previous: ChainPoint = options.from ?? { audit_seq: 0, hash: ZERO_HASH };
  for (const row of sorted) {
    const seq = row.audit_seq;
    if (seq !== previous.audit_seq + 1) return { ok: false, broken_at: seq, reason: `audit_seq ${seq} follows ${previous.audit_seq}` };
    if (row.prev_hash !== previous.hash) return { ok: false, broken_at: seq, reason: `prev_hash is not the hash of row ${previous.audit_seq}` };
    let hash: string;
    try {
      hash = auditHash(row);
    } catch (error) {
      return { ok: false, broken_at: seq, reason: `the row cannot be hashed: ${(error as Error).message}` };
    }
    if (hash !== row.hash) return { ok: false, broken_at: seq, reason: 'hash is not the hash of the row' };
    previous = { audit_seq: seq, hash };
  }
  const head = options.head;
  if (head && head.audit_seq === previous.audit_seq && head.hash !== previous.hash)
    return { ok: false, broken_at: previous.audit_seq, reason: 'the last hash is not the head' };
  return { ok: true, checked: sorted.length, last: previous };
}
