import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/spec/design.md section 20: the audit log is anchored. After each append the exchange signs
 * its head; audit_head keeps the head's time, the signing key's id and the signature (null before
 * the first append), and GET /v1/admin/audit answers them.
 */
export class AuditHeadSigned1763800000301 implements MigrationInterface {
  name = 'AuditHeadSigned1763800000301';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE audit_head ADD COLUMN IF NOT EXISTS at bigint, ADD COLUMN IF NOT EXISTS key_id text, ADD COLUMN IF NOT EXISTS signature text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE audit_head DROP COLUMN IF EXISTS at, DROP COLUMN IF EXISTS key_id, DROP COLUMN IF EXISTS signature`);
  }
}
