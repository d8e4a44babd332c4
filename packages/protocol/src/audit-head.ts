import { utf8ToBytes } from '@noble/hashes/utils.js';
import { type AuditRow, type ChainPoint, canonicalJson, verifyAuditChain } from './audit-chain';
import { verifyEd25519 } from './ed25519';
import { fromHex } from './encoding';

/**
 * The audit log's head as the exchange signs it after each append (docs/spec/design.md section
 * 20): `GET /v1/admin/audit` answers it as `head`. An operator keeps a copy outside the database;
 * a tail cut or rewritten later no longer verifies against it.
 */
export interface SignedAuditHead extends ChainPoint {
  /** Unix seconds of the append the head is at. */
  at: number;
  /** The exchange key's id (`GET /v1/exchange/keys`). */
  key_id: string;
  /** ed25519 signature (hex) of `auditHeadPayload`. */
  signature: string;
}

/** The bytes the exchange signs: UTF-8 of `{ kind: "legwork.audit_head", service, audit_seq, hash, at }` as canonical JSON (RFC 8785). */
export function auditHeadPayload(service: string, head: { audit_seq: number; hash: string; at: number }): Uint8Array {
  return utf8ToBytes(canonicalJson({ kind: 'legwork.audit_head', service, audit_seq: head.audit_seq, hash: head.hash, at: head.at }));
}

/** Whether `signature` is the exchange's (this public key's) over the head. */
export function verifyAuditHeadSignature(service: string, head: SignedAuditHead, publicKey: Uint8Array): boolean {
  const signature = fromHex(head.signature);
  return signature !== null && signature.length === 64 && verifyEd25519(publicKey, auditHeadPayload(service, head), signature);
}

export type HeadVerdict = { ok: true; checked: number; last: ChainPoint } | { ok: false; broken_at: number; reason: string };

/**
 * The whole chain (rows from audit_seq 1, any order) checked against a head saved earlier: the
 * chain verifies, it reaches at least the saved head's audit_seq (a cut tail does not), and its row
 * there has the saved hash (a rewritten one does not). With `publicKey`, the saved head's own
 * signature is checked first (a forged saved head proves nothing).
 */
export function verifyAuditAgainstHead(
  rows: readonly AuditRow[],
  saved: SignedAuditHead,
  options: { service?: string; publicKey?: Uint8Array } = {},
): HeadVerdict {
  if (options.publicKey && options.service !== undefined && !verifyAuditHeadSignature(options.service, saved, options.publicKey)) {
    return { ok: false, broken_at: saved.audit_seq, reason: 'the saved head is not signed by the exchange key' };
  }
  const chain = verifyAuditChain(rows);
  if (!chain.ok) return chain;
  if (chain.last.audit_seq < saved.audit_seq) {
    return {
      ok: false,
      broken_at: chain.last.audit_seq + 1,
      reason: `the chain ends at audit_seq ${chain.last.audit_seq}, before the saved head ${saved.audit_seq}: its tail was cut`,
    };
  }
  const at = rows.find((row) => row.audit_seq === saved.audit_seq);
  if (!at || at.hash !== saved.hash)
    return { ok: false, broken_at: saved.audit_seq, reason: `row ${saved.audit_seq} is not the saved head's: the chain was rewritten` };
  return chain;
}
