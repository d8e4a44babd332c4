import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/spec/design.md section 20: every maker protection trip and reset is an audit row. A trip is
 * the exchange's own act, so the audit log's actor may now be `exchange` (besides the admin token
 * and a session).
 */
export class AuditExchangeActor1763800000300 implements MigrationInterface {
  name = 'AuditExchangeActor1763800000300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE audit_log DROP CONSTRAINT IF EXISTS audit_log_actor_via_check`);
    await q.query(`ALTER TABLE audit_log ADD CONSTRAINT audit_log_actor_via_check CHECK (actor_via IN ('admin_token', 'session', 'exchange'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE audit_log DROP CONSTRAINT IF EXISTS audit_log_actor_via_check`);
    await q.query(`ALTER TABLE audit_log ADD CONSTRAINT audit_log_actor_via_check CHECK (actor_via IN ('admin_token', 'session'))`);
  }
}
