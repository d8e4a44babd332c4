import { Check, Column, Entity, Index, PrimaryColumn, Unique } from 'typeorm';
import { bigint, bigintColumn } from '../../../common/database/columns';

/**
 * One admin command, who ran it and how it ended, chained by hash (docs/spec/design.md section 16;
 * the row's JSON form and its hash: audit/domain/audit-chain.ts). Kept for ever. The actor's
 * account is not a foreign key: the log records who acted as the exchange saw them, and must never
 * stop a command or a later change of the accounts table.
 */
@Entity('audit_log')
@Unique('audit_log_hash_key', ['hash'])
@Unique('audit_log_prev_hash_key', ['prevHash'])
@Check('audit_log_audit_seq_check', 'audit_seq >= 1')
@Check('audit_log_actor_via_check', "actor_via IN ('admin_token', 'session', 'exchange')")
// GET /v1/admin/audit filters, newest first (each index is read backwards from the cursor).
@Index('audit_log_action', ['action', 'auditSeq'])
@Index('audit_log_actor', ['actorAccountId', 'auditSeq'])
@Index('audit_log_actor_action', ['actorAccountId', 'action', 'auditSeq'])
export class AuditEntryEntity {
  /** Gapless: the primary key and the unique prev_hash keep the chain from forking. */
  @PrimaryColumn({ name: 'audit_seq', type: 'bigint', transformer: bigintColumn, primaryKeyConstraintName: 'audit_log_pkey' })
  auditSeq!: bigint;

  /** Unix seconds. */
  @Column(bigint('at'))
  at!: bigint;

  @Column({ name: 'actor_via', type: 'text' })
  actorVia!: 'admin_token' | 'session' | 'exchange';

  @Column(bigint('actor_account_id', { nullable: true }))
  actorAccountId!: bigint | null;

  @Column({ name: 'actor_wallet', type: 'text', nullable: true })
  actorWallet!: string | null;

  @Column({ name: 'actor_jti', type: 'text', nullable: true })
  actorJti!: string | null;

  @Column({ name: 'client_ip', type: 'text' })
  clientIp!: string;

  @Column({ name: 'action', type: 'text' })
  action!: string;

  @Column({ name: 'target', type: 'jsonb' })
  target!: unknown;

  @Column({ name: 'params', type: 'jsonb' })
  params!: unknown;

  @Column({ name: 'status', type: 'smallint' })
  status!: number;

  @Column({ name: 'prev_hash', type: 'char', length: 64, collation: 'C' })
  prevHash!: string;

  @Column({ name: 'hash', type: 'char', length: 64, collation: 'C' })
  hash!: string;
}
