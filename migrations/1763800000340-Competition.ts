import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Competitive RFQs (docs/spec/design.md 18). On `rfqs`, only the competition asked at create
 * (`competition`: the panel as given, null for a seed RFQ): it is part of the RFQ's terms like its
 * legs (client_ref idempotency compares it; poll filters on it in one indexed read). The quotes,
 * the declines, the transcripts and the makers' quote counters are the competition module's own
 * tables, deleted with their RFQ (section 17: an RFQ with a fill is never deleted, so its
 * transcript stays with its fill).
 */
export class Competition1763800000340 implements MigrationInterface {
  name = 'Competition1763800000340';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE rfqs ADD COLUMN IF NOT EXISTS competition jsonb`);
    // A competitive RFQ is quoted with its quotes in competition_quotes; the row's quote is the accepted one.
    await q.query(`ALTER TABLE rfqs DROP CONSTRAINT IF EXISTS rfqs_check1`);
    await q.query(
      `ALTER TABLE rfqs ADD CONSTRAINT rfqs_check1 CHECK (state IN ('pending', 'declined', 'expired') OR quote_id IS NOT NULL OR competition IS NOT NULL)`,
    );
    // rfq.maker.poll: pending RFQs, and competitive ones still taking quotes while quoted.
    await q.query(`CREATE INDEX IF NOT EXISTS rfqs_open_to_quote ON rfqs (id) WHERE state = 'pending' OR (state = 'quoted' AND competition IS NOT NULL)`);
    await q.query(`
      CREATE TABLE IF NOT EXISTS competition_quotes (
        id bigserial CONSTRAINT competition_quotes_pkey PRIMARY KEY,
        quote_id char(64) NOT NULL CONSTRAINT competition_quotes_quote_id_key UNIQUE,
        rfq_id char(32) COLLATE "C" NOT NULL CONSTRAINT competition_quotes_rfq_id_fkey REFERENCES rfqs (id) ON DELETE CASCADE,
        maker_account_id bigint NOT NULL CONSTRAINT competition_quotes_maker_account_id_fkey REFERENCES accounts (id),
        maker_wallet text NOT NULL,
        quote_nonce numeric(20, 0) NOT NULL,
        bid bigint NOT NULL,
        ask bigint NOT NULL,
        issued_at bigint NOT NULL,
        expires_at bigint NOT NULL,
        maker_signature text NOT NULL,
        received_at_ms bigint NOT NULL,
        ended_at_ms bigint,
        ending text CONSTRAINT competition_quotes_ending_check CHECK (ending IN ('accepted', 'traded_away', 'replaced', 'cancelled', 'expired')),
        CONSTRAINT competition_quotes_check CHECK ((ended_at_ms IS NULL) = (ending IS NULL))
      )`);
    await q.query(`CREATE INDEX IF NOT EXISTS competition_quotes_rfq ON competition_quotes (rfq_id, id)`);
    await q.query(`CREATE UNIQUE INDEX IF NOT EXISTS competition_quotes_live_one ON competition_quotes (rfq_id, maker_account_id) WHERE ending IS NULL`);
    await q.query(`CREATE INDEX IF NOT EXISTS competition_quotes_maker_live ON competition_quotes (maker_account_id, expires_at, rfq_id) WHERE ending IS NULL`);
    await q.query(`CREATE INDEX IF NOT EXISTS competition_quotes_due ON competition_quotes (expires_at) WHERE ending IS NULL`);
    await q.query(`
      CREATE TABLE IF NOT EXISTS competition_declines (
        rfq_id char(32) COLLATE "C" NOT NULL CONSTRAINT competition_declines_rfq_id_fkey REFERENCES rfqs (id) ON DELETE CASCADE,
        maker_account_id bigint NOT NULL CONSTRAINT competition_declines_maker_account_id_fkey REFERENCES accounts (id),
        reason text NOT NULL,
        at bigint NOT NULL,
        CONSTRAINT competition_declines_pkey PRIMARY KEY (rfq_id, maker_account_id)
      )`);
    await q.query(`
      CREATE TABLE IF NOT EXISTS competition_transcripts (
        rfq_id char(32) COLLATE "C" NOT NULL CONSTRAINT competition_transcripts_pkey PRIMARY KEY
          CONSTRAINT competition_transcripts_rfq_id_fkey REFERENCES rfqs (id) ON DELETE CASCADE,
        payload bytea NOT NULL,
        hash char(64) NOT NULL,
        key_id char(16) NOT NULL,
        signature text NOT NULL,
        closed_at_ms bigint NOT NULL
      )`);
    await q.query(`
      CREATE TABLE IF NOT EXISTS competition_makers (
        account_id bigint NOT NULL CONSTRAINT competition_makers_pkey PRIMARY KEY CONSTRAINT competition_makers_account_id_fkey REFERENCES accounts (id),
        quotes_seq bigint NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS competition_makers`);
    await q.query(`DROP TABLE IF EXISTS competition_transcripts`);
    await q.query(`DROP TABLE IF EXISTS competition_declines`);
    await q.query(`DROP TABLE IF EXISTS competition_quotes`);
    await q.query(`DROP INDEX IF EXISTS rfqs_open_to_quote`);
    await q.query(`ALTER TABLE rfqs DROP CONSTRAINT IF EXISTS rfqs_check1`);
    await q.query(`ALTER TABLE rfqs ADD CONSTRAINT rfqs_check1 CHECK (state IN ('pending', 'declined', 'expired') OR quote_id IS NOT NULL)`);
    await q.query(`ALTER TABLE rfqs DROP COLUMN IF EXISTS competition`);
  }
}
