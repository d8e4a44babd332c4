import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Receipts staged by their fill or revert, not yet chained (docs/receipts.md, "How it is
 * written"). A fill commits its receipt's terms here (`body`: the 1,072 bytes with journal_seq,
 * prev_hash and the taker's commitment still zero) instead of locking the journal head to its
 * COMMIT; one appender per database at a time (the head's row lock, held for the batch's own
 * short transaction) chains the staged rows in `id` order into `receipts` and deletes them in the
 * same transaction. `(fill_id, kind)` is unique here as in `receipts`: one receipt per fill and
 * per revert, whether staged or chained.
 */
export class JournalPending1763800000320 implements MigrationInterface {
  name = 'JournalPending1763800000320';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE journal_pending (
        id          bigserial PRIMARY KEY,
        kind        smallint NOT NULL CHECK (kind IN (0, 1)),
        fill_id     bigint NOT NULL REFERENCES fills (id),
        body        bytea NOT NULL CHECK (octet_length(body) = 1072),
        at          bigint NOT NULL,
        UNIQUE (fill_id, kind)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS journal_pending`);
  }
}
