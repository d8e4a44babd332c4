import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The receipt chain without its two random-key indexes. `receipts_hash_key` and
 * `receipts_prev_hash_key` made every append (under the journal head's lock, which serialises every
 * fill of the exchange) insert into two B-trees keyed by SHA-256: a random leaf page each, cold once
 * the journal holds a year (a buffer read and a full-page image in the WAL per index), which
 * lengthened the head's hold time and with it the ceiling of fills per second. Nothing reads
 * receipts by hash. What they guarded is kept by stronger means: `receipts_pkey` on journal_seq
 * forbids a fork, and the append writes a receipt only when its journal_seq follows the head's and
 * its prev_hash is the head's hash (JournalRepository.appendReceipt), so every link holds as it is
 * written, which uniqueness alone never checked; verify-journal re-checks the whole chain.
 */
export class ReceiptChainLink1763800000270 implements MigrationInterface {
  name = 'ReceiptChainLink1763800000270';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE receipts DROP CONSTRAINT IF EXISTS receipts_hash_key`);
    await q.query(`ALTER TABLE receipts DROP CONSTRAINT IF EXISTS receipts_prev_hash_key`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE receipts ADD CONSTRAINT receipts_hash_key UNIQUE (hash)`);
    await q.query(`ALTER TABLE receipts ADD CONSTRAINT receipts_prev_hash_key UNIQUE (prev_hash)`);
  }
}
