import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * RFQs with their one quote, the makers' quote-nonce high-water marks, and the log of every state
 * move. Money is bigint micro-units; times are unix seconds (bigint). SQL accepted by
 * PostgreSQL 15 (the servers) and 18 (embedded PGlite).
 */
export class Rfq1763800000001 implements MigrationInterface {
  name = 'Rfq1763800000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE rfqs (
        id                   char(32) COLLATE "C" PRIMARY KEY,
        account_id           bigint NOT NULL REFERENCES accounts (id),
        client_ref           text NOT NULL,
        legs                 jsonb NOT NULL,
        asset                text NOT NULL,
        expiry               bigint NOT NULL,
        state                text NOT NULL CHECK (state IN ('pending', 'quoted', 'accepted', 'submitting', 'filled', 'declined', 'expired', 'failed')),
        created_at           bigint NOT NULL,
        updated_at           bigint NOT NULL,
        expires_at           bigint NOT NULL,
        max_quote_expires_at bigint NOT NULL,
        quote_id             char(64) UNIQUE,
        maker_account_id     bigint REFERENCES accounts (id),
        maker_wallet         text,
        quote_nonce          numeric(20, 0),
        bid                  bigint,
        ask                  bigint,
        issued_at            bigint,
        quote_expires_at     bigint,
        maker_signature      text,
        decline_reason       text CHECK (decline_reason IN ('unlisted_instrument', 'near_expiry', 'size_limit', 'stale_data', 'low_confidence', 'queue_overflow')),
        declined_by          bigint,
        accepted_side        text CHECK (accepted_side IN ('buy', 'sell')),
        failure_error        text,
        failure_message      text,
        fill_id              bigint,
        fill_price           bigint,
        fill_fee             bigint,
        filled_at            bigint,
        fill_reverted        boolean NOT NULL DEFAULT false,
        ended_at             bigint,
        -- The deadline the expiry sweep watches: the RFQ's own while pending, the quote's while quoted.
        expiry_deadline      bigint GENERATED ALWAYS AS (CASE WHEN state = 'quoted' THEN quote_expires_at ELSE expires_at END) STORED,
        UNIQUE (account_id, client_ref),
        CHECK (num_nulls(quote_id, maker_account_id, maker_wallet, quote_nonce, bid, ask, issued_at, quote_expires_at, maker_signature) IN (0, 9)),
        CHECK (state IN ('pending', 'declined', 'expired') OR quote_id IS NOT NULL)
      )`);
    // rfq.list: the taker's RFQs, newest first (ids are time ordered), from a cursor.
    await q.query(`CREATE INDEX rfqs_taker_list ON rfqs (account_id, id DESC)`);
    // MAX_OPEN_RFQS: count of a taker's open RFQs.
    await q.query(`CREATE INDEX rfqs_taker_open ON rfqs (account_id) WHERE state IN ('pending', 'quoted', 'accepted', 'submitting')`);
    // rfq.maker.poll: pending RFQs, oldest first, from a cursor.
    await q.query(`CREATE INDEX rfqs_pending ON rfqs (id) WHERE state = 'pending'`);
    // The expiry sweep: overdue pending and quoted RFQs.
    await q.query(`CREATE INDEX rfqs_expiry_due ON rfqs (expiry_deadline) WHERE state IN ('pending', 'quoted')`);
    // rfq.accept finds the RFQ by quote_id: the UNIQUE constraint's index.

    await q.query(`
      CREATE TABLE maker_nonces (
        account_id  bigint PRIMARY KEY REFERENCES accounts (id),
        high_water  numeric(20, 0) NOT NULL CHECK (high_water > 0 AND high_water <= 18446744073709551615)
      )`);

    await q.query(`
      CREATE TABLE rfq_events (
        id      bigserial PRIMARY KEY,
        rfq_id  char(32) COLLATE "C" NOT NULL REFERENCES rfqs (id),
        event   text NOT NULL,
        state   text NOT NULL,
        at      bigint NOT NULL
      )`);
    await q.query(`CREATE INDEX rfq_events_rfq ON rfq_events (rfq_id, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['rfq_events', 'maker_nonces', 'rfqs']) await q.query(`DROP TABLE IF EXISTS ${table}`);
  }
}
