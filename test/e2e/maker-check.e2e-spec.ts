import { encodeBase64Signature, formatRfq, quoteId } from '@legwork/protocol';
import { Database } from '../../src/common/database/database';
import { markPrice } from '../../src/modules/market-data/domain/black76';
import { Environment, type TestApp } from './harness';
import {
  type RfqTrader,
  type Round,
  clientRef,
  expirationIn,
  leg,
  listRound,
  nowSeconds,
  pauseRound,
  quotePayload,
  rfqTrader,
  signedQuote,
  terms,
} from './rfq-support';
import { M, marketData } from './support/ledger';

/**
 * rfq.maker.check (docs/spec/design.md section 15) gives exactly respond's verdict, and changes
 * nothing: every respond failure of the RFQ e2e tests (test/e2e/rfq*.e2e-spec.ts), and the limit
 * failures, as one table. Each case runs check first, then respond with the same params, on the
 * same state.
 */
describe('rfq.maker.check', () => {
  let env: Environment;
  let app: TestApp;
  let sol: Round;
  let later: Round;
  let taker: RfqTrader;
  let q1: RfqTrader;
  let q2: RfqTrader;
  let both: RfqTrader;
  let nonce = 1_000n;
  const next = () => ++nonce;

  beforeAll(async () => {
    env = await Environment.create({ MARKET_DATA_MAX_AGE_SECONDS: '3600', RFQ_RATE_PER_SECOND: '5000', RFQ_RATE_BURST: '5000' });
    app = await env.start();
    sol = await listRound(app, 'SOL', expirationIn(10));
    later = await listRound(app, 'SOL', expirationIn(12));
    await marketData(app, 'SOL', '150', '0.8');
    [taker, q1, q2, both] = await Promise.all([
      rfqTrader(app, ['taker']),
      rfqTrader(app, ['quoter']),
      rfqTrader(app, ['quoter']),
      rfqTrader(app, ['taker', 'quoter']),
    ]);
  }, 120_000);
  afterAll(async () => {
    for (const t of [taker, q1, q2, both]) await t?.client.close();
    await app?.close();
    await env?.destroy();
  });

  const sql = (text: string, params: unknown[] = []) => app.app.get(Database).dataSource.query(text, params);
  const openRfq = (who: RfqTrader = taker, round = sol) =>
    who.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(round.symbol('150'), '1'), leg(round.symbol('160'), '-1')] });
  /** What check and respond could change: every RFQ's state and quote, and every maker's high-water mark. */
  const state = async () => ({
    rfqs: await sql(`SELECT id, state, quote_id FROM rfqs ORDER BY id`),
    nonces: await sql(`SELECT account_id, high_water::text FROM maker_nonces ORDER BY account_id`),
    events: await sql(`SELECT count(*)::int AS n FROM account_events`),
  });
  const verdict = (reply: any) => (reply.error ? { ...reply.error.data, operation_id: undefined } : { ok: true });

  /** check, then respond, same params and state: the same error (code, message, retryable, ids); check changed nothing. */
  const sameVerdict = async (who: RfqTrader, params: unknown) => {
    const before = await state();
    const checked = await who.client.call('rfq.maker.check', params);
    expect(await state()).toEqual(before);
    const responded = await who.client.call('rfq.maker.respond', params);
    expect(checked.error).toBeDefined();
    expect(verdict(checked)).toEqual(verdict(responded));
    expect(await state()).toEqual(before);
    return checked.error.data;
  };

  it('a passing check answers the payload and quote_id respond then takes, and consumes no nonce', async () => {
    const rfq = await openRfq();
    const t = terms(next());
    const { params, quoteId: expected } = signedQuote(q1.wallet, rfq, t, sol.expiry);
    const before = await state();
    const checked = await q1.client.result('rfq.maker.check', params);
    expect(checked).toEqual({ ok: true, quote_id: expected, payload: quotePayload(q1.wallet, rfq, t, sol.expiry).toString('base64') });
    expect(Buffer.from(checked.payload, 'base64')).toHaveLength(1050);
    expect(await state()).toEqual(before);
    expect(await q1.client.result('rfq.maker.check', params)).toEqual(checked);
    expect(await q1.client.result('rfq.maker.respond', params)).toEqual({ rfq_id: rfq.rfq_id, quote_id: expected, state: 'quoted' });
  });

  /** Respond failures of the params alone (shape, types, decimals), for q1 on `rfq`, changing the good params `good`. */
  const malformed = (good: any, rfq: any): Array<[string, RfqTrader, unknown, string]> => {
    const { bid: _bid, ...noBid } = good;
    return [
      ['an unknown param', q1, { ...good, side: 'buy' }, 'RFQ_VALUE_OUT_OF_RANGE'],
      ['an upper-case rfq_id', q1, { ...good, rfq_id: rfq.rfq_id.toUpperCase() }, 'RFQ_VALUE_OUT_OF_RANGE'],
      ['a number quote_nonce', q1, { ...good, quote_nonce: 5 }, 'RFQ_VALUE_OUT_OF_RANGE'],
      ['a zero-padded quote_nonce', q1, { ...good, quote_nonce: '007' }, 'RFQ_VALUE_OUT_OF_RANGE'],
      ['a quote_nonce above u64', q1, { ...good, quote_nonce: '18446744073709551616' }, 'RFQ_VALUE_OUT_OF_RANGE'],
      ['a string issued_at', q1, { ...good, issued_at: String(good.issued_at) }, 'RFQ_VALUE_OUT_OF_RANGE'],
      ['a fractional expires_at', q1, { ...good, expires_at: good.expires_at + 0.5 }, 'RFQ_VALUE_OUT_OF_RANGE'],
      ['a null maker_signature', q1, { ...good, maker_signature: null }, 'RFQ_VALUE_OUT_OF_RANGE'],
      ['no bid', q1, noBid, 'RFQ_VALUE_OUT_OF_RANGE'],
      ['a bid of 7 decimals', q1, { ...good, bid: '1.0000001' }, 'RFQ_PRECISION_UNSUPPORTED'],
      ['a number ask', q1, { ...good, ask: 2.25 }, 'RFQ_PRECISION_UNSUPPORTED'],
      ['a bid of -0', q1, { ...good, bid: '-0' }, 'RFQ_PRECISION_UNSUPPORTED'],
      ['an ask with a trailing zero', q1, { ...good, ask: '2.2500000' }, 'RFQ_PRECISION_UNSUPPORTED'],
    ];
  };

  it('gives respond’s verdict for every respond failure of the RFQ tests, and changes nothing', async () => {
    const rfq = await openRfq();
    const good = signedQuote(q1.wallet, rfq, terms(next()), sol.expiry).params;
    const signed = (who: RfqTrader, target: any, changes = {}, n = next(), round = sol) =>
      signedQuote(who.wallet, target, terms(n, changes), round.expiry).params;
    const now = nowSeconds();
    const own = await openRfq(both);
    const quoted = await openRfq();
    await q2.client.result('rfq.maker.respond', signed(q2, quoted));
    const declined = await openRfq();
    await q2.client.result('rfq.maker.decline', { rfq_id: declined.rfq_id, reason: 'size_limit' });
    const used = next();
    await q2.client.result('rfq.maker.respond', signed(q2, await openRfq(), {}, used));
    const signature = Buffer.from(good.maker_signature, 'base64');
    const cases: Array<[string, RfqTrader, unknown, string]> = [
      ...malformed(good, rfq),
      ['the taker role alone', taker, good, 'RFQ_WRONG_ROLE'],
      ['a quoter on its own RFQ', both, signed(both, own), 'RFQ_WRONG_ROLE'],
      ['an unknown RFQ', q1, signed(q1, { ...rfq, rfq_id: 'f'.repeat(32) }), 'RFQ_NOT_FOUND'],
      ['bid above ask', q1, signed(q1, rfq, { bid: '2.000001', ask: '2' }), 'RFQ_VALUE_OUT_OF_RANGE'],
      ['issued_at = expires_at', q1, signed(q1, rfq, { issued_at: now + 30, expires_at: now + 30 }), 'RFQ_VALUE_OUT_OF_RANGE'],
      ['a lifetime above 3600 s', q1, signed(q1, rfq, { issued_at: now - 3541, expires_at: now + 60 }), 'RFQ_VALUE_OUT_OF_RANGE'],
      [
        'past max_quote_expires_at',
        q1,
        signed(q1, rfq, { expires_at: rfq.max_quote_expires_at + 1, issued_at: rfq.max_quote_expires_at - 100 }),
        'RFQ_VALUE_OUT_OF_RANGE',
      ],
      ['issued in the future', q1, signed(q1, rfq, { issued_at: now + 30, expires_at: now + 90 }), 'RFQ_VALUE_OUT_OF_RANGE'],
      ['already expired', q1, signed(q1, rfq, { issued_at: now - 60, expires_at: now - 1 }), 'RFQ_QUOTE_EXPIRED'],
      ['expiring now', q1, signed(q1, rfq, { issued_at: now - 60, expires_at: now }), 'RFQ_QUOTE_EXPIRED'],
      ['a signature that is not base64', q1, { ...good, maker_signature: 'not base64' }, 'RFQ_INVALID_SIGNATURE'],
      ['a signature of 65 bytes', q1, { ...good, maker_signature: Buffer.concat([signature, Buffer.from([0])]).toString('base64') }, 'RFQ_INVALID_SIGNATURE'],
      ['an unpadded signature', q1, { ...good, maker_signature: good.maker_signature.replace(/=+$/, '') }, 'RFQ_INVALID_SIGNATURE'],
      ["another wallet's signature", q1, { ...good, maker_signature: signed(q2, rfq, {}, BigInt(good.quote_nonce)).maker_signature }, 'RFQ_INVALID_SIGNATURE'],
      [
        'a signature over other terms',
        q1,
        { ...good, maker_signature: signed(q1, rfq, { ask: '2.26' }, BigInt(good.quote_nonce)).maker_signature },
        'RFQ_INVALID_SIGNATURE',
      ],
      ['a quoted RFQ', q1, signed(q1, quoted), 'RFQ_STATE_CONFLICT'],
      ['a declined RFQ', q1, signed(q1, declined), 'RFQ_STATE_CONFLICT'],
      ['a nonce at the high-water mark', q2, signed(q2, rfq, {}, used), 'RFQ_STATE_CONFLICT'],
      ['a nonce below the high-water mark', q2, signed(q2, rfq, {}, used - 1n), 'RFQ_STATE_CONFLICT'],
    ];
    for (const [name, who, params, error] of cases) {
      const data = await sameVerdict(who, params);
      expect([name, data.error]).toEqual([name, error]);
    }
  });

  it('RFQ_INVALID_SIGNATURE carries the payload the exchange built and its quote_id, for check and respond alike', async () => {
    const rfq = await openRfq();
    const t = terms(next());
    const payload = quotePayload(q1.wallet, rfq, t, sol.expiry);
    const elsewhere = quotePayload(q1.wallet, rfq, t, sol.expiry, 'Elsewhere');
    const params = { ...signedQuote(q1.wallet, rfq, t, sol.expiry).params, maker_signature: encodeBase64Signature(q1.wallet.sign(elsewhere)) };
    const data = await sameVerdict(q1, params);
    expect(data).toMatchObject({ error: 'RFQ_INVALID_SIGNATURE', rfq_id: rfq.rfq_id, quote_id: quoteId(payload), payload: payload.toString('base64') });
  });

  it('a paused leg: RFQ_INVALID_INSTRUMENT, retryable, from both', async () => {
    const rfq = await openRfq(taker, later);
    await pauseRound(app, later, true);
    try {
      const data = await sameVerdict(q1, signedQuote(q1.wallet, rfq, terms(next()), later.expiry).params);
      expect(data).toMatchObject({ error: 'RFQ_INVALID_INSTRUMENT', retryable: true });
    } finally {
      await pauseRound(app, later, false);
    }
  });

  it('the limits: RFQ_SIZE_INVALID, RFQ_PRICE_TOLERANCE, RFQ_OPEN_LIMIT (count and the kill switch), from both', async () => {
    const m = await rfqTrader(app, ['quoter']);
    try {
      const setLimits = (limits: object) => m.client.result('rfq.maker.set_limits', { limits });
      const rfq = await openRfq();
      await setLimits({ max_quote_notional: '100' });
      expect(await sameVerdict(m, signedQuote(m.wallet, rfq, terms(next()), sol.expiry).params)).toMatchObject({ error: 'RFQ_SIZE_INVALID' });
      const secs = sol.expiry - nowSeconds();
      const mark =
        markPrice({ index: 150n * M, strike: 150n * M, kind: 'call', iv: 800_000n, secondsToExpiry: secs }) -
        markPrice({ index: 150n * M, strike: 160n * M, kind: 'call', iv: 800_000n, secondsToExpiry: secs });
      await setLimits({ price_band_bps: 10 });
      const wide = signedQuote(m.wallet, rfq, terms(next(), { bid: formatRfq(mark - 5n * M), ask: formatRfq(mark + 5n * M) }), sol.expiry).params;
      expect(await sameVerdict(m, wide)).toMatchObject({ error: 'RFQ_PRICE_TOLERANCE' });
      await setLimits({ max_open_quotes: 1 });
      await m.client.result('rfq.maker.respond', signedQuote(m.wallet, await openRfq(), terms(next()), sol.expiry).params);
      expect(await sameVerdict(m, signedQuote(m.wallet, rfq, terms(next()), sol.expiry).params)).toMatchObject({ error: 'RFQ_OPEN_LIMIT', retryable: true });
      await setLimits({ max_open_quotes: 0 });
      // design.md section 19: the kill switch is not retryable.
      expect(await sameVerdict(m, signedQuote(m.wallet, rfq, terms(next()), sol.expiry).params)).toMatchObject({
        error: 'RFQ_OPEN_LIMIT',
        reason: 'kill_switch',
        retryable: false,
      });
    } finally {
      await m.client.close();
    }
  });

  it('counts against the rate limit like respond', async () => {
    const own = await Environment.create({ RFQ_RATE_PER_SECOND: '1', RFQ_RATE_BURST: '3' });
    const limited = await own.start();
    try {
      const m = await rfqTrader(limited, ['quoter']);
      const replies = await Promise.all(Array.from({ length: 6 }, () => m.client.call('rfq.maker.check', {})));
      expect(replies.filter((r) => r.error?.data?.error === 'RFQ_RATE_LIMITED').length).toBeGreaterThanOrEqual(2);
      await m.client.close();
    } finally {
      await limited.close();
      await own.destroy();
    }
  }, 120_000);
});
