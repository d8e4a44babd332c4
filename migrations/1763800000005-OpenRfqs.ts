import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `accounts.open_rfqs`: how many of the taker's RFQs are open (pending, quoted, accepted,
 * submitting), kept by the statements that create an RFQ (+1, only below MAX_OPEN_RFQS) and move
 * one out of those states (-1). rfq.create is then one statement that takes a slot and inserts
 * (it used to lock the account row and count the open RFQs in a transaction of four round trips).
 * Filled in from the RFQs that exist.
 */
export class OpenRfqs1763800000005 implements MigrationInterface {
  name = 'OpenRfqs1763800000005';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE accounts ADD COLUMN open_rfqs integer NOT NULL DEFAULT 0 CHECK (open_rfqs >= 0)`);
    await q.query(`
      UPDATE accounts a SET open_rfqs = o.n
        FROM (SELECT account_id, count(*) AS n FROM rfqs WHERE state IN ('pending', 'quoted', 'accepted', 'submitting') GROUP BY account_id) o
       WHERE a.id = o.account_id`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE accounts DROP COLUMN IF EXISTS open_rfqs`);
  }
}
