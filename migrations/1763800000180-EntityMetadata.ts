import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * TypeORM's own `typeorm_metadata` table, with the expression of the one generated column
 * (`rfqs.expiry_deadline`, migration 1). TypeORM reads a generated column's expression from this
 * table, not from the catalog, when it compares the database with the entities (the schema test,
 * `npm run migration:generate`); without the row it would see the expression as changed. Nothing
 * in the app reads it. The expression is the one migration 1 created, written as RfqEntity
 * declares it (test/e2e/schema.e2e-spec.ts fails if the two differ).
 */
export class EntityMetadata1763800000180 implements MigrationInterface {
  name = 'EntityMetadata1763800000180';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE IF NOT EXISTS typeorm_metadata (type varchar NOT NULL, database varchar, schema varchar, "table" varchar, name varchar, value text)`,
    );
    await q.query(
      `INSERT INTO typeorm_metadata (type, database, schema, "table", name, value) VALUES ('GENERATED_COLUMN', current_database(), current_schema(), 'rfqs', 'expiry_deadline', $1)`,
      [`CASE WHEN state = 'quoted' THEN quote_expires_at ELSE expires_at END`],
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS typeorm_metadata`);
  }
}
