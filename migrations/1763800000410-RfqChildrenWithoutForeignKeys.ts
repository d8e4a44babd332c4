import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The tables whose rows the history sweep deletes with their RFQ (docs/spec/design.md 17) lose
 * their foreign key to rfqs: `rfq_events`, `accepts`, `competition_quotes`, `competition_declines`
 * and `competition_transcripts` (`competition_panels` never had one). Each key fired a trigger per
 * deleted RFQ, six per RFQ with the three cascades, a check of the referencing table's index each:
 * about half of the sweep's time per RFQ (EXPLAIN ANALYZE of a 100-RFQ batch: 5.6 to 8.8 of 11 to
 * 14 ms). The sweep deletes these rows by name in the statement that deletes the RFQs; the rows are
 * only ever written in a transaction that holds their RFQ's row. `fills_rfq_id_fkey` stays: the
 * database itself refuses to delete an RFQ that has a fill.
 */
export class RfqChildrenWithoutForeignKeys1763800000410 implements MigrationInterface {
  name = 'RfqChildrenWithoutForeignKeys1763800000410';

  async up(q: QueryRunner): Promise<void> {
    for (const [table, constraint] of KEYS) await q.query(`ALTER TABLE ${table} DROP CONSTRAINT IF EXISTS ${constraint}`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [table, constraint, cascade] of KEYS)
      await q.query(`ALTER TABLE ${table} ADD CONSTRAINT ${constraint} FOREIGN KEY (rfq_id) REFERENCES rfqs (id)${cascade ? ' ON DELETE CASCADE' : ''}`);
  }
}

const KEYS: ReadonlyArray<readonly [string, string, boolean]> = [
  ['rfq_events', 'rfq_events_rfq_id_fkey', false],
  ['accepts', 'accepts_rfq_id_fkey', false],
  ['competition_quotes', 'competition_quotes_rfq_id_fkey', true],
  ['competition_declines', 'competition_declines_rfq_id_fkey', true],
  ['competition_transcripts', 'competition_transcripts_rfq_id_fkey', true],
];
