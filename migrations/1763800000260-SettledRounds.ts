import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A year of history (docs/spec/design.md 17), "settled rounds leave memory": an instance holds the
 * instruments of open rounds and of rounds settled within the last 7 days only. It finds the
 * recently settled rounds on `expirations_settled_at` (the open ones on `expirations_unsettled`),
 * so that its start-up reads what it keeps and never walks the rounds settled before.
 *
 * "Reads stay keyset-paginated on an index": GET /query/rfq-positions answers an account's
 * positions by expiry then instrument. The expiry was the instrument's, so every call sorted all of
 * the account's positions, a year of them for an old account. `positions.expiry` (the instrument's,
 * which never changes; set on insert by a trigger, so every writer keeps working unchanged) and
 * `positions_by_expiry` give that order, per status, on an index.
 * Numbered far ahead so that it sorts after the migrations of parallel branches.
 */
export class SettledRounds1763800000260 implements MigrationInterface {
  name = 'SettledRounds1763800000260';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX IF NOT EXISTS expirations_settled_at ON expirations (settled_at) WHERE settled`);
    await q.query(`ALTER TABLE positions ADD COLUMN IF NOT EXISTS expiry bigint`);
    await q.query(`UPDATE positions p SET expiry = i.expiry FROM instruments i WHERE i.symbol = p.instrument AND p.expiry IS NULL`);
    await q.query(`ALTER TABLE positions ALTER COLUMN expiry SET NOT NULL`);
    await q.query(`
      CREATE OR REPLACE FUNCTION legwork_position_expiry() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.expiry IS NULL THEN
          SELECT expiry INTO NEW.expiry FROM instruments WHERE symbol = NEW.instrument;
        END IF;
        RETURN NEW;
      END
      $$`);
    await q.query(`DROP TRIGGER IF EXISTS positions_expiry ON positions`);
    await q.query(`CREATE TRIGGER positions_expiry BEFORE INSERT ON positions FOR EACH ROW EXECUTE FUNCTION legwork_position_expiry()`);
    await q.query(`CREATE INDEX IF NOT EXISTS positions_by_expiry ON positions (account_id, settled, expiry, instrument COLLATE "C") WHERE quantity <> 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS positions_by_expiry`);
    await q.query(`DROP TRIGGER IF EXISTS positions_expiry ON positions`);
    await q.query(`DROP FUNCTION IF EXISTS legwork_position_expiry()`);
    await q.query(`ALTER TABLE positions DROP COLUMN IF EXISTS expiry`);
    await q.query(`DROP INDEX IF EXISTS expirations_settled_at`);
  }
}
