import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes of the operator console's admin reads (src/modules/console): RFQs by state (the
 * overview's counts and the RFQ table's state filter, newest first) and fills by time (fills per
 * minute). Numbered far ahead so that it sorts after the migrations of parallel branches.
 */
export class ConsoleReads1763800000170 implements MigrationInterface {
  name = 'ConsoleReads1763800000170';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX IF NOT EXISTS rfqs_state ON rfqs (state, id DESC)`);
    await q.query(`CREATE INDEX IF NOT EXISTS fills_filled_at ON fills (filled_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS fills_filled_at`);
    await q.query(`DROP INDEX IF EXISTS rfqs_state`);
  }
}
