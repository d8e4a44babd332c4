import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * rfq.maker.quotes lists a maker's competitive quotes too (docs/spec/design.md 19): keyset indexes
 * on competition_quotes by (maker, received_at_ms, quote_id), all and live (not ended), as
 * migration 1763800000360 made them on rfqs for the seed quotes.
 */
export class CompetitiveMakerQuotes1763800000390 implements MigrationInterface {
  name = 'CompetitiveMakerQuotes1763800000390';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX IF NOT EXISTS competition_quotes_maker_quotes ON competition_quotes (maker_account_id, received_at_ms, quote_id)`);
    await q.query(
      `CREATE INDEX IF NOT EXISTS competition_quotes_maker_quotes_live ON competition_quotes (maker_account_id, received_at_ms, quote_id) WHERE ending IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS competition_quotes_maker_quotes_live`);
    await q.query(`DROP INDEX IF EXISTS competition_quotes_maker_quotes`);
  }
}
