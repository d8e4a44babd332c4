import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The makers' profiles (docs/spec/design.md 18 "Choosing a panel", 19 "Cancel on disconnect"),
 * owned by the competition module: one row per maker that called rfq.maker.set_profile.
 */
export class MakerProfiles1763800000380 implements MigrationInterface {
  name = 'MakerProfiles1763800000380';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE IF NOT EXISTS maker_profiles (
        account_id bigint NOT NULL CONSTRAINT maker_profiles_pkey PRIMARY KEY CONSTRAINT maker_profiles_account_id_fkey REFERENCES accounts (id),
        listed boolean NOT NULL DEFAULT false,
        name text,
        cancel_on_disconnect boolean NOT NULL DEFAULT false
      )`);
    await q.query(`CREATE INDEX IF NOT EXISTS maker_profiles_cancel_on_disconnect ON maker_profiles (account_id) WHERE cancel_on_disconnect`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS maker_profiles`);
  }
}
