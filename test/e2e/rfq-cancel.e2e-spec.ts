import { Database } from '../../src/common/database/database';
import { RfqExpiryService } from '../../src/modules/rfq/rfq-expiry.service';
import { Environment, type TestApp } from './harness';
import { type Rows, appRows, expectInvariants } from './invariants';
import {
  type RfqTrader,
  type Round,
  clientRef,
  expectRfqError,
  expirationIn,
  leg,
  listRound,
  on,
  resumeWs,
  rfqTrader,
  signedQuote,
  silent,
  terms,
} from './rfq-support';
import { acceptAndFill, acceptParams, balanceOf, deposit, marketData, nextNonce, positionsOf, quoted, waitForState } from './support/ledger';

const MAX_OPEN = 6;

/** The taker's cancel and the idempotent accept (docs/spec/design.md 15), as a client sees them. */
let env: Environment;
let app: TestApp;
let rows: Rows;
let sol: Round;
let taker: RfqTrader;
let maker: RfqTrader;
let other: RfqTrader;
const clients: RfqTrader[] = [];

const sql = (text: string, params: unknown[] = []) => app.app.get(Database).dataSource.query(text, params);
const legs = () => [leg(sol.symbol('150'), '1')];
const create = (who: RfqTrader = taker) => who.client.result('rfq.create', { client_ref: clientRef(), legs: legs() });
const fresh = async (roles: string[]) => {
  const t = await rfqTrader(app, roles);
  clients.push(t);
  return t;
};

beforeAll(async () => {
  env = await Environment.create({ MAX_OPEN_RFQS: String(MAX_OPEN), MARKET_DATA_MAX_AGE_SECONDS: '3600' });
  app = await env.start();
  rows = appRows(app);
  sol = await listRound(app, 'SOL', expirationIn(10));
  await marketData(app, 'SOL', '150');
  [taker, maker, other] = await Promise.all([fresh(['taker']), fresh(['quoter']), fresh(['taker', 'quoter'])]);
  await deposit(app, taker.accountId, '1000');
  await deposit(app, maker.accountId, '10000');
  await taker.client.result('rfq.subscribe', {});
  await maker.client.result('rfq.maker.subscribe', {});
  await other.client.result('rfq.maker.subscribe', {});
});
afterAll(async () => {
  for (const t of clients) await t.client.close();
  await app?.close();
  await env?.destroy();
});
afterEach(async () => {
  await expectInvariants(rows);
});

describe('The desk: rfq.cancel of a pending and a quoted RFQ', () => {
  it('a pending RFQ: expired with cancelled_at, the taker hears expired, quoters closed; a repeat gives the same result', async () => {
    const rfq = await create();
    expect(rfq.cancelled_at).toBeNull();
    const result = await taker.client.result('rfq.cancel', { rfq_id: rfq.rfq_id });
    expect(result).toEqual({ rfq_id: rfq.rfq_id, state: 'expired', cancelled_at: expect.any(Number) });
    expect(Math.abs(result.cancelled_at - Date.now() / 1000)).toBeLessThan(5);

    const heard = await taker.client.next(on('rfq', 'expired', rfq.rfq_id));
    expect(heard.data.rfq).toMatchObject({ rfq_id: rfq.rfq_id, state: 'expired', cancelled_at: result.cancelled_at, quote: null });
    for (const q of [maker, other]) expect((await q.client.next(on('rfq_maker', 'closed', rfq.rfq_id))).data.rfq).toMatchObject({ state: 'expired' });
    expect(await taker.client.result('rfq.get', { rfq_id: rfq.rfq_id })).toMatchObject({ state: 'expired', cancelled_at: result.cancelled_at });

    // Idempotent: the same answer, and nothing moves or is announced again.
    expect(await taker.client.result('rfq.cancel', { rfq_id: rfq.rfq_id })).toEqual(result);
    expect(await silent(taker.client, on('rfq', 'expired', rfq.rfq_id))).toBe(true);
    expect((await sql(`SELECT event, state FROM rfq_events WHERE rfq_id = $1 ORDER BY id`, [rfq.rfq_id])).map((e: any) => `${e.event}:${e.state}`)).toEqual([
      'created:pending',
      'cancelled:expired',
    ]);
    // The maker can no longer quote it.
    expectRfqError(await maker.client.call('rfq.maker.respond', signedQuote(maker.wallet, rfq, terms(nextNonce()), sol.expiry).params), 'RFQ_STATE_CONFLICT');
  });

  it('a quoted RFQ: the quoting maker hears expired, an accept is refused, and no balance moves', async () => {
    const q = await quoted(taker, maker, sol.expiry, legs());
    await taker.client.next(on('rfq', 'quoted', q.rfqId));
    await other.client.next(on('rfq_maker', 'created', q.rfqId));
    await other.client.next(on('rfq_maker', 'closed', q.rfqId));
    const before = await Promise.all([balanceOf(app, taker.accountId), balanceOf(app, maker.accountId)]);

    const result = await taker.client.result('rfq.cancel', { rfq_id: q.rfqId });
    expect(result).toEqual({ rfq_id: q.rfqId, state: 'expired', cancelled_at: expect.any(Number) });
    expect((await taker.client.next(on('rfq', 'expired', q.rfqId))).data.rfq).toMatchObject({
      cancelled_at: result.cancelled_at,
      quote: { quote_id: q.quoteId },
    });
    expect((await maker.client.next(on('rfq_maker', 'expired', q.rfqId))).data.rfq).toEqual({
      rfq_id: q.rfqId,
      quote_id: q.quoteId,
      state: 'expired',
      side: null,
      fill: null,
    });
    // Quoters other than the quoting maker heard `closed` when it was quoted; nothing more now.
    expect(await silent(other.client, (n) => n.data.rfq?.rfq_id === q.rfqId)).toBe(true);

    const accept = await taker.client.call('rfq.accept', acceptParams(taker.wallet, q, 'buy'));
    expectRfqError(accept, 'RFQ_STATE_CONFLICT');
    expect(accept.error.data).toMatchObject({ rfq_id: q.rfqId, quote_id: q.quoteId });
    expect(await Promise.all([balanceOf(app, taker.accountId), balanceOf(app, maker.accountId)])).toEqual(before);
    expect(await taker.client.result('rfq.cancel', { rfq_id: q.rfqId })).toEqual(result);
  });
});

describe('The desk: rfq.cancel refusals and the open-RFQ slot', () => {
  it("another account's or an unknown RFQ is RFQ_NOT_FOUND; a quoter without the taker role is refused", async () => {
    const rfq = await create();
    expectRfqError(await other.client.call('rfq.cancel', { rfq_id: rfq.rfq_id }), 'RFQ_NOT_FOUND');
    expectRfqError(await taker.client.call('rfq.cancel', { rfq_id: 'f'.repeat(32) }), 'RFQ_NOT_FOUND');
    expectRfqError(await maker.client.call('rfq.cancel', { rfq_id: rfq.rfq_id }), 'RFQ_WRONG_ROLE');
    expectRfqError(await maker.client.call('rfq.cancel_all', {}), 'RFQ_WRONG_ROLE');
    expectRfqError(await taker.client.call('rfq.cancel', { rfq_id: 'nope' }), 'RFQ_VALUE_OUT_OF_RANGE');
    expectRfqError(await taker.client.call('rfq.cancel_all', { extra: 1 }), 'RFQ_VALUE_OUT_OF_RANGE');
    // Untouched by the refusals.
    expect(await taker.client.result('rfq.get', { rfq_id: rfq.rfq_id })).toMatchObject({ state: 'pending', cancelled_at: null });
    await taker.client.result('rfq.cancel', { rfq_id: rfq.rfq_id });
  });

  it('declined, filled and expired (not cancelled) RFQs are RFQ_STATE_CONFLICT', async () => {
    const declined = await create();
    await maker.client.result('rfq.maker.decline', { rfq_id: declined.rfq_id, reason: 'size_limit' });
    expectRfqError(await taker.client.call('rfq.cancel', { rfq_id: declined.rfq_id }), 'RFQ_STATE_CONFLICT');

    const q = await quoted(taker, maker, sol.expiry, legs());
    expect((await acceptAndFill(taker, q, 'buy')).state).toBe('filled');
    expectRfqError(await taker.client.call('rfq.cancel', { rfq_id: q.rfqId }), 'RFQ_STATE_CONFLICT');

    const lapsed = await create();
    await sql(`UPDATE rfqs SET expires_at = expires_at - 1000 WHERE id = $1`, [lapsed.rfq_id]);
    await app.app.get(RfqExpiryService).sweep();
    await waitForState(taker, lapsed.rfq_id, ['expired']);
    expectRfqError(await taker.client.call('rfq.cancel', { rfq_id: lapsed.rfq_id }), 'RFQ_STATE_CONFLICT');
    expect(await taker.client.result('rfq.get', { rfq_id: lapsed.rfq_id })).toMatchObject({ state: 'expired', cancelled_at: null });
  });

  it('a cancel frees the open-RFQ slot: at MAX_OPEN_RFQS, cancel one and create again', async () => {
    const who = await fresh(['taker']);
    const made = [];
    for (let i = 0; i < MAX_OPEN; i++) made.push(await create(who));
    expectRfqError(await who.client.call('rfq.create', { client_ref: clientRef(), legs: legs() }), 'RFQ_OPEN_LIMIT', true);
    await who.client.result('rfq.cancel', { rfq_id: made[2].rfq_id });
    expect(await create(who)).toMatchObject({ state: 'pending' });
    expectRfqError(await who.client.call('rfq.create', { client_ref: clientRef(), legs: legs() }), 'RFQ_OPEN_LIMIT', true);
    expect((await who.client.result('rfq.cancel_all', {})).cancelled).toHaveLength(MAX_OPEN);
  });
});

describe('The desk: rfq.cancel_all and a repeated accept', () => {
  it('rfq.cancel_all cancels every pending and quoted RFQ, oldest first, and nothing else', async () => {
    const who = await fresh(['taker']);
    await deposit(app, who.accountId, '1000');
    const filled = await quoted(who, maker, sol.expiry, legs());
    await acceptAndFill(who, filled, 'buy');
    const first = await create(who);
    const q = await quoted(who, maker, sol.expiry, legs());
    const last = await create(who);
    const declined = await create(who);
    await maker.client.result('rfq.maker.decline', { rfq_id: declined.rfq_id, reason: 'near_expiry' });

    const result = await who.client.result('rfq.cancel_all', {});
    expect(result).toEqual({ cancelled: [first.rfq_id, q.rfqId, last.rfq_id] });
    for (const id of result.cancelled)
      expect(await who.client.result('rfq.get', { rfq_id: id })).toMatchObject({ state: 'expired', cancelled_at: expect.any(Number) });
    expect((await who.client.result('rfq.get', { rfq_id: filled.rfqId })).state).toBe('filled');
    expect((await who.client.result('rfq.get', { rfq_id: declined.rfq_id })).state).toBe('declined');
    expect(await sql(`SELECT open_rfqs FROM accounts WHERE id = $1`, [who.accountId])).toEqual([{ open_rfqs: 0 }]);
    expect(await who.client.result('rfq.cancel_all', {})).toEqual({ cancelled: [] });
    // Each cancelled RFQ answers rfq.cancel with its own time, as a single cancel would have.
    expect(await who.client.result('rfq.cancel', { rfq_id: q.rfqId })).toEqual({ rfq_id: q.rfqId, state: 'expired', cancelled_at: expect.any(Number) });
  });

  it('an accept repeated with the same params returns the original result, before and after the fill; other params conflict', async () => {
    const q = await quoted(taker, maker, sol.expiry, legs());
    const params = acceptParams(taker.wallet, q, 'buy');
    const first = await taker.client.result('rfq.accept', params);
    expect(first).toEqual({ rfq_id: q.rfqId, quote_id: q.quoteId, side: 'buy', state: 'accepted' });
    expect(await taker.client.result('rfq.accept', params)).toEqual(first);
    await waitForState(taker, q.rfqId, ['filled']);
    expect(await taker.client.result('rfq.accept', params)).toEqual(first);

    // Same quote, other terms: the RFQ left quoted.
    expectRfqError(await taker.client.call('rfq.accept', acceptParams(taker.wallet, q, 'sell')), 'RFQ_STATE_CONFLICT');
    expectRfqError(await taker.client.call('rfq.accept', acceptParams(taker.wallet, q, 'buy', { expiresAt: q.terms.expires_at - 1 })), 'RFQ_STATE_CONFLICT');
    // Another account replaying the taker's exact params finds no quote of its own.
    expectRfqError(await other.client.call('rfq.accept', params), 'RFQ_NOT_FOUND');

    expect(await sql(`SELECT count(*)::int AS n FROM fills WHERE rfq_id = $1`, [q.rfqId])).toEqual([{ n: 1 }]);
    expect(await sql(`SELECT event FROM rfq_events WHERE rfq_id = $1 AND event = 'accepted'`, [q.rfqId])).toHaveLength(1);
    expect((await taker.client.next(on('rfq', 'accepted', q.rfqId))).data.rfq.state).toBe('accepted');
    await taker.client.next(on('rfq', 'filled', q.rfqId));
    expect(await silent(taker.client, on('rfq', 'accepted', q.rfqId))).toBe(true);
  });
});

describe('The desk: idempotent rfq.accept under retries', () => {
  it('one accept retried 20 times at once on 5 connections: one fill, 20 identical results', async () => {
    const connections = [taker.client];
    for (let i = 0; i < 4; i++) connections.push(await resumeWs(app, taker.wallet, taker.accountId, ['taker']));
    try {
      const q = await quoted(taker, maker, sol.expiry, legs());
      const position = async () => (await positionsOf(app, taker.accountId)).find((p) => p.instrument === sol.symbol('150'))?.quantity;
      const held = await position();
      const params = acceptParams(taker.wallet, q, 'buy');
      const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => connections[i % connections.length].call('rfq.accept', params)));
      expect(replies.filter((r) => r.error)).toEqual([]);
      for (const r of replies) expect(r.result).toEqual({ rfq_id: q.rfqId, quote_id: q.quoteId, side: 'buy', state: 'accepted' });
      await waitForState(taker, q.rfqId, ['filled']);
      expect(await sql(`SELECT count(*)::int AS n FROM fills WHERE rfq_id = $1`, [q.rfqId])).toEqual([{ n: 1 }]);
      expect((await sql(`SELECT event FROM rfq_events WHERE rfq_id = $1 ORDER BY id`, [q.rfqId])).map((e: any) => e.event)).toEqual([
        'created',
        'quoted',
        'accepted',
        'submitting',
        'filled',
      ]);
      await taker.client.next(on('rfq', 'accepted', q.rfqId));
      await taker.client.next(on('rfq', 'filled', q.rfqId));
      expect(await silent(taker.client, on('rfq', 'accepted', q.rfqId))).toBe(true);
      expect(Number(await position())).toBe(Number(held ?? 0) + 1);
    } finally {
      for (const c of connections.slice(1)) await c.close();
    }
  });
});
