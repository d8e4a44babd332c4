import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The desk's maker limits (docs/spec/design.md section 15): `maker_limits` (a maker's limits, the
 * operator's ceiling and the protection state, one row per account), `maker_fills` (the fills of a
 * protected maker's current window) and the index of a maker's live quotes (ids included: an
 * index-only read), which respond under limits and rfq.maker.get_limits read.
 */
export class MakerLimits1763800000220 implements MigrationInterface {
  name = 'MakerLimits1763800000220';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE IF NOT EXISTS maker_limits (
      account_id bigint NOT NULL,
      limits jsonb NOT NULL,
      admin_limits jsonb NOT NULL,
      tripped_at bigint,
      frozen_until bigint,
      trip_reason text,
      updated_at bigint NOT NULL,
      CONSTRAINT maker_limits_pkey PRIMARY KEY (account_id),
      CONSTRAINT maker_limits_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id)
    )`);
    await q.query(`CREATE TABLE IF NOT EXISTS maker_fills (
      account_id bigint NOT NULL,
      rfq_id char(32) COLLATE "C" NOT NULL,
      filled_at bigint NOT NULL,
      asset text NOT NULL,
      notional bigint NOT NULL,
      delta bigint NOT NULL,
      CONSTRAINT maker_fills_pkey PRIMARY KEY (account_id, rfq_id),
      CONSTRAINT maker_fills_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id)
    )`);
    await q.query(`CREATE INDEX IF NOT EXISTS rfqs_maker_live ON rfqs (maker_account_id, quote_expires_at, id) WHERE state = 'quoted'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS rfqs_maker_live`);
    await q.query(`DROP TABLE IF EXISTS maker_fills`);
    await q.query(`DROP TABLE IF EXISTS maker_limits`);
  }
}
