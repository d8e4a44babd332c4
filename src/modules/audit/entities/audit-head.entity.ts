import { Check, Column, Entity, PrimaryColumn } from 'typeorm';
import { bigint } from '../../../common/database/columns';

/**
 * The one row (id 1) every admin command's audit append locks to take the next audit_seq and the
 * hash to link to: appends are serialized on it across instances, so the chain never forks.
 */
@Entity('audit_head')
@Check('audit_head_id_check', 'id = 1')
export class AuditHeadEntity {
  @PrimaryColumn({ name: 'id', type: 'smallint', primaryKeyConstraintName: 'audit_head_pkey' })
  id!: number;

  @Column(bigint('audit_seq'))
  auditSeq!: bigint;

  @Column({ name: 'hash', type: 'char', length: 64, collation: 'C' })
  hash!: string;

  /** The head's signature by the exchange key (docs/spec/design.md section 20); null before the first append. */
  @Column(bigint('at', { nullable: true }))
  at!: bigint | null;

  @Column({ name: 'key_id', type: 'text', nullable: true })
  keyId!: string | null;

  @Column({ name: 'signature', type: 'text', nullable: true })
  signature!: string | null;
}
