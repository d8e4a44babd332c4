import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Event replay (docs/spec/design.md section 13) and the receipt journal (section 14).
 *
 * `account_event_seqs`: one counter row per account, bumped in the transaction of every move that
 * notifies the account; its row lock makes two moves of one account commit their numbers in
 * order, so `account_seq` is gapless per account in commit order. `account_events`: what was
 * sent, kept 7 days: the RFQ row as it was after the move (values as text: bigints survive JSON).
 *
 * `receipts`: one signed receipt per fill and per revert, chained by prev_hash with a gapless
 * `journal_seq` (its primary key: no fork); `journal_head`: the one row every fill and revert
 * locks, as late as possible in its transaction, to take the next journal_seq and the hash to
 * link to.
 */
export class EventsAndJournal1763800000006 implements MigrationInterface {
  name = 'EventsAndJournal1763800000006';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE account_event_seqs (
        account_id bigint PRIMARY KEY REFERENCES accounts (id),
        last_seq   bigint NOT NULL CHECK (last_seq >= 0)
      )`);
    await q.query(`
      CREATE TABLE account_events (
        account_id  bigint NOT NULL,
        account_seq bigint NOT NULL,
        channel     text NOT NULL CHECK (channel IN ('rfq', 'rfq_maker')),
        event       text NOT NULL,
        rfq         jsonb NOT NULL,
        at          bigint NOT NULL,
        PRIMARY KEY (account_id, account_seq)
      )`);
    // The retention sweep deletes by age.
    await q.query(`CREATE INDEX account_events_at ON account_events (at)`);
    await q.query(`
      CREATE TABLE receipts (
        journal_seq bigint PRIMARY KEY CHECK (journal_seq >= 1),
        kind        smallint NOT NULL CHECK (kind IN (0, 1)),
        fill_id     bigint NOT NULL REFERENCES fills (id),
        payload     bytea NOT NULL,
        hash        char(64) COLLATE "C" NOT NULL UNIQUE,
        prev_hash   char(64) COLLATE "C" NOT NULL UNIQUE,
        key_id      char(16) NOT NULL,
        signature   text NOT NULL,
        at          bigint NOT NULL,
        UNIQUE (fill_id, kind)
      )`);
    await q.query(`
      CREATE TABLE journal_head (
        id          smallint PRIMARY KEY CHECK (id = 1),
        journal_seq bigint NOT NULL,
        hash        char(64) COLLATE "C" NOT NULL
      )`);
    // Every key that ever signed, in order: a rotation appends one (GET /v1/exchange/keys).
    await q.query(`
      CREATE TABLE exchange_keys (
        key_id      char(16) PRIMARY KEY,
        public_key  text NOT NULL UNIQUE,
        from_at     bigint NOT NULL
      )`);
    await q.query(`INSERT INTO journal_head (id, journal_seq, hash) VALUES (1, 0, repeat('0', 64))`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['exchange_keys', 'journal_head', 'receipts', 'account_events', 'account_event_seqs']) await q.query(`DROP TABLE IF EXISTS ${table}`);
  }
}
