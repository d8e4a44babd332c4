import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `view_versions`: one row per view topic (instruments, market data, …), whose version every
 * change of that view bumps in its own transaction (docs/spec/design.md section 11). Instances compare it
 * with the version their in-memory view was loaded at, so a change whose broadcast was lost (a
 * Redis pub/sub drop) is still picked up within one check. Read by topic (the primary key).
 */
export class ViewVersions1763800000012 implements MigrationInterface {
  name = 'ViewVersions1763800000012';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE view_versions (topic text PRIMARY KEY, version bigint NOT NULL DEFAULT 0)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS view_versions`);
  }
}
