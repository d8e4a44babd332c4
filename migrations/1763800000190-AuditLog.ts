import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The admin audit log (docs/spec/design.md section 16): `audit_log`, one row per admin command,
 * chained by hash like the receipt journal (the primary key and the unique prev_hash: no fork), and
 * `audit_head`, the one row every append locks to take the next audit_seq and the hash to link to.
 * Numbered far ahead so that it sorts after the migrations of parallel branches.
 */
export class AuditLog1763800000190 implements MigrationInterface {
  name = 'AuditLog1763800000190';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE IF NOT EXISTS audit_log (
        audit_seq        bigint NOT NULL,
        at               bigint NOT NULL,
        actor_via        text NOT NULL,
        actor_account_id bigint,
        actor_wallet     text,
        actor_jti        text,
        client_ip        text NOT NULL,
        action           text NOT NULL,
        target           jsonb NOT NULL,
        params           jsonb NOT NULL,
        status           smallint NOT NULL,
        prev_hash        char(64) COLLATE "C" NOT NULL,
        hash             char(64) COLLATE "C" NOT NULL,
        CONSTRAINT audit_log_pkey PRIMARY KEY (audit_seq),
        CONSTRAINT audit_log_hash_key UNIQUE (hash),
        CONSTRAINT audit_log_prev_hash_key UNIQUE (prev_hash),
        CONSTRAINT audit_log_audit_seq_check CHECK (audit_seq >= 1),
        CONSTRAINT audit_log_actor_via_check CHECK (actor_via IN ('admin_token', 'session'))
      )`);
    // GET /v1/admin/audit's filters, newest first (each index is read backwards from the cursor).
    await q.query(`CREATE INDEX IF NOT EXISTS audit_log_action ON audit_log (action, audit_seq)`);
    await q.query(`CREATE INDEX IF NOT EXISTS audit_log_actor ON audit_log (actor_account_id, audit_seq)`);
    await q.query(`CREATE INDEX IF NOT EXISTS audit_log_actor_action ON audit_log (actor_account_id, action, audit_seq)`);
    await q.query(`
      CREATE TABLE IF NOT EXISTS audit_head (
        id        smallint NOT NULL,
        audit_seq bigint NOT NULL,
        hash      char(64) COLLATE "C" NOT NULL,
        CONSTRAINT audit_head_pkey PRIMARY KEY (id),
        CONSTRAINT audit_head_id_check CHECK (id = 1)
      )`);
    await q.query(`INSERT INTO audit_head (id, audit_seq, hash) VALUES (1, 0, repeat('0', 64)) ON CONFLICT (id) DO NOTHING`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS audit_head`);
    await q.query(`DROP TABLE IF EXISTS audit_log`);
  }
}
