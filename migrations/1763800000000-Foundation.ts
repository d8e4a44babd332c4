import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Accounts, sign-in nonces, instruments with their expiration rounds, market data, balances and
 * deposits. Money is bigint micro-units; contract times (expiry, expires_at) are unix seconds.
 * SQL accepted by PostgreSQL 15 (the servers) and 18 (embedded PGlite).
 */
export class Foundation1763800000000 implements MigrationInterface {
  name = 'Foundation1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE accounts (
        id          bigserial PRIMARY KEY,
        wallet      text NOT NULL UNIQUE,
        roles       text[] NOT NULL DEFAULT '{}',
        created_at  timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE auth_nonces (
        nonce       char(32) PRIMARY KEY,
        wallet      text NOT NULL,
        expires_at  bigint NOT NULL,
        created_seq bigserial NOT NULL
      )`);
    await q.query(`CREATE INDEX auth_nonces_wallet ON auth_nonces (wallet, created_seq)`);
    await q.query(`CREATE INDEX auth_nonces_expires ON auth_nonces (expires_at)`);

    await q.query(`
      CREATE TABLE expirations (
        asset            text NOT NULL,
        expiry           bigint NOT NULL,
        utc_date         date NOT NULL,
        settled          boolean NOT NULL DEFAULT false,
        settlement_price bigint,
        settled_at       timestamptz,
        created_at       timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (asset, expiry),
        UNIQUE (asset, utc_date)
      )`);
    await q.query(`CREATE INDEX expirations_unsettled ON expirations (expiry) WHERE NOT settled`);
    await q.query(`
      CREATE TABLE instruments (
        symbol           text PRIMARY KEY,
        asset            text NOT NULL,
        strike           bigint NOT NULL CHECK (strike > 0),
        kind             text NOT NULL CHECK (kind IN ('call', 'put')),
        expiry           bigint NOT NULL,
        paused           boolean NOT NULL DEFAULT false,
        settled          boolean NOT NULL DEFAULT false,
        settlement_price bigint,
        created_at       timestamptz NOT NULL DEFAULT now(),
        UNIQUE (asset, expiry, strike, kind),
        FOREIGN KEY (asset, expiry) REFERENCES expirations (asset, expiry)
      )`);
    await q.query(`CREATE INDEX instruments_expiry ON instruments (expiry, asset)`);

    await q.query(`
      CREATE TABLE index_prices (
        asset       text PRIMARY KEY,
        index_price bigint NOT NULL CHECK (index_price > 0),
        updated_at  timestamptz NOT NULL
      )`);
    await q.query(`
      CREATE TABLE instrument_ivs (
        symbol      text PRIMARY KEY REFERENCES instruments (symbol),
        iv          bigint NOT NULL CHECK (iv >= 0),
        updated_at  timestamptz NOT NULL
      )`);

    await q.query(`
      CREATE TABLE balances (
        account_id  bigint PRIMARY KEY REFERENCES accounts (id),
        total       bigint NOT NULL DEFAULT 0,
        locked      bigint NOT NULL DEFAULT 0 CHECK (locked >= 0),
        updated_at  timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE transfers (
        id          bigserial PRIMARY KEY,
        account_id  bigint NOT NULL REFERENCES accounts (id),
        kind        text NOT NULL CHECK (kind IN ('deposit', 'withdrawal')),
        amount      bigint NOT NULL CHECK (amount > 0),
        reference   text NOT NULL UNIQUE,
        created_at  timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX transfers_account ON transfers (account_id, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['transfers', 'balances', 'instrument_ivs', 'index_prices', 'instruments', 'expirations', 'auth_nonces', 'accounts']) {
      await q.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
