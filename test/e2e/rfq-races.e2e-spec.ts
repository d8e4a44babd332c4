import { Database } from '../../src/common/database/database';
import { InstrumentsService } from '../../src/modules/instruments/instruments.service';
import { RfqExpiryService } from '../../src/modules/rfq/rfq-expiry.service';
import type { RpcClient } from './clients';
import { Environment, type TestApp } from './harness';
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
import { repetitions } from './support/long';

/** 20 in `npm run test:long`, 5 in `npm test`. */
const ROUNDS = repetitions(5, 20);
const QUOTERS = 8;

/** First wins, with real concurrency: many connections firing at once. */
describe('RFQ races', () => {
  let env: Environment;
  let app: TestApp;
  let sol: Round;
  let taker: RfqTrader;
  let quoters: RfqTrader[];

  beforeAll(async () => {
    env = await Environment.create();
    app = await env.start({ MAX_OPEN_RFQS: '1000' });
    sol = await listRound(app, 'SOL', expirationIn(10));
    taker = await rfqTrader(app, ['taker']);
    await taker.client.result('rfq.subscribe', {});
    quoters = await Promise.all(Array.from({ length: QUOTERS }, () => rfqTrader(app, ['quoter'])));
  });
  afterAll(async () => {
    for (const t of [taker, ...(quoters ?? [])]) await t?.client.close();
    await app?.close();
    await env?.destroy();
  });

  const sql = (text: string, params: unknown[] = []) => app.app.get(Database).dataSource.query(text, params);

  it('20 concurrent identical rfq.create make one RFQ', async () => {
    const connections: RpcClient[] = [taker.client];
    for (let i = 0; i < 4; i++) connections.push(await resumeWs(app, taker.wallet, taker.accountId, ['taker']));
    try {
      const ref = clientRef();
      const params = { client_ref: ref, legs: [leg(sol.symbol('150'), '1'), leg(sol.symbol('160'), '-1')] };
      const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => connections[i % connections.length].call('rfq.create', params)));
      expect(replies.filter((r) => r.error)).toEqual([]);
      const ids = new Set(replies.map((r) => r.result.rfq_id));
      expect(ids.size).toBe(1);
      for (const r of replies) expect(r.result).toEqual(replies[0].result);
      expect(await sql(`SELECT count(*)::int AS n FROM rfqs WHERE account_id = $1 AND client_ref = $2`, [taker.accountId, ref])).toEqual([{ n: 1 }]);
      expect(await sql(`SELECT count(*)::int AS n FROM rfq_events WHERE rfq_id = $1`, [replies[0].result.rfq_id])).toEqual([{ n: 1 }]);
    } finally {
      for (const c of connections.slice(1)) await c.close();
    }
  });

  it('at MAX_OPEN_RFQS, 20 concurrent creates of new client_refs: exactly the free slots are taken; an end frees one', async () => {
    const own = await Environment.create({ MAX_OPEN_RFQS: '5' });
    const limited = await own.start();
    const round = await listRound(limited, 'SOL', expirationIn(10));
    const who = await rfqTrader(limited, ['taker']);
    const maker = await rfqTrader(limited, ['quoter']);
    const connections: RpcClient[] = [who.client];
    try {
      for (let i = 0; i < 4; i++) connections.push(await resumeWs(limited, who.wallet, who.accountId, ['taker']));
      const legs = [leg(round.symbol('150'), '1')];
      const first = await who.client.result('rfq.create', { client_ref: clientRef(), legs });
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) => connections[i % connections.length].call('rfq.create', { client_ref: clientRef(), legs })),
      );
      expect(replies.filter((r) => r.result).length).toBe(4);
      for (const r of replies.filter((x) => x.error)) expectRfqError(r, 'RFQ_OPEN_LIMIT', true);
      const count = () =>
        limited.app
          .get(Database)
          .dataSource.query(
            `SELECT open_rfqs, (SELECT count(*)::int FROM rfqs WHERE account_id = $1 AND state IN ('pending', 'quoted', 'accepted', 'submitting')) AS n FROM accounts WHERE id = $1`,
            [who.accountId],
          );
      expect(await count()).toEqual([{ open_rfqs: 5, n: 5 }]);
      await maker.client.result('rfq.maker.decline', { rfq_id: first.rfq_id, reason: 'size_limit' });
      expect(await count()).toEqual([{ open_rfqs: 4, n: 4 }]);
      expect(await who.client.result('rfq.create', { client_ref: clientRef(), legs })).toMatchObject({ state: 'pending' });
      expect(await count()).toEqual([{ open_rfqs: 5, n: 5 }]);
    } finally {
      for (const c of connections) await c.close();
      await maker.client.close();
      await limited.close();
      await own.destroy();
    }
  });

  it(`${QUOTERS} quoters responding at once: exactly one quote, ${QUOTERS - 1} RFQ_STATE_CONFLICT, over ${ROUNDS} rounds`, async () => {
    const nonces = quoters.map(() => 0n);
    const wins = quoters.map(() => 0n);
    for (let round = 0; round < ROUNDS; round++) {
      const rfq = await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1')] });
      const quotes = quoters.map((q, i) => signedQuote(q.wallet, rfq, terms(++nonces[i]), sol.expiry));
      const replies = await Promise.all(quoters.map((q, i) => q.client.call('rfq.maker.respond', quotes[i].params)));
      const winners = replies.flatMap((r, i) => (r.result ? [i] : []));
      expect(winners).toHaveLength(1);
      const w = winners[0];
      wins[w] = nonces[w];
      expect(replies[w].result).toEqual({ rfq_id: rfq.rfq_id, quote_id: quotes[w].quoteId, state: 'quoted' });
      for (const [i, r] of replies.entries()) if (i !== w) expectRfqError(r, 'RFQ_STATE_CONFLICT');
      const quoted = await taker.client.next(on('rfq', 'quoted', rfq.rfq_id));
      expect(quoted.data.rfq.quote).toMatchObject({ quote_id: quotes[w].quoteId, maker: quoters[w].wallet.address });
    }
    expect(await silent(taker.client, (n) => n.data.event === 'quoted')).toBe(true);
    // A failed respond consumed no nonce: each mark is the quoter's last winning nonce.
    const marks = await sql(`SELECT account_id, high_water FROM maker_nonces`);
    const byAccount = new Map(marks.map((m: any) => [Number(m.account_id), BigInt(m.high_water)]));
    quoters.forEach((q, i) => expect(byAccount.get(q.accountId)).toBe(wins[i] === 0n ? undefined : wins[i]));
  });

  it('one quote_nonce on several RFQs at once is used once', async () => {
    const maker = await rfqTrader(app, ['quoter']);
    try {
      const rfqs = [];
      for (let i = 0; i < 6; i++) rfqs.push(await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('140', 'put'), '3')] }));
      const replies = await Promise.all(
        rfqs.map((rfq) => maker.client.call('rfq.maker.respond', signedQuote(maker.wallet, rfq, terms(42), sol.expiry).params)),
      );
      const won = replies.filter((r) => r.result);
      expect(won).toHaveLength(1);
      for (const r of replies.filter((r) => r.error)) expectRfqError(r, 'RFQ_STATE_CONFLICT');
      const states = await Promise.all(rfqs.map(async (rfq) => (await taker.client.result('rfq.get', { rfq_id: rfq.rfq_id })).state));
      expect(states.sort()).toEqual(['pending', 'pending', 'pending', 'pending', 'pending', 'quoted']);
      const pending = rfqs.filter((_, i) => replies[i].error);
      expect(await maker.client.result('rfq.maker.respond', signedQuote(maker.wallet, pending[0], terms(43), sol.expiry).params)).toMatchObject({
        state: 'quoted',
      });
    } finally {
      await maker.client.close();
    }
  });

  it('a respond racing a decline: one of them wins', async () => {
    for (let round = 0; round < 5; round++) {
      const rfq = await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1')] });
      const [a, b] = await Promise.all([
        quoters[0].client.call('rfq.maker.respond', signedQuote(quoters[0].wallet, rfq, terms(1_000 + round), sol.expiry).params),
        quoters[1].client.call('rfq.maker.decline', { rfq_id: rfq.rfq_id, reason: 'queue_overflow' }),
      ]);
      expect([a, b].filter((r) => r.result)).toHaveLength(1);
      expectRfqError(
        [a, b].find((r) => r.error),
        'RFQ_STATE_CONFLICT',
      );
      const state = (await taker.client.result('rfq.get', { rfq_id: rfq.rfq_id })).state;
      expect(state).toBe(a.result ? 'quoted' : 'declined');
    }
  });
});

/** Production shape: several instances on one database and one Redis. */
(process.env.REDIS_URL && process.env.DATABASE_URL ? describe : describe.skip)('RFQ across two instances', () => {
  let env: Environment;
  let a: TestApp;
  let b: TestApp;
  let sol: Round;
  let taker: RfqTrader;
  let quoters: RfqTrader[];

  beforeAll(async () => {
    env = await Environment.create();
    a = await env.start();
    b = await env.start();
    sol = await listRound(a, 'SOL', expirationIn(10));
    taker = await rfqTrader(a, ['taker']);
    await taker.client.result('rfq.subscribe', {});
    // Half the quoters on each instance.
    quoters = await Promise.all(Array.from({ length: QUOTERS }, (_, i) => rfqTrader(i % 2 ? b : a, ['quoter'])));
    for (const q of quoters) await q.client.result('rfq.maker.subscribe', {});
  });
  afterAll(async () => {
    for (const t of [taker, ...(quoters ?? [])]) await t?.client.close();
    await a?.close();
    await b?.close();
    await env?.destroy();
  });

  it('an RFQ created on one instance is pushed to quoters on both; first quote wins across them', async () => {
    // The instruments created through A reach B's view (it reloads on the broadcast).
    for (let i = 0; i < 100 && !b.app.get(InstrumentsService).get(sol.symbol('160')); i++) await new Promise((r) => setTimeout(r, 20));
    expect(b.app.get(InstrumentsService).get(sol.symbol('160'))).toBeDefined();
    const nonces = quoters.map(() => 0n);
    const winnersOn = new Set<TestApp>();
    for (let round = 0; round < ROUNDS; round++) {
      const rfq = await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1'), leg(sol.symbol('160'), '-1')] });
      // Every quoter, on A or on B, hears `created`.
      await Promise.all(quoters.map((q) => q.client.next(on('rfq_maker', 'created', rfq.rfq_id))));
      const quotes = quoters.map((q, i) => signedQuote(q.wallet, rfq, terms(++nonces[i]), sol.expiry));
      const replies = await Promise.all(quoters.map((q, i) => q.client.call('rfq.maker.respond', quotes[i].params)));
      const winners = replies.flatMap((r, i) => (r.result ? [i] : []));
      expect(winners).toHaveLength(1);
      winnersOn.add(winners[0] % 2 ? b : a);
      for (const [i, r] of replies.entries()) if (i !== winners[0]) expectRfqError(r, 'RFQ_STATE_CONFLICT');
      // The taker on A hears the quote whichever instance took it; the others hear closed.
      expect((await taker.client.next(on('rfq', 'quoted', rfq.rfq_id))).data.rfq.quote.quote_id).toBe(quotes[winners[0]].quoteId);
      await Promise.all(quoters.filter((_, i) => i !== winners[0]).map((q) => q.client.next(on('rfq_maker', 'closed', rfq.rfq_id))));
    }
    expect(await silent(taker.client, (n) => n.data.event === 'quoted')).toBe(true);
  });

  it('expiry on either instance happens once', async () => {
    const rfq = await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1')] });
    // Both instances' sweeps and the job try to expire the same overdue RFQ: one move, one event.
    await a.app.get(Database).dataSource.query(`UPDATE rfqs SET expires_at = expires_at - 1000 WHERE id = $1`, [rfq.rfq_id]);
    await Promise.all([
      a.app.get(RfqExpiryService).sweep(),
      b.app.get(RfqExpiryService).sweep(),
      a.app.get(RfqExpiryService).onDeadline(rfq.rfq_id),
      b.app.get(RfqExpiryService).onDeadline(rfq.rfq_id),
    ]);
    expect((await taker.client.next(on('rfq', 'expired', rfq.rfq_id))).data.rfq.state).toBe('expired');
    expect(await silent(taker.client, on('rfq', 'expired', rfq.rfq_id))).toBe(true);
    const events = await a.app.get(Database).dataSource.query(`SELECT event FROM rfq_events WHERE rfq_id = $1 ORDER BY id`, [rfq.rfq_id]);
    expect(events.map((e: any) => e.event)).toEqual(['created', 'expired']);
  });
});
