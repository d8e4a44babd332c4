import { Notifier } from '../../src/common/broadcast/notifier';
import { Database } from '../../src/common/database/database';
import { JobRunner } from '../../src/common/jobs/job-runner';
import { QUEUES, jobIds } from '../../src/common/jobs/queues';
import { RfqExpiryService } from '../../src/modules/rfq/rfq-expiry.service';
import { Environment, type TestApp } from './harness';
import {
  type RfqTrader,
  type Round,
  clientRef,
  deleteRedisPrefix,
  expectRfqError,
  expirationIn,
  leg,
  listRound,
  nowSeconds,
  on,
  resumeWs,
  rfqTrader,
  signedQuote,
  sleep,
  terms,
  timed,
} from './rfq-support';

/** Expiry within 1 s of the deadline (docs/spec/design.md section 5), and what survives a restart. */
describe('RFQ expiry', () => {
  let env: Environment;
  let app: TestApp;
  let sol: Round;
  let taker: RfqTrader;
  let maker: RfqTrader;
  let other: RfqTrader;

  beforeAll(async () => {
    env = await Environment.create();
    // A sweep far apart: what expires here is expired by the jobs.
    app = await env.start({ RFQ_TTL_SECONDS: '2', SWEEP_INTERVAL_MS: '600000' });
    sol = await listRound(app, 'SOL', expirationIn(5));
    [taker, maker, other] = await Promise.all([rfqTrader(app, ['taker']), rfqTrader(app, ['quoter']), rfqTrader(app, ['quoter'])]);
    await taker.client.result('rfq.subscribe', {});
    await maker.client.result('rfq.maker.subscribe', {});
    await other.client.result('rfq.maker.subscribe', {});
  });
  afterAll(async () => {
    for (const t of [taker, maker, other]) await t?.client.close();
    await app?.close();
    await env?.destroy();
  });

  it('a pending RFQ expires within 1 s after its expires_at: expired to the taker, closed to the quoters', async () => {
    const rfq = await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1')] });
    expect(rfq.expires_at).toBe(rfq.created_at + 2);
    const expired = timed(taker.client, on('rfq', 'expired', rfq.rfq_id));
    const closed = timed(other.client, on('rfq_maker', 'closed', rfq.rfq_id));
    const deadlineMs = rfq.expires_at * 1000;

    const { n, at } = await expired;
    expect(at).toBeGreaterThanOrEqual(deadlineMs);
    expect(at - deadlineMs).toBeLessThan(1000);
    expect(n.data.rfq).toMatchObject({ rfq_id: rfq.rfq_id, state: 'expired', quote: null });
    const c = await closed;
    expect(c.n.data.rfq).toEqual({
      rfq_id: rfq.rfq_id,
      legs: rfq.legs,
      created_at: rfq.created_at,
      expires_at: rfq.expires_at,
      max_quote_expires_at: rfq.max_quote_expires_at,
      state: 'expired',
    });
    expect(c.at - deadlineMs).toBeLessThan(1000);

    expect(await taker.client.result('rfq.get', { rfq_id: rfq.rfq_id })).toMatchObject({ state: 'expired', updated_at: expect.any(Number) });
    expect((await maker.client.result('rfq.maker.poll', {})).items.map((i: any) => i.rfq_id)).not.toContain(rfq.rfq_id);
    expectRfqError(await maker.client.call('rfq.maker.respond', signedQuote(maker.wallet, rfq, terms(1), sol.expiry).params), 'RFQ_STATE_CONFLICT');
  });

  it("a quote expires within 1 s after its own expires_at (not the RFQ's): expired to the taker and to the maker", async () => {
    const rfq = await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1'), leg(sol.symbol('160'), '-1')] });
    const now = nowSeconds();
    const t = terms(2, { issued_at: now, expires_at: now + 3 });
    const { params, quoteId } = signedQuote(maker.wallet, rfq, t, sol.expiry);
    expect(await maker.client.result('rfq.maker.respond', params)).toEqual({ rfq_id: rfq.rfq_id, quote_id: quoteId, state: 'quoted' });
    const takerExpired = timed(taker.client, on('rfq', 'expired', rfq.rfq_id));
    const makerExpired = timed(maker.client, on('rfq_maker', 'expired', rfq.rfq_id));

    // Past the RFQ's own deadline the quote is still firm.
    await sleep(Math.max(0, rfq.expires_at * 1000 - Date.now()) + 300);
    if (Date.now() < t.expires_at * 1000 - 100) expect(await taker.client.result('rfq.get', { rfq_id: rfq.rfq_id })).toMatchObject({ state: 'quoted' });

    const deadlineMs = t.expires_at * 1000;
    const { n, at } = await takerExpired;
    expect(at).toBeGreaterThanOrEqual(deadlineMs);
    expect(at - deadlineMs).toBeLessThan(1000);
    expect(n.data.rfq).toMatchObject({ rfq_id: rfq.rfq_id, state: 'expired', quote: { quote_id: quoteId } });
    const m = await makerExpired;
    expect(m.n.data).toEqual({
      seq: expect.any(Number),
      account_seq: expect.any(Number),
      event: 'expired',
      rfq: { rfq_id: rfq.rfq_id, quote_id: quoteId, state: 'expired', side: null, fill: null },
    });
    expect(m.at - deadlineMs).toBeLessThan(1000);
  });

  it('quotes that end in the same second share one job; all expire within 1 s, in one broadcast', async () => {
    const enqueue = jest.spyOn(app.app.get(JobRunner), 'enqueue');
    const broadcasts = jest.spyOn(app.app.get(Notifier), 'notifyAll');
    try {
      const rfqs = await Promise.all(
        Array.from({ length: 6 }, () => taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1')] })),
      );
      const deadline = nowSeconds() + 3;
      for (const [i, rfq] of rfqs.entries()) {
        await maker.client.result(
          'rfq.maker.respond',
          signedQuote(maker.wallet, rfq, terms(1000 + i, { issued_at: nowSeconds(), expires_at: deadline }), sol.expiry).params,
        );
      }
      const expiryJobs = enqueue.mock.calls.filter(([queue, data]) => queue === QUEUES.rfqExpiry && (data as { deadline?: number }).deadline === deadline);
      expect(expiryJobs).toEqual([[QUEUES.rfqExpiry, { deadline }, { delayMs: expect.any(Number), jobId: jobIds.rfqExpiry(deadline) }]]);
      const arrivals = await Promise.all(rfqs.map((rfq) => timed(taker.client, on('rfq', 'expired', rfq.rfq_id))));
      for (const { n, at } of arrivals) {
        expect(n.data.rfq.state).toBe('expired');
        expect(at).toBeGreaterThanOrEqual(deadline * 1000);
        expect(at - deadline * 1000).toBeLessThan(1000);
      }
      // One UPDATE expired them together: their events went out in one broadcast.
      const ids = new Set(rfqs.map((r) => r.rfq_id));
      const batches = broadcasts.mock.calls.map(
        ([list]) => list.filter((n) => n.channel === 'rfq' && n.data.event === 'expired' && ids.has((n.data.rfq as { rfq_id: string }).rfq_id)).length,
      );
      expect(batches.filter((n) => n > 0)).toEqual([rfqs.length]);
    } finally {
      enqueue.mockRestore();
      broadcasts.mockRestore();
    }
  });

  it('an expiry job of an earlier version ({ rfqId }) still expires its RFQ; a deadline already past expires at once', async () => {
    const rfq = await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('160'), '1')] });
    const expired = timed(taker.client, on('rfq', 'expired', rfq.rfq_id), 3000);
    await app.app.get(Database).dataSource.query(`UPDATE rfqs SET expires_at = expires_at - 100 WHERE id = $1`, [rfq.rfq_id]);
    await app.app.get(JobRunner).enqueue(QUEUES.rfqExpiry, { rfqId: rfq.rfq_id }, { jobId: `legacy-${rfq.rfq_id}` });
    expect((await expired).n.data.rfq.state).toBe('expired');

    const late = await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('160'), '1')] });
    await app.app.get(Database).dataSource.query(`UPDATE rfqs SET expires_at = expires_at - 100 WHERE id = $1`, [late.rfq_id]);
    const lateExpired = timed(taker.client, on('rfq', 'expired', late.rfq_id), 3000);
    await app.app.get(RfqExpiryService).schedule(nowSeconds() - 1);
    expect((await lateExpired).n.data.rfq.state).toBe('expired');
  });

  it('every move is logged once in rfq_events', async () => {
    const rows = await app.app.get(Database).dataSource.query(`SELECT rfq_id, array_agg(event ORDER BY id) AS events FROM rfq_events GROUP BY rfq_id`);
    const histories = rows.map((r: any) => (Array.isArray(r.events) ? r.events : String(r.events).replace(/[{}]/g, '').split(',')).join('>')).sort();
    expect(histories).toEqual([...Array(3).fill('created>expired'), ...Array(7).fill('created>quoted>expired')]);
  });

  // On PostgreSQL only: the embedded database's pool is its one session, which the expiry does not hold ahead.
  (process.env.DATABASE_URL ? it : it.skip)(
    'a quote due while every pooled connection is busy expires at its deadline, on the connection its job took before it',
    async () => {
      const db = app.app.get(Database);
      const rfq = await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1')] });
      const deadline = nowSeconds() + 2;
      await maker.client.result(
        'rfq.maker.respond',
        signedQuote(maker.wallet, rfq, terms(3000, { issued_at: nowSeconds(), expires_at: deadline }), sol.expiry).params,
      );
      const expired = timed(taker.client, on('rfq', 'expired', rfq.rfq_id));
      // From just before the deadline (after the job took its connection, 200 ms before it) every
      // other connection of the pool sleeps 2 s, and more statements queue behind them.
      await sleep(deadline * 1000 - 60 - Date.now());
      const busy = Array.from({ length: app.config.databasePoolSize + 2 }, () => db.rows(`SELECT pg_sleep(2)`));
      const { n, at } = await expired;
      expect(n.data.rfq.state).toBe('expired');
      expect(at).toBeGreaterThanOrEqual(deadline * 1000);
      // Queued for a connection, it would have waited for the sleeps: until about deadline + 1.94 s.
      expect(at - deadline * 1000).toBeLessThan(1000);
      await Promise.all(busy);
    },
  );

  it('Database.session runs its statements on one connection it holds until it returns', async () => {
    const db = app.app.get(Database);
    const [first, second] = await db.session(async (sql) => [
      await sql.one<{ pid: number }>(`SELECT pg_backend_pid() AS pid`),
      await sql.one<{ pid: number }>(`SELECT pg_backend_pid() AS pid`),
    ]);
    expect(second).toEqual(first);
    // Given back: the pool still answers (a pool of one, the embedded database's, would wait forever otherwise).
    expect(await db.one<{ one: number }>(`SELECT 1 AS one`)).toEqual({ one: 1 });
  });
});

describe('RFQ state across a restart', () => {
  let env: Environment;
  beforeAll(async () => {
    env = await Environment.create({ RFQ_TTL_SECONDS: '2' });
  });
  afterAll(async () => {
    await env?.destroy();
  });

  it('the sweep expires an RFQ whose job was lost with the process; the nonce high-water mark survives', async () => {
    let app = await env.start();
    const sol = await listRound(app, 'SOL', expirationIn(5));
    const taker = await rfqTrader(app, ['taker']);
    const maker = await rfqTrader(app, ['quoter']);
    const quotedRfq = await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1')] });
    const oldQuote = signedQuote(maker.wallet, quotedRfq, terms(500, { expires_at: nowSeconds() + 600 }), sol.expiry).params;
    await maker.client.result('rfq.maker.respond', oldQuote);
    const lost = await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1')] });
    await taker.client.close();
    await maker.client.close();
    await app.close();
    // The embedded job runner loses its timers with the process; BullMQ's jobs live in Redis: drop them.
    if (process.env.REDIS_URL) await deleteRedisPrefix(process.env.REDIS_URL, env.env.REDIS_PREFIX);
    await sleep(Math.max(0, lost.expires_at * 1000 - Date.now()) + 200);

    app = await env.start();
    try {
      const takerWs = await resumeWs(app, taker.wallet, taker.accountId, ['taker']);
      const makerWs = await resumeWs(app, maker.wallet, maker.accountId, ['quoter']);
      // The sweep at start expired it (well before SWEEP_INTERVAL_MS).
      let state = '';
      for (let i = 0; i < 20 && state !== 'expired'; i++, await sleep(50)) state = (await takerWs.result('rfq.get', { rfq_id: lost.rfq_id })).state;
      expect(state).toBe('expired');
      expect(await takerWs.result('rfq.get', { rfq_id: quotedRfq.rfq_id })).toMatchObject({ state: 'quoted' });

      // The old quote replayed answers its original result (design.md 19: nothing runs again); its
      // nonce on a new RFQ is refused (the mark is in the database).
      expect(await makerWs.result('rfq.maker.respond', oldQuote)).toEqual({ rfq_id: quotedRfq.rfq_id, quote_id: expect.any(String), state: 'quoted' });
      const fresh = await takerWs.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1')] });
      expectRfqError(await makerWs.call('rfq.maker.respond', signedQuote(maker.wallet, fresh, terms(500), sol.expiry).params), 'RFQ_STATE_CONFLICT');
      expectRfqError(await makerWs.call('rfq.maker.respond', signedQuote(maker.wallet, fresh, terms(499), sol.expiry).params), 'RFQ_STATE_CONFLICT');
      expect(await makerWs.result('rfq.maker.respond', signedQuote(maker.wallet, fresh, terms(501), sol.expiry).params)).toMatchObject({ state: 'quoted' });
      await takerWs.close();
      await makerWs.close();
    } finally {
      await app.close();
    }
  });

  (process.env.REDIS_URL ? it : it.skip)('after the Redis keys of the deployment are deleted, a replayed quote nonce is still refused', async () => {
    const app = await env.start({ RFQ_TTL_SECONDS: '60' });
    try {
      const sol = await listRound(app, 'SOL', expirationIn(5));
      const taker = await rfqTrader(app, ['taker']);
      const maker = await rfqTrader(app, ['quoter']);
      const a = await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('160'), '1')] });
      const quote = signedQuote(maker.wallet, a, terms(7_000), sol.expiry).params;
      await maker.client.result('rfq.maker.respond', quote);
      expect(await deleteRedisPrefix(process.env.REDIS_URL!, env.env.REDIS_PREFIX)).toBeGreaterThan(0);
      const b = await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('160'), '1')] });
      // The exact repeat answers its original result (design.md 19); its nonce on another RFQ is refused.
      expect(await maker.client.result('rfq.maker.respond', quote)).toMatchObject({ rfq_id: a.rfq_id, state: 'quoted' });
      const replayed = await maker.client.call('rfq.maker.respond', signedQuote(maker.wallet, b, terms(7_000), sol.expiry).params);
      expectRfqError(replayed, 'RFQ_STATE_CONFLICT');
      expect(replayed.error.data.reason).toBe('nonce_not_increasing');
      expect(await maker.client.result('rfq.maker.respond', signedQuote(maker.wallet, b, terms(7_001), sol.expiry).params)).toMatchObject({ state: 'quoted' });
      await taker.client.close();
      await maker.client.close();
    } finally {
      await app.close();
    }
  });
});
