import { createHash } from 'node:crypto';
import {
  Ed25519Verifier,
  type PayloadLeg,
  decodeCanonicalBase64Signature,
  encodeBase64Signature,
  encodeQuotePayload,
  parseRfqSigned,
  parseRfqUnsigned,
  parseWallet,
  quoteId,
  signEd25519,
  signingDomain,
} from '@legwork/protocol';
import { Database } from '../../src/common/database/database';
import { loadVector } from '../vectors';
import { RpcClient, TestWallet, freshIp } from './clients';
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
  on,
  pauseRound,
  quotePayload,
  resumeWs,
  rfqTrader,
  signedQuote,
  silent,
  terms,
} from './rfq-support';

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
    env = await Environment.create();
    app = await env.start();
    sol = await listRound(app, 'SOL', expirationIn(10));
    solLater = await listRound(app, 'SOL', expirationIn(11));
    btc = await listRound(app, 'BTC', expirationIn(10));
    [taker, q1, q2, both] = await Promise.all([
      rfqTrader(app, ['taker']),
      rfqTrader(app, ['quoter']),
      rfqTrader(app, ['quoter']),
      rfqTrader(app, ['taker', 'quoter']),
    ]);
    await taker.client.result('rfq.subscribe', {});
    await q1.client.result('rfq.maker.subscribe', {});
    await q2.client.result('rfq.maker.subscribe', {});
    await both.client.result('rfq.maker.subscribe', {});
    await both.client.result('rfq.subscribe', {});
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

  describe('the full path', () => {
    it('create → created push and poll → respond → quoted to the taker, closed to the other quoters', async () => {
      const ref = clientRef();
      const legs = [leg(sol.symbol('160'), '1.50'), leg(sol.symbol('140', 'put'), '-2')];
      const rfq = await taker.client.result('rfq.create', { client_ref: ref, legs });
      const now = nowSeconds();
      expect(rfq).toEqual({
        rfq_id: expect.stringMatching(/^[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/),
        client_ref: ref,
        state: 'pending',
        legs: [leg(sol.symbol('160'), '1.5'), leg(sol.symbol('140', 'put'), '-2')],
        created_at: expect.any(Number),
        updated_at: rfq.created_at,
        expires_at: rfq.created_at + 120,
        max_quote_expires_at: rfq.created_at + 3600,
        quote: null,
        accepted_side: null,
        decline_reason: null,
        failure: null,
        fill: null,
        cancelled_at: null,
      });
      expect(Math.abs(rfq.created_at - now)).toBeLessThanOrEqual(1);
      const open = {
        rfq_id: rfq.rfq_id,
        legs: rfq.legs,
        created_at: rfq.created_at,
        expires_at: rfq.expires_at,
        max_quote_expires_at: rfq.max_quote_expires_at,
      };

      // Pushed to every subscribed quoter, taker anonymous.
      for (const q of [q1, q2, both]) {
        const created = await q.client.next(on('rfq_maker', 'created', rfq.rfq_id));
        expect(created.data).toEqual({ seq: expect.any(Number), event: 'created', rfq: open });
      }
      // And in every other quoter's poll.
      const polled = await q1.client.result('rfq.maker.poll', {});
      expect(polled.items).toContainEqual(open);

      const t = terms(next(), { bid: '-0.5', ask: '3.25' });
      const { params, quoteId: expectedQuoteId } = signedQuote(q1.wallet, rfq, t, sol.expiry);
      const answer = await q1.client.result('rfq.maker.respond', params);
      expect(answer).toEqual({ rfq_id: rfq.rfq_id, quote_id: expectedQuoteId, state: 'quoted' });

      const quoted = await taker.client.next(on('rfq', 'quoted', rfq.rfq_id));
      expect(quoted.data).toEqual({
        seq: expect.any(Number),
        account_seq: expect.any(Number),
        event: 'quoted',
        rfq: {
          ...rfq,
          state: 'quoted',
          updated_at: expect.any(Number),
          quote: {
            quote_id: expectedQuoteId,
            maker: q1.wallet.address,
            quote_nonce: t.quote_nonce,
            bid: '-0.5',
            ask: '3.25',
            issued_at: t.issued_at,
            expires_at: t.expires_at,
            maker_signature: params.maker_signature,
          },
        },
      });
      // The taker can rebuild the payload from its view and check the maker's signature.
      const view = quoted.data.rfq;
      const rebuilt = quotePayload({ publicKey: parseWallet(view.quote.maker) } as TestWallet, view, { ...view.quote }, sol.expiry);
      expect(createHash('sha256').update(rebuilt).digest('hex')).toBe(view.quote.quote_id);
      expect(new Ed25519Verifier().verify(parseWallet(view.quote.maker), rebuilt, decodeCanonicalBase64Signature(view.quote.maker_signature)!)).toBe(true);

      for (const q of [q2, both]) {
        const closed = await q.client.next(on('rfq_maker', 'closed', rfq.rfq_id));
        expect(closed.data).toEqual({ seq: expect.any(Number), event: 'closed', rfq: { ...open, state: 'quoted' } });
      }
      expect(await silent(q1.client, on('rfq_maker', 'closed', rfq.rfq_id))).toBe(true);

      expect(await taker.client.result('rfq.get', { rfq_id: rfq.rfq_id })).toEqual(view);
      expect((await taker.client.result('rfq.list', { limit: 1 })).items).toEqual([view]);
      expect((await q2.client.result('rfq.maker.poll', {})).items.map((i: any) => i.rfq_id)).not.toContain(rfq.rfq_id);
    });

    it('numbers notifications per connection without gaps', async () => {
      const seqs = taker.client.raw.filter((m) => m.method === 'subscription').map((m) => m.params.data.seq);
      expect(seqs).toEqual(seqs.map((_: number, i: number) => i + 1));
    });

    it('accepts a quote signed exactly as the vectors sign (vectors/payloads.json construction and maker seed)', async () => {
      const vectors = loadVector('payloads.json');
      const seed = Buffer.from(vectors.maker_seed_hex, 'hex');
      const maker = new TestWallet(seed);
      expect(maker.address).toBe(vectors.maker_wallet);
      const { client } = await rfqTrader(app, ['quoter'], maker);
      try {
        const rfq = await openRfq(taker, [leg(sol.symbol('150'), '1'), leg(sol.symbol('160'), '-1'), leg(sol.symbol('140', 'put'), '0.000001')]);
        const q = {
          rfq_id: rfq.rfq_id,
          maker: vectors.maker_wallet,
          quote_nonce: '1000',
          bid: '12.5',
          ask: '13.25',
          issued_at: nowSeconds(),
          expires_at: nowSeconds() + 60,
        };
        // As quote-payload.spec.ts builds a vector quote: strike and kind from the symbol.
        const vectorLeg = (v: { instrument: string; quantity: string }): PayloadLeg => {
          const [, , strike, kind] = v.instrument.split('-');
          return { symbol: v.instrument, strike: parseRfqUnsigned(strike), kind: kind === 'C' ? 'call' : 'put', quantity: parseRfqSigned(v.quantity) };
        };
        const payload = encodeQuotePayload({
          domain: signingDomain(vectors.service_name),
          rfqId: q.rfq_id,
          maker: parseWallet(q.maker),
          quoteNonce: BigInt(q.quote_nonce),
          bid: parseRfqSigned(q.bid),
          ask: parseRfqSigned(q.ask),
          issuedAt: q.issued_at,
          expiresAt: q.expires_at,
          asset: 'SOL',
          expiry: sol.expiry,
          legs: rfq.legs.map(vectorLeg),
        });
        const maker_signature = encodeBase64Signature(signEd25519(seed, payload));
        const { maker: _maker, ...params } = q;
        expect(await client.result('rfq.maker.respond', { ...params, maker_signature })).toEqual({
          rfq_id: rfq.rfq_id,
          quote_id: quoteId(payload),
          state: 'quoted',
        });
        // The vectors' own quote names an RFQ that does not exist here.
        const c = vectors.cases[0];
        const reply = await client.call('rfq.maker.respond', {
          rfq_id: c.quote.rfq_id,
          quote_nonce: '2000',
          bid: c.quote.bid,
          ask: c.quote.ask,
          issued_at: c.quote.issued_at,
          expires_at: c.quote.expires_at,
          maker_signature: c.maker_signature,
        });
        expectRfqError(reply, 'RFQ_NOT_FOUND');
      } finally {
        await client.close();
      }
    });

    it('decline: declined to the taker, closed to the other quoters', async () => {
      const rfq = await openRfq();
      const answer = await q2.client.result('rfq.maker.decline', { rfq_id: rfq.rfq_id, reason: 'size_limit' });
      expect(answer).toEqual({ rfq_id: rfq.rfq_id, state: 'declined', decline_reason: 'size_limit' });
      const declined = await taker.client.next(on('rfq', 'declined', rfq.rfq_id));
      expect(declined.data.rfq).toMatchObject({ rfq_id: rfq.rfq_id, state: 'declined', decline_reason: 'size_limit', quote: null });
      expect((await q1.client.next(on('rfq_maker', 'closed', rfq.rfq_id))).data.rfq).toMatchObject({ rfq_id: rfq.rfq_id, state: 'declined' });
      expect(await silent(q2.client, on('rfq_maker', 'closed', rfq.rfq_id))).toBe(true);
      expect(await taker.client.result('rfq.get', { rfq_id: rfq.rfq_id })).toMatchObject({ state: 'declined', decline_reason: 'size_limit' });
      // A declined RFQ takes no quote and no second decline.
      expectRfqError(await q1.client.call('rfq.maker.respond', signedQuote(q1.wallet, rfq, terms(next()), sol.expiry).params), 'RFQ_STATE_CONFLICT');
      expectRfqError(await q1.client.call('rfq.maker.decline', { rfq_id: rfq.rfq_id, reason: 'stale_data' }), 'RFQ_STATE_CONFLICT');
    });
  });

  describe('idempotent create', () => {
    it('the same legs give back the same RFQ, whatever its state; other or reordered legs are RFQ_CANONICAL_MISMATCH', async () => {
      const ref = clientRef();
      const legs = [leg(sol.symbol('150'), '1'), leg(sol.symbol('160'), '-1')];
      const first = await taker.client.result('rfq.create', { client_ref: ref, legs });
      expect(await taker.client.result('rfq.create', { client_ref: ref, legs })).toEqual(first);
      // Trailing zeros the pattern allows are the same value.
      expect(await taker.client.result('rfq.create', { client_ref: ref, legs: [leg(sol.symbol('150'), '1.000'), leg(sol.symbol('160'), '-1.0')] })).toEqual(
        first,
      );

      await q1.client.result('rfq.maker.respond', signedQuote(q1.wallet, first, terms(next()), sol.expiry).params);
      const again = await taker.client.result('rfq.create', { client_ref: ref, legs });
      expect(again).toMatchObject({ rfq_id: first.rfq_id, state: 'quoted' });

      const before = await taker.client.result('rfq.list', {});
      for (const other of [[...legs].reverse(), [legs[0]], [legs[0], leg(sol.symbol('160'), '-2')], [legs[0], leg(sol.symbol('140'), '-1')]]) {
        const reply = await taker.client.call('rfq.create', { client_ref: ref, legs: other });
        expectRfqError(reply, 'RFQ_CANONICAL_MISMATCH');
        expect(reply.error.data.rfq_id).toBe(first.rfq_id);
      }
      expect(await taker.client.result('rfq.list', {})).toEqual(before);
    });

    it('a client_ref is per account', async () => {
      const ref = clientRef();
      const a = await taker.client.result('rfq.create', { client_ref: ref, legs: [leg(sol.symbol('150'), '1')] });
      const b = await both.client.result('rfq.create', { client_ref: ref, legs: [leg(sol.symbol('150'), '1')] });
      expect(b.rfq_id).not.toBe(a.rfq_id);
    });
  });

  describe('get, list, poll', () => {
    it("lists newest first with a cursor and a states filter; get shows only the caller's own", async () => {
      const lister = await rfqTrader(app, ['taker']);
      try {
        const made = [];
        for (let i = 0; i < 3; i++) made.push(await openRfq(lister));
        await q1.client.result('rfq.maker.decline', { rfq_id: made[1].rfq_id, reason: 'stale_data' });
        const ids = made.map((r) => r.rfq_id).reverse();

        const page1 = await lister.client.result('rfq.list', { limit: 2 });
        expect(page1.items.map((r: any) => r.rfq_id)).toEqual(ids.slice(0, 2));
        expect(page1.next_cursor).toBe(ids[1]);
        const page2 = await lister.client.result('rfq.list', { limit: 2, cursor: page1.next_cursor });
        expect(page2.items.map((r: any) => r.rfq_id)).toEqual(ids.slice(2));
        expect(page2).not.toHaveProperty('next_cursor');
        expect((await lister.client.result('rfq.list', { states: ['declined'] })).items.map((r: any) => r.rfq_id)).toEqual([made[1].rfq_id]);
        expect((await lister.client.result('rfq.list', { states: ['pending', 'quoted'] })).items.map((r: any) => r.rfq_id)).toEqual([ids[0], ids[2]]);
        expect((await lister.client.result('rfq.list', { states: [] })).items).toEqual([]);
        expect((await lister.client.result('rfq.list', {})).items[0]).toEqual(await lister.client.result('rfq.get', { rfq_id: ids[0] }));

        // Another account's RFQ is not found, for rfq.get and in rfq.list.
        expectRfqError(await taker.client.call('rfq.get', { rfq_id: made[0].rfq_id }), 'RFQ_NOT_FOUND');
        expect((await taker.client.result('rfq.list', {})).items.map((r: any) => r.rfq_id)).not.toContain(made[0].rfq_id);
        expectRfqError(await lister.client.call('rfq.get', { rfq_id: '0'.repeat(32) }), 'RFQ_NOT_FOUND');
      } finally {
        await lister.client.close();
      }
    });

    it('the live book keeps an ended RFQ 24 h after it ended', async () => {
      const kept = await openRfq();
      const gone = await openRfq();
      for (const r of [kept, gone]) await q1.client.result('rfq.maker.decline', { rfq_id: r.rfq_id, reason: 'near_expiry' });
      const db = app.app.get(Database).dataSource;
      await db.query(`UPDATE rfqs SET ended_at = $2 WHERE id = $1`, [kept.rfq_id, nowSeconds() - 86_400 + 60]);
      await db.query(`UPDATE rfqs SET ended_at = $2 WHERE id = $1`, [gone.rfq_id, nowSeconds() - 86_400]);
      expect(await taker.client.result('rfq.get', { rfq_id: kept.rfq_id })).toMatchObject({ state: 'declined' });
      expectRfqError(await taker.client.call('rfq.get', { rfq_id: gone.rfq_id }), 'RFQ_NOT_FOUND');
      const listed = (await taker.client.result('rfq.list', { states: ['declined'] })).items.map((r: any) => r.rfq_id);
      expect(listed).toContain(kept.rfq_id);
      expect(listed).not.toContain(gone.rfq_id);
    });

    it('polls pending RFQs of others, oldest first, page by page', async () => {
      for (let i = 0; i < 3; i++) await openRfq();
      const own = await openRfq(both);
      const all = await both.client.result('rfq.maker.poll', {});
      const ids = all.items.map((r: any) => r.rfq_id);
      expect(ids.length).toBeGreaterThanOrEqual(3);
      expect([...ids].sort()).toEqual(ids);
      expect(ids).not.toContain(own.rfq_id);
      expect(all.items[0]).toEqual({
        rfq_id: expect.any(String),
        legs: expect.any(Array),
        created_at: expect.any(Number),
        expires_at: expect.any(Number),
        max_quote_expires_at: expect.any(Number),
      });
      const paged: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await both.client.result('rfq.maker.poll', cursor ? { limit: 2, cursor } : { limit: 2 });
        expect(page.items.length).toBeLessThanOrEqual(2);
        paged.push(...page.items.map((r: any) => r.rfq_id));
        cursor = page.next_cursor;
      } while (cursor);
      expect(paged).toEqual(ids);
      // The taker's quoter connection sees its own RFQ in the other quoters' poll only.
      expect((await q1.client.result('rfq.maker.poll', {})).items.map((r: any) => r.rfq_id)).toContain(own.rfq_id);
    });

    it('subscribe results', async () => {
      expect(await taker.client.result('rfq.subscribe', {})).toEqual({ channel: 'rfq', subscribed: true, account_seq: expect.any(Number) });
      expect(await q1.client.result('rfq.maker.subscribe', {})).toEqual({ channel: 'rfq_maker', subscribed: true, account_seq: expect.any(Number) });
      expect(await q1.client.result('rfq.subscribe', {})).toEqual({ channel: 'rfq', subscribed: true, account_seq: expect.any(Number) });
    });
  });

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

describe('RFQ limits and switches', () => {
  let env: Environment;
  afterEach(async () => {
    await env?.destroy();
  });

  it('MAX_OPEN_RFQS: RFQ_OPEN_LIMIT (retryable), and the rate limit: RFQ_RATE_LIMITED (retryable)', async () => {
    env = await Environment.create();
    const app = await env.start({ MAX_OPEN_RFQS: '2', RFQ_RATE_PER_SECOND: '1', RFQ_RATE_BURST: '8' });
    const clients: RpcClient[] = [];
    try {
      const sol = await listRound(app, 'SOL', expirationIn(10));
      const [taker, quoter, chatty] = await Promise.all([rfqTrader(app, ['taker']), rfqTrader(app, ['quoter']), rfqTrader(app, ['taker'])]);
      clients.push(taker.client, quoter.client, chatty.client);
      const a = await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1')] });
      await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1')] });
      const before = await taker.client.result('rfq.list', {});
      const reply = await taker.client.call('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1')] });
      expectRfqError(reply, 'RFQ_OPEN_LIMIT', true);
      expect(await taker.client.result('rfq.list', {})).toEqual(before);
      // A replay of an existing create is not a new open RFQ.
      expect(await taker.client.result('rfq.create', { client_ref: a.client_ref, legs: a.legs })).toEqual(a);
      // An ended RFQ frees its place.
      await quoter.client.result('rfq.maker.decline', { rfq_id: a.rfq_id, reason: 'size_limit' });
      expect(await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1')] })).toMatchObject({ state: 'pending' });

      const replies = [];
      for (let i = 0; i < 12; i++) replies.push(await chatty.client.call('rfq.list', {}));
      const limited = replies.filter((r) => r.error);
      expect(limited.length).toBeGreaterThan(0);
      expectRfqError(limited[0], 'RFQ_RATE_LIMITED', true);
    } finally {
      for (const c of clients) await c.close();
      await app.close();
    }
  });

  it('RFQ_ENABLED=false: RFQ_NOT_ENABLED for every rfq method', async () => {
    env = await Environment.create();
    const app = await env.start({ RFQ_ENABLED: 'false' });
    const t = await rfqTrader(app, ['taker', 'quoter']);
    try {
      for (const method of [
        'rfq.create',
        'rfq.get',
        'rfq.list',
        'rfq.subscribe',
        'rfq.maker.poll',
        'rfq.maker.respond',
        'rfq.maker.decline',
        'rfq.maker.subscribe',
      ]) {
        expectRfqError(await t.client.call(method, {}), 'RFQ_NOT_ENABLED');
      }
    } finally {
      await t.client.close();
      await app.close();
    }
  });
});
