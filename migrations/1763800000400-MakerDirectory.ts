import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The makers directory's stats (docs/spec/design.md 18 "Choosing a panel") read a maker's last 7
 * days on indexes, never the history: `competition_panels` (one row per maker of a given panel,
 * keyed by maker then the RFQ's time-ordered id), the competitive RFQs without a panel by id
 * (they reach every quoter: no row per quoter), and the listed makers. No foreign key to rfqs:
 * the history sweep deletes an RFQ's rows in its own statement, without a cascade trigger per RFQ.
 */
export class MakerDirectory1763800000400 implements MigrationInterface {
  name = 'MakerDirectory1763800000400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE IF NOT EXISTS competition_panels (
        maker_account_id bigint NOT NULL CONSTRAINT competition_panels_maker_account_id_fkey REFERENCES accounts (id),
        rfq_id char(32) COLLATE "C" NOT NULL,
        CONSTRAINT competition_panels_pkey PRIMARY KEY (maker_account_id, rfq_id)
      )`);
    await q.query(`CREATE INDEX IF NOT EXISTS competition_panels_rfq ON competition_panels (rfq_id)`);
    await q.query(
      `INSERT INTO competition_panels (maker_account_id, rfq_id)
       SELECT a.id::bigint, r.id FROM rfqs r CROSS JOIN LATERAL jsonb_array_elements_text(
         CASE WHEN jsonb_typeof(r.competition->'accounts') = 'array' THEN r.competition->'accounts' ELSE '[]'::jsonb END) AS a(id)
        WHERE r.competition IS NOT NULL
       ON CONFLICT DO NOTHING`,
    );
    await q.query(`CREATE INDEX IF NOT EXISTS rfqs_competitive_unpaneled ON rfqs (id) WHERE competition IS NOT NULL AND (competition ->> 'accounts') IS NULL`);
    await q.query(`CREATE INDEX IF NOT EXISTS maker_profiles_listed ON maker_profiles (account_id) WHERE listed`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS maker_profiles_listed`);
    await q.query(`DROP INDEX IF EXISTS rfqs_competitive_unpaneled`);
    await q.query(`DROP TABLE IF EXISTS competition_panels`);
  }
}
