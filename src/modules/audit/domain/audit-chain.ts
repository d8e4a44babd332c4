/**
 * The admin audit log as a hash chain (docs/spec/design.md section 16): its row, its canonical JSON
 * and its hash are `@legwork/protocol`'s, which the operator console checks the chain with too.
 */
export {
  type AuditValue,
  type AuditActor,
  type AuditRow,
  type ChainPoint,
  ZERO_HASH,
  LONE_SURROGATE,
  canonicalJson,
  auditHash,
  verifyAuditChain,
} from '@legwork/protocol';
