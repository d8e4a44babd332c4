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
import { TestWallet } from './clients';
import type { Environment, TestApp } from './harness';
import { type RfqTrader, type Round, clientRef, expectRfqError, leg, nowSeconds, on, quotePayload, rfqTrader, signedQuote, silent, terms } from './rfq-support';
import { startRfqApp } from './support/rfq-app';

/**
 * The RFQ flow over JSON-RPC (docs/spec/design.md): create, the pushes to quoters and taker, respond
 * and decline, idempotent create, get, list and poll. Each refusal of create, respond and decline is
 * rfq-errors.e2e-spec.ts; the open-RFQ limit, the rate limit and RFQ_ENABLED are rfq-limits.e2e-spec.ts.
 */
type Trader = RfqTrader;

describe('RFQ: create, quote, decline, list, subscribe', () => {
  let env: Environment;
  let app: TestApp;
  let sol: Round;
  let taker: Trader;
  let q1: Trader;
  let q2: Trader;
  let both: Trader;
  let nonce = 1_000n;
  const next = () => ++nonce;

  beforeAll(async () => {
    ({ env, app, sol, taker, q1, q2, both } = await startRfqApp());
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
    /** An RFQ as rfq.create answers it: pending, with `ref` and `legs`, its deadlines counted from `createdAt`. */
    const pendingView = (ref: string, legs: Array<{ instrument: string; quantity: string }>, createdAt: number) => ({
      rfq_id: expect.stringMatching(/^[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/),
      client_ref: ref,
      state: 'pending',
      legs,
      created_at: expect.any(Number),
      updated_at: createdAt,
      expires_at: createdAt + 120,
      max_quote_expires_at: createdAt + 3600,
      quote: null,
      accepted_side: null,
      decline_reason: null,
      failure: null,
      fill: null,
      cancelled_at: null,
      competition: null,
      quotes: null,
      best: null,
    });
    /** What a quoter sees of an RFQ: no taker, no client_ref. */
    const openView = (rfq: any) => ({
      rfq_id: rfq.rfq_id,
      legs: rfq.legs,
      created_at: rfq.created_at,
      expires_at: rfq.expires_at,
      max_quote_expires_at: rfq.max_quote_expires_at,
    });
    /** The taker rebuilds the payload from its view of a quoted RFQ: its hash is the quote_id, and the maker's signature verifies. */
    const expectVerifiableQuote = (view: any) => {
      const rebuilt = quotePayload({ publicKey: parseWallet(view.quote.maker) } as TestWallet, view, { ...view.quote }, sol.expiry);
      expect(createHash('sha256').update(rebuilt).digest('hex')).toBe(view.quote.quote_id);
      expect(new Ed25519Verifier().verify(parseWallet(view.quote.maker), rebuilt, decodeCanonicalBase64Signature(view.quote.maker_signature)!)).toBe(true);
    };

    it('create → created push and poll → respond → quoted to the taker, closed to the other quoters', async () => {
      const ref = clientRef();
      const legs = [leg(sol.symbol('160'), '1.50'), leg(sol.symbol('140', 'put'), '-2')];
      const rfq = await taker.client.result('rfq.create', { client_ref: ref, legs });
      const now = nowSeconds();
      expect(rfq).toEqual(pendingView(ref, [leg(sol.symbol('160'), '1.5'), leg(sol.symbol('140', 'put'), '-2')], rfq.created_at));
      expect(Math.abs(rfq.created_at - now)).toBeLessThanOrEqual(1);
      const open = openView(rfq);

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
      expectVerifiableQuote(view);

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
});
