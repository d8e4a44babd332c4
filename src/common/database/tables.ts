// Written by `npm run db:tables` from the entities (src/app-entities.ts): do not edit.
// test/tables.spec.ts fails when it is not what the entities declare.

/**
 * The rows of every table as node-postgres returns them, column by column (the SQL type in the
 * comment). Repositories derive their row types from it (`Row<'rfqs', 'id' | 'state'>`, table.ts),
 * so a column renamed or retyped in an entity fails the build wherever a row type names it.
 */
export interface Tables {
  accepts: {
    rfq_id: string; // char NOT NULL
    quote_id: string; // char NOT NULL
    side: string; // text NOT NULL
    fee: string; // bigint NOT NULL
    max_fee: string; // bigint NOT NULL
    taker_signature: string; // text NOT NULL
    expires_at: string; // bigint NOT NULL
    accepted_at: string; // bigint NOT NULL
  };
  account_event_seqs: {
    account_id: string; // bigint NOT NULL
    last_seq: string; // bigint NOT NULL
  };
  account_events: {
    account_id: string; // bigint NOT NULL
    account_seq: string; // bigint NOT NULL
    channel: string; // text NOT NULL
    event: string; // text NOT NULL
    rfq: unknown; // jsonb NOT NULL
    at: string; // bigint NOT NULL
  };
  accounts: {
    id: string; // bigint NOT NULL
    wallet: string; // text NOT NULL
    roles: string[]; // text[] NOT NULL
    created_at: Date; // timestamptz NOT NULL
    open_rfqs: number; // integer NOT NULL
    sessions_revoked_at: string | null; // bigint
  };
  audit_head: {
    id: number; // smallint NOT NULL
    audit_seq: string; // bigint NOT NULL
    hash: string; // char NOT NULL
    at: string | null; // bigint
    key_id: string | null; // text
    signature: string | null; // text
  };
  audit_log: {
    audit_seq: string; // bigint NOT NULL
    at: string; // bigint NOT NULL
    actor_via: string; // text NOT NULL
    actor_account_id: string | null; // bigint
    actor_wallet: string | null; // text
    actor_jti: string | null; // text
    client_ip: string; // text NOT NULL
    action: string; // text NOT NULL
    target: unknown; // jsonb NOT NULL
    params: unknown; // jsonb NOT NULL
    status: number; // smallint NOT NULL
    prev_hash: string; // char NOT NULL
    hash: string; // char NOT NULL
  };
  auth_nonces: {
    nonce: string; // char NOT NULL
    wallet: string; // text NOT NULL
    expires_at: string; // bigint NOT NULL
    created_seq: string; // bigint NOT NULL
  };
  balances: {
    account_id: string; // bigint NOT NULL
    total: string; // bigint NOT NULL
    locked: string; // bigint NOT NULL
    updated_at: Date; // timestamptz NOT NULL
  };
  competition_declines: {
    rfq_id: string; // char NOT NULL
    maker_account_id: string; // bigint NOT NULL
    reason: string; // text NOT NULL
    at: string; // bigint NOT NULL
  };
  competition_makers: {
    account_id: string; // bigint NOT NULL
    quotes_seq: string; // bigint NOT NULL
  };
  competition_panels: {
    maker_account_id: string; // bigint NOT NULL
    rfq_id: string; // char NOT NULL
  };
  competition_quotes: {
    id: string; // bigint NOT NULL
    quote_id: string; // char NOT NULL
    rfq_id: string; // char NOT NULL
    maker_account_id: string; // bigint NOT NULL
    maker_wallet: string; // text NOT NULL
    quote_nonce: string; // numeric NOT NULL
    bid: string; // bigint NOT NULL
    ask: string; // bigint NOT NULL
    issued_at: string; // bigint NOT NULL
    expires_at: string; // bigint NOT NULL
    maker_signature: string; // text NOT NULL
    received_at_ms: string; // bigint NOT NULL
    ended_at_ms: string | null; // bigint
    ending: string | null; // text
  };
  competition_transcripts: {
    rfq_id: string; // char NOT NULL
    payload: Buffer; // bytea NOT NULL
    hash: string; // char NOT NULL
    key_id: string; // char NOT NULL
    signature: string; // text NOT NULL
    closed_at_ms: string; // bigint NOT NULL
  };
  exchange_keys: {
    key_id: string; // char NOT NULL
    public_key: string; // text NOT NULL
    from_at: string; // bigint NOT NULL
  };
  expirations: {
    asset: string; // text NOT NULL
    expiry: string; // bigint NOT NULL
    utc_date: Date; // date NOT NULL
    settled: boolean; // boolean NOT NULL
    settlement_price: string | null; // bigint
    settled_at: Date | null; // timestamptz
    created_at: Date; // timestamptz NOT NULL
  };
  fill_legs: {
    fill_id: string; // bigint NOT NULL
    leg_index: number; // smallint NOT NULL
    instrument: string; // text NOT NULL
    quantity: string; // bigint NOT NULL
    premium: string; // bigint NOT NULL
    mark: string; // bigint NOT NULL
  };
  fills: {
    id: string; // bigint NOT NULL
    rfq_id: string; // char NOT NULL
    quote_id: string; // char NOT NULL
    taker_account_id: string; // bigint NOT NULL
    maker_account_id: string; // bigint NOT NULL
    fee_account_id: string; // bigint NOT NULL
    side: string; // text NOT NULL
    price: string; // bigint NOT NULL
    fee: string; // bigint NOT NULL
    filled_at: string; // bigint NOT NULL
    reverted: boolean; // boolean NOT NULL
    taker_salt: Buffer | null; // bytea
    reverted_at: string | null; // bigint
  };
  index_prices: {
    asset: string; // text NOT NULL
    index_price: string; // bigint NOT NULL
    updated_at: Date; // timestamptz NOT NULL
  };
  instrument_ivs: {
    symbol: string; // text NOT NULL
    iv: string; // bigint NOT NULL
    updated_at: Date; // timestamptz NOT NULL
  };
  instruments: {
    symbol: string; // text NOT NULL
    asset: string; // text NOT NULL
    strike: string; // bigint NOT NULL
    kind: string; // text NOT NULL
    expiry: string; // bigint NOT NULL
    paused: boolean; // boolean NOT NULL
    settled: boolean; // boolean NOT NULL
    settlement_price: string | null; // bigint
    created_at: Date; // timestamptz NOT NULL
  };
  journal_head: {
    id: number; // smallint NOT NULL
    journal_seq: string; // bigint NOT NULL
    hash: string; // char NOT NULL
  };
  journal_pending: {
    id: string; // bigint NOT NULL
    kind: number; // smallint NOT NULL
    fill_id: string; // bigint NOT NULL
    body: Buffer; // bytea NOT NULL
    at: string; // bigint NOT NULL
  };
  lock_groups: {
    account_id: string; // bigint NOT NULL
    asset: string; // text NOT NULL
    expiry: string; // bigint NOT NULL
    worst: string; // numeric NOT NULL
    call_q: string; // numeric NOT NULL
    call_qk: string; // numeric NOT NULL
    top_strike: string; // bigint NOT NULL
  };
  maker_fills: {
    account_id: string; // bigint NOT NULL
    rfq_id: string; // char NOT NULL
    filled_at: string; // bigint NOT NULL
    asset: string; // text NOT NULL
    notional: string; // bigint NOT NULL
    delta: string; // bigint NOT NULL
  };
  maker_limits: {
    account_id: string; // bigint NOT NULL
    limits: unknown; // jsonb NOT NULL
    admin_limits: unknown; // jsonb NOT NULL
    tripped_at: string | null; // bigint
    frozen_until: string | null; // bigint
    trip_reason: string | null; // text
    updated_at: string; // bigint NOT NULL
  };
  maker_nonces: {
    account_id: string; // bigint NOT NULL
    high_water: string; // numeric NOT NULL
  };
  maker_profiles: {
    account_id: string; // bigint NOT NULL
    listed: boolean; // boolean NOT NULL
    name: string | null; // text
    cancel_on_disconnect: boolean; // boolean NOT NULL
  };
  positions: {
    account_id: string; // bigint NOT NULL
    instrument: string; // text NOT NULL
    quantity: string; // bigint NOT NULL
    expiry: string; // bigint NOT NULL
    settled: boolean; // boolean NOT NULL
    settlement_amount: string | null; // bigint
    updated_at: Date; // timestamptz NOT NULL
    avg_num: string | null; // numeric
    avg_den: string | null; // numeric
    average_price: string | null; // bigint
  };
  receipts: {
    journal_seq: string; // bigint NOT NULL
    kind: number; // smallint NOT NULL
    fill_id: string; // bigint NOT NULL
    payload: Buffer; // bytea NOT NULL
    hash: string; // char NOT NULL
    prev_hash: string; // char NOT NULL
    key_id: string; // char NOT NULL
    signature: string; // text NOT NULL
    at: string; // bigint NOT NULL
  };
  rfq_events: {
    id: string; // bigint NOT NULL
    rfq_id: string; // char NOT NULL
    event: string; // text NOT NULL
    state: string; // text NOT NULL
    at: string; // bigint NOT NULL
  };
  rfqs: {
    id: string; // char NOT NULL
    account_id: string; // bigint NOT NULL
    client_ref: string; // text NOT NULL
    legs: unknown; // jsonb NOT NULL
    asset: string; // text NOT NULL
    expiry: string; // bigint NOT NULL
    state: string; // text NOT NULL
    created_at: string; // bigint NOT NULL
    updated_at: string; // bigint NOT NULL
    expires_at: string; // bigint NOT NULL
    max_quote_expires_at: string; // bigint NOT NULL
    quote_id: string | null; // char
    maker_account_id: string | null; // bigint
    maker_wallet: string | null; // text
    quote_nonce: string | null; // numeric
    bid: string | null; // bigint
    ask: string | null; // bigint
    issued_at: string | null; // bigint
    quote_expires_at: string | null; // bigint
    maker_signature: string | null; // text
    quote_received_at_ms: string | null; // bigint
    decline_reason: string | null; // text
    declined_by: string | null; // bigint
    accepted_side: string | null; // text
    failure_error: string | null; // text
    failure_message: string | null; // text
    fill_id: string | null; // bigint
    fill_price: string | null; // bigint
    fill_fee: string | null; // bigint
    filled_at: string | null; // bigint
    fill_reverted: boolean; // boolean NOT NULL
    ended_at: string | null; // bigint
    cancelled_at: string | null; // bigint
    events_pruned_at: string | null; // bigint
    competition: unknown; // jsonb
    expiry_deadline: string | null; // bigint
  };
  settlement_payments: {
    instrument: string; // text NOT NULL
    account_id: string; // bigint NOT NULL
    quantity: string; // bigint NOT NULL
    amount: string; // bigint NOT NULL
    settled_at: Date; // timestamptz NOT NULL
  };
  transfers: {
    id: string; // bigint NOT NULL
    account_id: string; // bigint NOT NULL
    kind: string; // text NOT NULL
    amount: string; // bigint NOT NULL
    reference: string; // text NOT NULL
    created_at: Date; // timestamptz NOT NULL
  };
  view_versions: {
    topic: string; // text NOT NULL
    version: string; // bigint NOT NULL
  };
}
