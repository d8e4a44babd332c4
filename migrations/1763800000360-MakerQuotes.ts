import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A maker's own quotes (docs/spec/design.md section 19, rfq.maker.quotes): when each quote was
 * taken, in unix milliseconds, and the two keyset indexes of the list, newest first (scanned
 * backwards): every quote of a maker, and its quotes on RFQs still `quoted`. Quotes taken before
 * this migration get their `issued_at` (the nearest time known).
 */
export class MakerQuotes1763800000360 implements MigrationInterface {
  name = 'MakerQuotes1763800000360';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE rfqs ADD COLUMN IF NOT EXISTS quote_received_at_ms bigint`);
    await q.query(`UPDATE rfqs SET quote_received_at_ms = issued_at * 1000 WHERE quote_id IS NOT NULL AND quote_received_at_ms IS NULL`);
    await q.query(`ALTER TABLE rfqs DROP CONSTRAINT IF EXISTS rfqs_quote_received_check`);
    await q.query(`ALTER TABLE rfqs ADD CONSTRAINT rfqs_quote_received_check CHECK ((quote_id IS NULL) = (quote_received_at_ms IS NULL))`);
    await q.query(`CREATE INDEX IF NOT EXISTS rfqs_maker_quotes ON rfqs (maker_account_id, quote_received_at_ms, quote_id) WHERE quote_id IS NOT NULL`);
    await q.query(`CREATE INDEX IF NOT EXISTS rfqs_maker_quotes_live ON rfqs (maker_account_id, quote_received_at_ms, quote_id) WHERE state = 'quoted'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS rfqs_maker_quotes_live`);
    await q.query(`DROP INDEX IF EXISTS rfqs_maker_quotes`);
    await q.query(`ALTER TABLE rfqs DROP CONSTRAINT IF EXISTS rfqs_quote_received_check`);
    await q.query(`ALTER TABLE rfqs DROP COLUMN IF EXISTS quote_received_at_ms`);
  }
}
