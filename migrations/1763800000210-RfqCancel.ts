import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The taker's cancel (docs/spec/design.md 15): a cancelled RFQ ends in `expired` with the time of
 * the cancel in `cancelled_at`; no other state carries one. Numbered far ahead so that it sorts
 * after the migrations of parallel branches.
 */
export class RfqCancel1763800000210 implements MigrationInterface {
  name = 'RfqCancel1763800000210';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE rfqs ADD COLUMN IF NOT EXISTS cancelled_at bigint`);
    await q.query(`ALTER TABLE rfqs DROP CONSTRAINT IF EXISTS rfqs_cancelled_at_check`);
    await q.query(`ALTER TABLE rfqs ADD CONSTRAINT rfqs_cancelled_at_check CHECK (cancelled_at IS NULL OR state = 'expired')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE rfqs DROP CONSTRAINT IF EXISTS rfqs_cancelled_at_check`);
    await q.query(`ALTER TABLE rfqs DROP COLUMN IF EXISTS cancelled_at`);
  }
}
