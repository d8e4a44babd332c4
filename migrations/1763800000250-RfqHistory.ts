import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A year of history (docs/spec/design.md 17): the history sweep deletes an ended RFQ without a
 * fill, and the rfq_events of one with a fill, RFQ_HISTORY_DAYS after it ended. `events_pruned_at`
 * marks a kept RFQ whose events are gone (the ended_at they were pruned at: a later revert moves
 * ended_at and makes the RFQ due again); `rfqs_history_due` gives the sweep its candidates, oldest
 * end first, without scanning the RFQs it is done with. Adding a nullable column rewrites nothing.
 * Numbered far ahead so that it sorts after the migrations of parallel branches.
 */
export class RfqHistory1763800000250 implements MigrationInterface {
  name = 'RfqHistory1763800000250';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE rfqs ADD COLUMN IF NOT EXISTS events_pruned_at bigint`);
    await q.query(
      `CREATE INDEX IF NOT EXISTS rfqs_history_due ON rfqs (ended_at, id) WHERE ended_at IS NOT NULL AND events_pruned_at IS DISTINCT FROM ended_at`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS rfqs_history_due`);
    await q.query(`ALTER TABLE rfqs DROP COLUMN IF EXISTS events_pruned_at`);
  }
}
