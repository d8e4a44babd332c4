import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The fill ledger: accepts with their frozen max_fee, fills (one per RFQ, enforced here) with their
 * legs, net positions per (account, instrument), and settlement payments. Money is bigint
 * micro-units; contract times are unix seconds (bigint). SQL accepted by PostgreSQL 15 (the
 * servers) and 18 (embedded PGlite).
 */
export class Ledger1763800000002 implements MigrationInterface {
  name = 'Ledger1763800000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE accepts (
        rfq_id           char(32) COLLATE "C" PRIMARY KEY REFERENCES rfqs (id),
        quote_id         char(64) NOT NULL,
        side             text NOT NULL CHECK (side IN ('buy', 'sell')),
        fee              bigint NOT NULL CHECK (fee >= 0),
        max_fee          bigint NOT NULL CHECK (max_fee >= fee),
        taker_signature  text NOT NULL,
        expires_at       bigint NOT NULL,
        accepted_at      bigint NOT NULL
      )`);

    await q.query(`
      CREATE TABLE fills (
        id                bigserial PRIMARY KEY,
        rfq_id            char(32) COLLATE "C" NOT NULL UNIQUE REFERENCES rfqs (id),
        quote_id          char(64) NOT NULL,
        taker_account_id  bigint NOT NULL REFERENCES accounts (id),
        maker_account_id  bigint NOT NULL REFERENCES accounts (id),
        fee_account_id    bigint NOT NULL REFERENCES accounts (id),
        side              text NOT NULL CHECK (side IN ('buy', 'sell')),
        price             bigint NOT NULL,
        fee               bigint NOT NULL CHECK (fee >= 0),
        filled_at         bigint NOT NULL,
        reverted          boolean NOT NULL DEFAULT false,
        reverted_at       bigint,
        CHECK (taker_account_id <> maker_account_id),
        CHECK (reverted = (reverted_at IS NOT NULL))
      )`);
    // GET /query/rfq-fills: an account's fills as taker or maker, newest first.
    await q.query(`CREATE INDEX fills_taker ON fills (taker_account_id, id DESC)`);
    await q.query(`CREATE INDEX fills_maker ON fills (maker_account_id, id DESC)`);

    await q.query(`
      CREATE TABLE fill_legs (
        fill_id     bigint NOT NULL REFERENCES fills (id),
        leg_index   smallint NOT NULL CHECK (leg_index >= 0),
        instrument  text NOT NULL REFERENCES instruments (symbol),
        quantity    bigint NOT NULL CHECK (quantity <> 0),
        premium     bigint NOT NULL,
        mark        bigint NOT NULL,
        PRIMARY KEY (fill_id, leg_index),
        UNIQUE (fill_id, instrument)
      )`);
    await q.query(`CREATE INDEX fill_legs_instrument ON fill_legs (instrument)`);

    await q.query(`
      CREATE TABLE positions (
        account_id         bigint NOT NULL REFERENCES accounts (id),
        instrument         text NOT NULL REFERENCES instruments (symbol),
        quantity           bigint NOT NULL,
        settled            boolean NOT NULL DEFAULT false,
        settlement_amount  bigint,
        updated_at         timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, instrument)
      )`);
    await q.query(`CREATE INDEX positions_instrument ON positions (instrument)`);

    await q.query(`
      CREATE TABLE settlement_payments (
        instrument  text NOT NULL REFERENCES instruments (symbol),
        account_id  bigint NOT NULL REFERENCES accounts (id),
        quantity    bigint NOT NULL,
        amount      bigint NOT NULL,
        settled_at  timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (instrument, account_id)
      )`);

    // The stuck-fill sweep: RFQs left accepted or submitting.
    await q.query(`CREATE INDEX rfqs_fill_due ON rfqs (updated_at) WHERE state IN ('accepted', 'submitting')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS rfqs_fill_due`);
    for (const table of ['settlement_payments', 'positions', 'fill_legs', 'fills', 'accepts']) await q.query(`DROP TABLE IF EXISTS ${table}`);
  }
}
