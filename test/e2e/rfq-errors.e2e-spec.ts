import { encodeBase64Signature } from '@legwork/protocol';
import { RpcClient, TestWallet, freshIp } from './clients';
import type { Environment, TestApp } from './harness';
import { type RfqTrader, type Round, clientRef, expectRfqError, leg, nowSeconds, pauseRound, quotePayload, resumeWs, signedQuote, terms } from './rfq-support';
import { startRfqApp } from './support/rfq-app';

/**
 * Each refusal of rfq.create (nothing is created) and of rfq.maker.respond and rfq.maker.decline
 * (nothing changes, no nonce is consumed), with its error code. The flow itself is rfq.e2e-spec.ts.
 */
type Trader = RfqTrader;

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** The same 64 bytes in a non-canonical text: a low unused bit of the last character set. */
function nonCanonical(signature: string): string {
  const last = BASE64.indexOf(signature[85]);
  return signature.slice(0, 85) + BASE64[last ^ 1] + '==';
}

describe('RFQ: create, quote, decline, list, subscribe', () => {
  let env: Environment;
  let app: TestApp;
  let sol: Round;
  let solLater: Round;
  let btc: Round;
  let taker: Trader;
  let q1: Trader;
  let q2: Trader;
  let both: Trader;
  let nonce = 1_000n;
  const next = () => ++nonce;

  beforeAll(async () => {
    ({ env, app, sol, solLater, btc, taker, q1, q2, both } = await startRfqApp());
  });
  afterAll(async () => {
    for (const t of [taker, q1, q2, both]) await t?.client.close();
    await app?.close();
    await env?.destroy();
  });

  /** A pending RFQ of `who` (default: the taker) on `legs` (default: one SOL call). */
  async function openRfq(who: Trader = taker, legs = [leg(sol.symbol('150'), '1')]) {
    return who.client.result('rfq.create', { client_ref: clientRef(), legs });
  }

  describe('errors of rfq.create (nothing is created)', () => {
    let before: any;
    beforeEach(async () => {
      before = await taker.client.result('rfq.list', {});
    });
    afterEach(async () => {
      expect(await taker.client.result('rfq.list', {})).toEqual(before);
    });

    const create = (params: unknown) => taker.client.call('rfq.create', params);
    const one = (quantity: unknown, instrument?: string) => ({ client_ref: clientRef(), legs: [{ instrument: instrument ?? sol.symbol('150'), quantity }] });

    it.each([
      ['no params object', []],
      ['an unknown param', { client_ref: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', legs: [{ instrument: 'SOL', quantity: '1' }], note: 'x' }],
      ['no client_ref', { legs: [{ instrument: 'SOL', quantity: '1' }] }],
      ['an upper-case client_ref', { client_ref: '0193A1B2-C3D4-7E5F-8A9B-0C1D2E3F4A5B', legs: [{ instrument: 'SOL', quantity: '1' }] }],
      ['legs not an array', { client_ref: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', legs: 'SOL' }],
      ['a leg with an extra field', { client_ref: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', legs: [{ instrument: 'SOL', quantity: '1', side: 'buy' }] }],
      ['a quantity beyond i64', { client_ref: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', legs: [{ instrument: 'SOL', quantity: '9223372036855' }] }],
    ])('%s: RFQ_VALUE_OUT_OF_RANGE', async (_name, params) => {
      expectRfqError(await create(params), 'RFQ_VALUE_OUT_OF_RANGE');
    });

    it.each([['1.0000001'], ['-0'], [1], ['1e2'], ['+1'], ['.5']])('quantity %j: RFQ_PRECISION_UNSUPPORTED', async (quantity) => {
      const reply = await create(one(quantity));
      expectRfqError(reply, 'RFQ_PRECISION_UNSUPPORTED');
      expect(reply.error.data.message).toContain('legs[0].quantity');
    });

    it('zero quantity, no legs, 14 legs: RFQ_SIZE_INVALID', async () => {
      expectRfqError(await create(one('0')), 'RFQ_SIZE_INVALID');
      expectRfqError(await create(one('0.000')), 'RFQ_SIZE_INVALID');
      expectRfqError(await create({ client_ref: clientRef(), legs: [] }), 'RFQ_SIZE_INVALID');
      const fourteen = Array.from({ length: 14 }, (_, i) => leg(sol.symbol(String(140 + i)), '1'));
      expectRfqError(await create({ client_ref: clientRef(), legs: fourteen }), 'RFQ_SIZE_INVALID');
    });

    it.each([
      ['unknown', () => [leg(sol.symbol('150'), '1'), leg('SOL-01JAN30-150-C', '1')], 'legs[1]'],
      ['a malformed symbol', () => [leg('nope', '1')], 'legs[0]'],
      ['a duplicate', () => [leg(sol.symbol('150'), '1'), leg(sol.symbol('160'), '1'), leg(sol.symbol('150'), '-1')], 'legs[2]'],
      ['of another expiry', () => [leg(sol.symbol('150'), '1'), leg(solLater.symbol('150'), '-1')], 'legs[1]'],
      ['of another asset', () => [leg(sol.symbol('150'), '1'), leg(btc.symbol('150'), '-1')], 'legs[1]'],
    ])('a leg %s: RFQ_INVALID_INSTRUMENT naming it, not retryable', async (_name, legs, index) => {
      const reply = await create({ client_ref: clientRef(), legs: legs() });
      expectRfqError(reply, 'RFQ_INVALID_INSTRUMENT', false);
      expect(reply.error.data.message).toContain(index);
    });

    it('a paused leg: RFQ_INVALID_INSTRUMENT, retryable; fine again once resumed', async () => {
      await pauseRound(app, solLater, true);
      try {
        const reply = await create({ client_ref: clientRef(), legs: [leg(solLater.symbol('150'), '1'), leg(solLater.symbol('160'), '1')] });
        expectRfqError(reply, 'RFQ_INVALID_INSTRUMENT', true);
        expect(reply.error.data.message).toContain('legs[0]');
      } finally {
        await pauseRound(app, solLater, false);
      }
    });

    it('wrong role: a quoter without the taker role, a connection not signed in, a wallet without an account', async () => {
      expectRfqError(await q1.client.call('rfq.create', one('1')), 'RFQ_WRONG_ROLE');
      const anonymous = await RpcClient.connect(app.wsUrl, { 'x-forwarded-for': freshIp() });
      const accountless = await resumeWs(app, new TestWallet(), null, []);
      try {
        for (const client of [anonymous, accountless]) {
          for (const method of ['rfq.create', 'rfq.get', 'rfq.list', 'rfq.subscribe', 'rfq.maker.poll', 'rfq.maker.subscribe']) {
            expectRfqError(await client.call(method, {}), 'RFQ_WRONG_ROLE');
          }
        }
      } finally {
        await anonymous.close();
        await accountless.close();
      }
    });
  });

  describe('errors of rfq.maker.respond and rfq.maker.decline (nothing changes, no nonce is consumed)', () => {
    let rfq: any;
    let quoteNonce: bigint;
    beforeAll(async () => {
      rfq = await openRfq(taker, [leg(sol.symbol('150'), '2'), leg(sol.symbol('140', 'put'), '1')]);
    });
    beforeEach(() => {
      quoteNonce = next();
    });
    afterEach(async () => {
      expect(await taker.client.result('rfq.get', { rfq_id: rfq.rfq_id })).toEqual(rfq);
    });
    afterAll(async () => {
      // Every failed respond above left the nonce unconsumed: the last one still quotes.
      expect(await q1.client.result('rfq.maker.respond', signedQuote(q1.wallet, rfq, terms(quoteNonce), sol.expiry).params)).toMatchObject({ state: 'quoted' });
    });

    const respond = (changes: Partial<ReturnType<typeof terms>> = {}, who: Trader = q1, target = rfq) =>
      who.client.call('rfq.maker.respond', signedQuote(who.wallet, target, terms(quoteNonce, changes), sol.expiry).params);

    it('schema: RFQ_VALUE_OUT_OF_RANGE naming the field', async () => {
      const good = signedQuote(q1.wallet, rfq, terms(quoteNonce), sol.expiry).params;
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ ...good, side: 'buy' }, 'side'],
        [{ ...good, rfq_id: rfq.rfq_id.toUpperCase() }, 'rfq_id'],
        [{ ...good, quote_nonce: 5 }, 'quote_nonce'],
        [{ ...good, quote_nonce: '007' }, 'quote_nonce'],
        [{ ...good, quote_nonce: '18446744073709551616' }, 'quote_nonce'],
        [{ ...good, issued_at: String(good.issued_at) }, 'issued_at'],
        [{ ...good, expires_at: good.expires_at + 0.5 }, 'expires_at'],
        [{ ...good, maker_signature: null }, 'maker_signature'],
      ];
      for (const [params, field] of cases) {
        const reply = await q1.client.call('rfq.maker.respond', params);
        expectRfqError(reply, 'RFQ_VALUE_OUT_OF_RANGE');
        expect(reply.error.data.message).toContain(field);
      }
      const { bid: _bid, ...noBid } = good;
      expectRfqError(await q1.client.call('rfq.maker.respond', noBid), 'RFQ_VALUE_OUT_OF_RANGE');
    });

    it('a non-canonical bid or ask: RFQ_PRECISION_UNSUPPORTED', async () => {
      const good = signedQuote(q1.wallet, rfq, terms(quoteNonce), sol.expiry).params;
      for (const changes of [{ bid: '1.0000001' }, { ask: 2.25 }, { bid: '-0' }, { ask: '2.2500000' }]) {
        expectRfqError(await q1.client.call('rfq.maker.respond', { ...good, ...changes }), 'RFQ_PRECISION_UNSUPPORTED');
      }
    });

    it('the taker role alone, or a quoter on its own RFQ: RFQ_WRONG_ROLE', async () => {
      for (const method of ['rfq.maker.respond', 'rfq.maker.decline', 'rfq.maker.poll', 'rfq.maker.subscribe']) {
        expectRfqError(await taker.client.call(method, {}), 'RFQ_WRONG_ROLE');
      }
      const own = await openRfq(both);
      const reply = await both.client.call('rfq.maker.respond', signedQuote(both.wallet, own, terms(quoteNonce), sol.expiry).params);
      expectRfqError(reply, 'RFQ_WRONG_ROLE');
      expectRfqError(await both.client.call('rfq.maker.decline', { rfq_id: own.rfq_id, reason: 'size_limit' }), 'RFQ_WRONG_ROLE');
      expect(await both.client.result('rfq.get', { rfq_id: own.rfq_id })).toEqual(own);
    });

    it('an unknown RFQ: RFQ_NOT_FOUND', async () => {
      const reply = await respond({}, q1, { ...rfq, rfq_id: 'f'.repeat(32) });
      expectRfqError(reply, 'RFQ_NOT_FOUND');
      expectRfqError(await q1.client.call('rfq.maker.decline', { rfq_id: 'f'.repeat(32), reason: 'size_limit' }), 'RFQ_NOT_FOUND');
    });

    it('values and times: RFQ_VALUE_OUT_OF_RANGE, never clamped', async () => {
      const now = nowSeconds();
      for (const changes of [
        { bid: '2.000001', ask: '2' },
        { issued_at: now + 30, expires_at: now + 30 },
        { issued_at: now - 3541, expires_at: now + 60 },
        { expires_at: rfq.max_quote_expires_at + 1, issued_at: rfq.max_quote_expires_at - 100 },
        { issued_at: now + 30, expires_at: now + 90 },
      ]) {
        const reply = await respond(changes);
        expectRfqError(reply, 'RFQ_VALUE_OUT_OF_RANGE');
        expect(reply.error.data.rfq_id).toBe(rfq.rfq_id);
      }
    });

    it('a quote already past its expires_at: RFQ_QUOTE_EXPIRED', async () => {
      const now = nowSeconds();
      expectRfqError(await respond({ issued_at: now - 60, expires_at: now - 1 }), 'RFQ_QUOTE_EXPIRED');
      expectRfqError(await respond({ issued_at: now - 60, expires_at: now }), 'RFQ_QUOTE_EXPIRED');
    });

    it('a bad signature: RFQ_INVALID_SIGNATURE', async () => {
      const { params } = signedQuote(q1.wallet, rfq, terms(quoteNonce), sol.expiry);
      const signature = Buffer.from(params.maker_signature, 'base64');
      const variants = [
        'not base64',
        nonCanonical(params.maker_signature), // same bytes, unused bits set
        Buffer.concat([signature, Buffer.from([0])]).toString('base64'),
        params.maker_signature.replace(/=+$/, ''),
        signedQuote(q2.wallet, rfq, terms(quoteNonce), sol.expiry).params.maker_signature, // another wallet's key
        signedQuote(q1.wallet, rfq, terms(quoteNonce, { ask: '2.26' }), sol.expiry).params.maker_signature, // other terms
      ];
      for (const maker_signature of variants) {
        const reply = await q1.client.call('rfq.maker.respond', { ...params, maker_signature });
        expectRfqError(reply, 'RFQ_INVALID_SIGNATURE');
      }
      // Signed for another service's domain.
      const payload = quotePayload(q1.wallet, rfq, terms(quoteNonce), sol.expiry, 'Elsewhere');
      expectRfqError(
        await q1.client.call('rfq.maker.respond', { ...params, maker_signature: encodeBase64Signature(q1.wallet.sign(payload)) }),
        'RFQ_INVALID_SIGNATURE',
      );
    });

    it('a paused leg: RFQ_INVALID_INSTRUMENT, retryable', async () => {
      const later = await openRfq(taker, [leg(solLater.symbol('150'), '1')]);
      await pauseRound(app, solLater, true);
      try {
        const reply = await q1.client.call('rfq.maker.respond', signedQuote(q1.wallet, later, terms(quoteNonce), solLater.expiry).params);
        expectRfqError(reply, 'RFQ_INVALID_INSTRUMENT', true);
        expect(reply.error.data.message).toContain('legs[0]');
      } finally {
        await pauseRound(app, solLater, false);
      }
      expect(await taker.client.result('rfq.get', { rfq_id: later.rfq_id })).toEqual(later);
    });

    it('a quote_nonce at or below the high-water mark: RFQ_STATE_CONFLICT', async () => {
      const other = await openRfq();
      const used = next();
      await q2.client.result('rfq.maker.respond', signedQuote(q2.wallet, other, terms(used), sol.expiry).params);
      for (const n of [used, used - 1n]) {
        const reply = await q2.client.call('rfq.maker.respond', signedQuote(q2.wallet, rfq, terms(n), sol.expiry).params);
        expectRfqError(reply, 'RFQ_STATE_CONFLICT');
      }
    });

    it('a second respond, or a decline, on a quoted RFQ: RFQ_STATE_CONFLICT', async () => {
      const other = await openRfq();
      await q2.client.result('rfq.maker.respond', signedQuote(q2.wallet, other, terms(next()), sol.expiry).params);
      const after = await taker.client.result('rfq.get', { rfq_id: other.rfq_id });
      const reply = await q1.client.call('rfq.maker.respond', signedQuote(q1.wallet, other, terms(quoteNonce), sol.expiry).params);
      expectRfqError(reply, 'RFQ_STATE_CONFLICT');
      expect(reply.error.data.rfq_id).toBe(other.rfq_id);
      expectRfqError(await q1.client.call('rfq.maker.decline', { rfq_id: other.rfq_id, reason: 'size_limit' }), 'RFQ_STATE_CONFLICT');
      expect(await taker.client.result('rfq.get', { rfq_id: other.rfq_id })).toEqual(after);
    });

    it('decline with a reason off the enum: RFQ_VALUE_OUT_OF_RANGE', async () => {
      for (const params of [{ rfq_id: rfq.rfq_id, reason: 'too_big' }, { rfq_id: rfq.rfq_id }, { rfq_id: rfq.rfq_id, reason: 'size_limit', why: 1 }]) {
        expectRfqError(await q1.client.call('rfq.maker.decline', params), 'RFQ_VALUE_OUT_OF_RANGE');
      }
    });

    it('list and poll params: RFQ_VALUE_OUT_OF_RANGE', async () => {
      for (const params of [{ limit: 0 }, { limit: 101 }, { cursor: 'abc' }, { states: ['pending', 'pending'] }, { states: ['open'] }, { after: 1 }]) {
        expectRfqError(await taker.client.call('rfq.list', params), 'RFQ_VALUE_OUT_OF_RANGE');
      }
      for (const params of [{ limit: 0 }, { cursor: 1 }, { states: ['pending'] }]) {
        expectRfqError(await q1.client.call('rfq.maker.poll', params), 'RFQ_VALUE_OUT_OF_RANGE');
      }
      expectRfqError(await taker.client.call('rfq.subscribe', { channel: 'rfq' }), 'RFQ_VALUE_OUT_OF_RANGE');
      expectRfqError(await taker.client.call('rfq.get', { rfq_id: 1 }), 'RFQ_VALUE_OUT_OF_RANGE');
    });
  });
});
