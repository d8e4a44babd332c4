import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The taker's salt of each fill (docs/spec/design.md 16): receipts are version 2 from here on and hold the
 * taker's commitment, SHA-256("LEGWORK_TAKER" || salt || taker key), instead of the taker's key.
 * Fills made before keep a null salt: their receipts are version 1 and stay as signed.
 */
export class TakerSalt1763800000200 implements MigrationInterface {
  name = 'TakerSalt1763800000200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE fills ADD COLUMN IF NOT EXISTS taker_salt bytea`);
    await q.query(`ALTER TABLE fills DROP CONSTRAINT IF EXISTS fills_taker_salt_check`);
    await q.query(`ALTER TABLE fills ADD CONSTRAINT fills_taker_salt_check CHECK (octet_length(taker_salt) = 32)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE fills DROP CONSTRAINT IF EXISTS fills_taker_salt_check`);
    await q.query(`ALTER TABLE fills DROP COLUMN IF EXISTS taker_salt`);
  }
}
