import { RFQ_ERROR_REASONS, type RfqErrorCode } from '@legwork/protocol';
import { RpcClient, freshIp } from './clients';
import { Environment, type TestApp } from './harness';
import {
  type RfqTrader,
  type Round,
  clientRef,
  expectRfqError,
  expirationIn,
  leg,
  listRound,
  nowSeconds,
  pauseRound,
  rfqTrader,
  signedQuote,
  terms,
} from './rfq-support';
import { acceptParams, deposit, marketData, nextNonce, waitForState } from './support/ledger';

/**
 * design.md section 19: every RFQ error's data carries `reason`, a word of its code's declared
 * list (docs/errors.md). One row per refusal the e2e tests produce, each driven once here, with
 * the reason and `retryable` it must carry. Not driven here (their causes need a fault or a
 * draining instance): `views_unconfirmed`, `shutting_down`, `internal_error`, `redis_unavailable`
 * (instances.e2e-spec.ts stops Redis), `rate_limited`,
 * `replay_running`, `instrument_settled`, `instrument_expired`, `not_quoted` (only a race between
 * reads reaches it), and the competition's reasons.
 */
type Drive = () => Promise<any>;

describe('the reason of every RFQ refusal', () => {
  let env: Environment;
  let app: TestApp;
  let sol: Round;
  let btc: Round;
  let taker: RfqTrader;
  let maker: RfqTrader;
  const closers: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    env = await Environment.create({ MARKET_DATA_MAX_AGE_SECONDS: '3600', MAX_OPEN_RFQS: '8' });
    app = await env.start();
    sol = await listRound(app, 'SOL', expirationIn(10));
    btc = await listRound(app, 'BTC', expirationIn(10));
    await marketData(app, 'SOL', '150', '0.8');
    taker = await rfqTrader(app, ['taker']);
    maker = await rfqTrader(app, ['quoter']);
    closers.push(taker.client, maker.client);
    await deposit(app, taker.accountId, '100000');
  }, 120_000);
  afterEach(async () => {
    await taker.client.result('rfq.cancel_all', {});
  });
  afterAll(async () => {
    for (const c of closers) await c.close();
    await app?.close();
    await env?.destroy();
  });

  const SOL1 = () => [leg(sol.symbol('150'), '1')];
  const create = (legs: unknown, who: RfqTrader = taker) => who.client.call('rfq.create', { client_ref: clientRef(), legs });
  const openRfq = async (legs = SOL1()) => taker.client.result('rfq.create', { client_ref: clientRef(), legs });
  const fresh = async (roles: string[]) => {
    const t = await rfqTrader(app, roles);
    closers.push(t.client);
    return t;
  };
  /** A respond of `who` (default: the maker) to a fresh RFQ, with terms changed and the quote's params changed after signing. */
  const respond = async (changes = {}, who: RfqTrader = maker, after = {}) => {
    const q = signedQuote(who.wallet, await openRfq(), terms(nextNonce(), changes), sol.expiry);
    return who.client.call('rfq.maker.respond', { ...q.params, ...after });
  };
  /** A respond of a fresh maker with these limits. */
  const limited = async (limits: object, changes = {}) => {
    const m = await fresh(['quoter']);
    await m.client.result('rfq.maker.set_limits', { limits });
    return respond(changes, m);
  };
  /** A quote of the maker on a fresh RFQ (legs: default one SOL call): its RFQ and params. */
  const quoted = async (legs = SOL1(), m = maker, expiry = sol.expiry) => {
    const rfq = await openRfq(legs);
    const q = signedQuote(m.wallet, rfq, terms(nextNonce()), expiry);
    await m.client.result('rfq.maker.respond', q.params);
    return {
      rfq,
      q,
      accept: (side: 'buy' | 'sell' = 'buy', opts = {}) => acceptParams(taker.wallet, { rfqId: rfq.rfq_id, quoteId: q.quoteId, terms: q.params }, side, opts),
    };
  };

  const DRIVES: Array<[RfqErrorCode, string, Drive, boolean?]> = [
    [
      'RFQ_NOT_READY',
      'market_data_stale',
      async () => taker.client.call('rfq.accept', (await quoted([leg(btc.symbol('150'), '1')], maker, btc.expiry)).accept()),
      true,
    ],
    ['RFQ_INVALID_INSTRUMENT', 'instrument_unknown', () => create([leg('SOL-01JAN30-150-C', '1')])],
    ['RFQ_INVALID_INSTRUMENT', 'leg_duplicate', () => create([leg(sol.symbol('150'), '1'), leg(sol.symbol('150'), '-1')])],
    ['RFQ_INVALID_INSTRUMENT', 'legs_mixed', () => create([leg(sol.symbol('150'), '1'), leg(btc.symbol('150'), '-1')])],
    ['RFQ_INVALID_INSTRUMENT', 'instrument_paused', () => paused(() => create([leg(btc.symbol('150'), '1')])), true],
    ['RFQ_SIZE_INVALID', 'zero_quantity', () => create([leg(sol.symbol('150'), '0')])],
    ['RFQ_SIZE_INVALID', 'leg_count', () => create([])],
    ['RFQ_SIZE_INVALID', 'max_quote_notional', () => limited({ max_quote_notional: '1' })],
    ['RFQ_PRECISION_UNSUPPORTED', 'not_canonical_decimal', () => create([leg(sol.symbol('150'), '1.0000001')])],
    ['RFQ_VALUE_OUT_OF_RANGE', 'invalid_params', () => taker.client.call('rfq.create', { client_ref: clientRef(), legs: SOL1(), note: 1 })],
    ['RFQ_VALUE_OUT_OF_RANGE', 'bid_above_ask', () => respond({ bid: '3', ask: '2' })],
    ['RFQ_VALUE_OUT_OF_RANGE', 'quote_times', () => respond({ expires_at: nowSeconds() - 1, issued_at: nowSeconds() })],
    ['RFQ_VALUE_OUT_OF_RANGE', 'quote_expiry_too_late', () => respond({ issued_at: nowSeconds() + 4, expires_at: nowSeconds() + 3602 })],
    ['RFQ_VALUE_OUT_OF_RANGE', 'issued_in_future', () => respond({ issued_at: nowSeconds() + 60, expires_at: nowSeconds() + 120 })],
    [
      'RFQ_VALUE_OUT_OF_RANGE',
      'accept_after_quote',
      async () => taker.client.call('rfq.accept', (await quoted()).accept('buy', { expiresAt: nowSeconds() + 3000 })),
    ],
    ['RFQ_VALUE_OUT_OF_RANGE', 'since_out_of_range', () => maker.client.call('rfq.maker.subscribe', { since: 1_000_000 })],
    ['RFQ_OPEN_LIMIT', 'max_open_rfqs', () => openLimitOfTaker(), true],
    ['RFQ_OPEN_LIMIT', 'max_open_quotes', () => secondQuote({ max_open_quotes: 1 }), true],
    ['RFQ_OPEN_LIMIT', 'max_open_notional', () => limited({ max_open_notional: '1' }), true],
    ['RFQ_OPEN_LIMIT', 'max_open_delta', () => limited({ max_open_delta: { SOL: '0.01' } }), true],
    ['RFQ_OPEN_LIMIT', 'max_open_vega', () => limited({ max_open_vega: { SOL: '0.01' } }), true],
    ['RFQ_OPEN_LIMIT', 'kill_switch', () => limited({ max_open_quotes: 0 }), false],
    ['RFQ_OPEN_LIMIT', 'maker_protection', () => frozen(), false],
    ['RFQ_NOT_FOUND', 'rfq_not_found', () => taker.client.call('rfq.get', { rfq_id: '0'.repeat(32) })],
    [
      'RFQ_NOT_FOUND',
      'quote_not_found',
      () => taker.client.call('rfq.accept', { quote_id: 'ab'.repeat(32), side: 'buy', expires_at: nowSeconds() + 30, taker_signature: 'A'.repeat(86) + '==' }),
    ],
    ['RFQ_NOT_FOUND', 'cursor_not_found', () => maker.client.call('rfq.maker.quotes', { after: 'ab'.repeat(32) })],
    ['RFQ_WRONG_ROLE', 'role_missing', () => taker.client.call('rfq.maker.poll', {})],
    ['RFQ_WRONG_ROLE', 'not_signed_in', () => anonymous((c) => c.call('rfq.create', { client_ref: clientRef(), legs: SOL1() }))],
    ['RFQ_WRONG_ROLE', 'own_rfq', () => ownRfq()],
    ['RFQ_INVALID_SIGNATURE', 'signature_mismatch', () => respond({}, maker, { bid: '1.25' })],
    ['RFQ_INVALID_SIGNATURE', 'signature_not_canonical', () => respond({}, maker, { maker_signature: 'nope' })],
    ['RFQ_CANONICAL_MISMATCH', 'client_ref_reused', () => reusedRef()],
    ['RFQ_QUOTE_EXPIRED', 'quote_expired', () => respond({ issued_at: nowSeconds() - 10, expires_at: nowSeconds() - 1 })],
    ['RFQ_QUOTE_EXPIRED', 'accept_expired', async () => taker.client.call('rfq.accept', (await quoted()).accept('buy', { expiresAt: nowSeconds() - 1 }))],
    ['RFQ_STATE_CONFLICT', 'rfq_ended', () => declinedThenQuoted()],
    [
      'RFQ_STATE_CONFLICT',
      'quoted_by_another',
      async () =>
        maker.client.call(
          'rfq.maker.respond',
          signedQuote(maker.wallet, (await quoted(SOL1(), await fresh(['quoter']))).rfq, terms(nextNonce()), sol.expiry).params,
        ),
    ],
    [
      'RFQ_STATE_CONFLICT',
      'already_quoted',
      async () => maker.client.call('rfq.maker.respond', signedQuote(maker.wallet, (await quoted()).rfq, terms(nextNonce()), sol.expiry).params),
    ],
    ['RFQ_STATE_CONFLICT', 'nonce_not_increasing', () => respond({ quote_nonce: '1' })],
    ['RFQ_STATE_CONFLICT', 'already_accepted', () => acceptedThenCancelled()],
    ['RFQ_STATE_CONFLICT', 'rfq_cancelled', () => cancelledThenAccepted()],
    ['RFQ_TAKER_UNFUNDED', 'taker_unfunded', () => unfundedTaker()],
    [
      'RFQ_BALANCE_INSUFFICIENT',
      'maker_unfunded',
      async () => taker.client.call('rfq.accept', (await quoted(SOL1(), await fresh(['quoter']))).accept('sell')),
      true,
    ],
    ['RFQ_PRICE_TOLERANCE', 'price_band', () => limited({ price_band_bps: 1 }, { bid: '-1000', ask: '1000' })],
  ];

  async function paused(run: Drive) {
    await pauseRound(app, btc, true);
    try {
      return await run();
    } finally {
      await pauseRound(app, btc, false);
    }
  }
  async function openLimitOfTaker() {
    for (let i = 0; i < 8; i++) await openRfq();
    return create(SOL1());
  }
  async function secondQuote(limits: object) {
    const m = await fresh(['quoter']);
    await m.client.result('rfq.maker.set_limits', { limits });
    await quoted(SOL1(), m);
    return respond({}, m);
  }
  /** A maker frozen until a reset (frozen_seconds 0) by its first fill. */
  async function frozen() {
    const m = await fresh(['quoter']);
    await deposit(app, m.accountId, '100000');
    await m.client.result('rfq.maker.set_limits', { limits: { protection: { window_seconds: 60, max_fills: 0, frozen_seconds: 0 } } });
    const { rfq, accept } = await quoted(SOL1(), m);
    await taker.client.result('rfq.accept', accept());
    await waitForState(taker, rfq.rfq_id, ['filled']);
    for (let i = 0; i < 50 && !(await m.client.result('rfq.maker.get_limits', {})).protection.frozen; i++) await new Promise((r) => setTimeout(r, 50));
    return respond({}, m);
  }
  async function anonymous(run: (c: RpcClient) => Promise<any>) {
    const c = await RpcClient.connect(app.wsUrl, { 'x-forwarded-for': freshIp() });
    try {
      return await run(c);
    } finally {
      await c.close();
    }
  }
  async function ownRfq() {
    const both = await fresh(['taker', 'quoter']);
    const rfq = await both.client.result('rfq.create', { client_ref: clientRef(), legs: SOL1() });
    const reply = await both.client.call('rfq.maker.respond', signedQuote(both.wallet, rfq, terms(nextNonce()), sol.expiry).params);
    await both.client.result('rfq.cancel_all', {});
    return reply;
  }
  async function reusedRef() {
    const ref = clientRef();
    await taker.client.result('rfq.create', { client_ref: ref, legs: SOL1() });
    return taker.client.call('rfq.create', { client_ref: ref, legs: [leg(sol.symbol('160'), '1')] });
  }
  async function declinedThenQuoted() {
    const rfq = await openRfq();
    const other = await fresh(['quoter']);
    await other.client.result('rfq.maker.decline', { rfq_id: rfq.rfq_id, reason: 'size_limit' });
    return maker.client.call('rfq.maker.respond', signedQuote(maker.wallet, rfq, terms(nextNonce()), sol.expiry).params);
  }
  async function acceptedThenCancelled() {
    const m = await fresh(['quoter']);
    await deposit(app, m.accountId, '100000');
    const { rfq, accept } = await quoted(SOL1(), m);
    await taker.client.result('rfq.accept', accept());
    return taker.client.call('rfq.cancel', { rfq_id: rfq.rfq_id });
  }
  async function cancelledThenAccepted() {
    const { rfq, accept } = await quoted();
    await taker.client.result('rfq.cancel', { rfq_id: rfq.rfq_id });
    return taker.client.call('rfq.accept', accept());
  }
  async function unfundedTaker() {
    const poor = await fresh(['taker']);
    const rfq = await poor.client.result('rfq.create', { client_ref: clientRef(), legs: SOL1() });
    const q = signedQuote(maker.wallet, rfq, terms(nextNonce()), sol.expiry);
    await maker.client.result('rfq.maker.respond', q.params);
    return poor.client.call('rfq.accept', acceptParams(poor.wallet, { rfqId: rfq.rfq_id, quoteId: q.quoteId, terms: q.params }, 'buy'));
  }

  it('declares every reason driven here under its code', () => {
    for (const [code, reason] of DRIVES) expect(RFQ_ERROR_REASONS[code]).toContain(reason);
  });

  // Every row has its four values: a shorter row would hand jest's `done` to the fourth parameter.
  const rows = DRIVES.map(([code, reason, drive, retryable]) => [code, reason, drive, retryable ?? false] as const);
  it.each(rows)('%s: %s', async (code, reason, drive, retryable) => {
    const reply = await drive();
    expectRfqError(reply, code, retryable);
    expect(reply.error.data.reason).toBe(reason);
  });
});
