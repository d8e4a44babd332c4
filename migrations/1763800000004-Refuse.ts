import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `legwork_refuse(reason)`: raises SQLSTATE LW001 with `reason` as the message. A statement calls
 * it to refuse itself: one statement is its own transaction, so everything it wrote is rolled
 * back. RFQ moves use it for a write that must succeed with the move (a maker's quote-nonce
 * high-water mark rises with its quote, or neither happens) without BEGIN / COMMIT round trips.
 * PL/pgSQL: in PostgreSQL 15 and in PGlite alike.
 */
export class Refuse1763800000004 implements MigrationInterface {
  name = 'Refuse1763800000004';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION legwork_refuse(reason text) RETURNS boolean LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION USING ERRCODE = 'LW001', MESSAGE = reason;
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION IF EXISTS legwork_refuse(text)`);
  }
}
