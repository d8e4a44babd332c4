import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A year of history (docs/spec/design.md 17), "settled rounds leave memory": an instance holds the
 * instruments of open rounds and of rounds settled within the last 7 days only. It finds the
 * recently settled rounds on `expirations_settled_at` (the open ones on `expirations_unsettled`),
 * so that its start-up reads what it keeps and never walks the rounds settled before.
 * Numbered far ahead so that it sorts after the migrations of parallel branches.
 */
export class SettledRounds1763800000260 implements MigrationInterface {
  name = 'SettledRounds1763800000260';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX IF NOT EXISTS expirations_settled_at ON expirations (settled_at) WHERE settled`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS expirations_settled_at`);
  }
}
