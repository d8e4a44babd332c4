import { randomUUID } from 'node:crypto';
import { type AddressInfo, createServer } from 'node:net';
import { Client } from 'pg';
import { Http } from './clients';
import { expectInvariants, pgRows } from './invariants';
import { expirationIn, symbolOf } from './factories';
import { acceptedOutcome, adminOf, healthStatus, openAccepted } from '../fleet/checks';
import { type Fleet, Instance, type PrivatePostgres, freePort, type PrivateRedis, hasBinaries, sleep, waitFor } from '../fleet/fleet';
import { FleetTrader, acceptFor, lifecycle, quoteFor } from '../fleet/traders';
import { type TestFleet, startTestFleet } from './support/test-fleet';

/**
 * docs/spec/design.md section 11 with three instances as separate processes (`node dist/src/main.js`) on a
 * private PostgreSQL cluster and a private Redis, which the tests stop, kill and restart.
 */
const enabled = !!process.env.DATABASE_URL && hasBinaries();

(enabled ? describe : describe.skip)('instances and faults (separate processes)', () => {
  let pg: PrivatePostgres;
  let redis: PrivateRedis;
  let fleet: Fleet;
  let db: Client;
  let a: Instance, b: Instance, c: Instance;
  const expiry = expirationIn(7);
  const call = symbolOf('ETH', expiry, '150', 'call');
  let taker: FleetTrader, maker: FleetTrader;

  const connectDb = async () => {
    db = new Client({ connectionString: pg.url('legwork') });
    db.on('error', () => undefined);
    await db.connect();
  };

  /** ms until rfq.create on `symbol` through `trader` is refused as paused (polling every 20 ms). */
  const refusedAfter = (trader: FleetTrader, symbol: string, timeoutMs: number) =>
    waitFor(
      async () => {
        const reply = await trader.call('rfq.create', { client_ref: randomUUID(), legs: [{ instrument: symbol, quantity: '1' }] });
        return reply.error?.data?.error === 'RFQ_INVALID_INSTRUMENT' && /paused/.test(reply.error.data.message);
      },
      timeoutMs,
      'pause seen',
    );

  const resumeEverywhere = async (traders: FleetTrader[]) => {
    expect((await adminOf(a).post('/v1/admin/instruments/resume-by-expiration', { expiration: expiry, asset: 'ETH' })).status).toBe(200);
    for (const t of traders) {
      await waitFor(
        async () => !(await t.call('rfq.create', { client_ref: randomUUID(), legs: [{ instrument: call, quantity: '1' }] })).error,
        8000,
        'resumed',
      );
    }
  };

  let testFleet: TestFleet;

  beforeAll(async () => {
    testFleet = await startTestFleet(3, 'legwork_fleet');
    ({ pg, redis, fleet } = testFleet);
    [a, b, c] = testFleet.instances;
    await connectDb();
    const admin = adminOf(a);
    expect(
      (await admin.post('/v1/admin/create-instruments', { asset: 'ETH', expiration: expiry, spot_price: '150', strikes: ['140', '150', '160'] })).status,
    ).toBe(200);
    expect((await admin.post('/v1/admin/market-data', { asset: 'ETH', index_price: '150', iv: '0.8' })).status).toBe(200);
    [taker, maker] = await Promise.all([FleetTrader.create(admin, ['taker'], '100000'), FleetTrader.create(admin, ['quoter'], '1000000')]);
    await taker.connect(a);
    await maker.connect(b);
  }, 180_000);

  afterAll(async () => {
    await taker?.disconnect();
    await maker?.disconnect();
    await db?.end().catch(() => undefined);
    await testFleet?.stop();
  }, 60_000);

  it('fills a lifecycle whose taker and maker sit on different instances', async () => {
    const out = await lifecycle(taker, maker, call, expiry, 'buy');
    expect(out).toMatchObject({ accepted: true });
    await waitFor(async () => (await db.query(`SELECT state FROM rfqs WHERE id = $1`, [out.rfqId])).rows[0].state === 'filled', 5000, 'filled');
  }, 30_000);

  it('holds a maker limit across two instances: of 24 concurrent responds through both, no more than max_open_quotes are quoted', async () => {
    const limited = await FleetTrader.create(adminOf(a), ['quoter'], '1000');
    await limited.connect(a);
    const onB = await onInstance(b, limited);
    try {
      await limited.result('rfq.maker.set_limits', { limits: { max_open_quotes: 6 } });
      const rfqs = [];
      for (let i = 0; i < 24; i++) rfqs.push(await taker.result('rfq.create', { client_ref: randomUUID(), legs: [{ instrument: call, quantity: '1' }] }));
      const quotes = rfqs.map((rfq) => quoteFor(limited, rfq, expiry));
      const replies = await Promise.all(quotes.map((q, i) => (i % 2 === 0 ? limited : onB).call('rfq.maker.respond', q.params, 15_000)));
      const taken = replies.filter((r) => r.result);
      const limitedOut = replies.filter((r) => r.error?.data?.error === 'RFQ_OPEN_LIMIT');
      // Each instance runs its own responds in order; across the two, a respond that reaches the move
      // after a higher nonce was taken is RFQ_STATE_CONFLICT (the nonce rule), taking no slot.
      const reordered = replies.filter((r) => r.error?.data?.error === 'RFQ_STATE_CONFLICT');
      expect(taken.length + limitedOut.length + reordered.length).toBe(24);
      for (const r of limitedOut) expect(r.error.data.message).toContain('max_open_quotes 6: open quotes would reach 7');
      const live = await db.query(`SELECT count(*)::int AS n FROM rfqs WHERE maker_account_id = $1 AND state = 'quoted'`, [limited.accountId]);
      expect(live.rows[0].n).toBe(taken.length);
      expect(taken.length).toBeLessThanOrEqual(6);
      if (limitedOut.length > 0) expect(taken.length).toBe(6);
      const view = await onB.result('rfq.maker.get_limits', {});
      expect(view.usage.open_quotes).toBe(taken.length);
      process.stdout.write(`two instances: ${taken.length} quoted, ${limitedOut.length} RFQ_OPEN_LIMIT, ${reordered.length} nonce conflicts\n`);
    } finally {
      await onB.disconnect();
      await limited.disconnect();
    }
  }, 60_000);

  it("answers a maker's get_limits on either instance as the database has it, after quotes taken through both and one accepted", async () => {
    const limited = await FleetTrader.create(adminOf(a), ['quoter'], '1000000');
    await limited.connect(a);
    const onB = await onInstance(b, limited);
    const live = async () =>
      (
        await db.query(`SELECT count(*)::int AS n FROM rfqs WHERE maker_account_id = $1 AND state = 'quoted' AND quote_expires_at > $2`, [
          limited.accountId,
          Math.floor(Date.now() / 1000),
        ])
      ).rows[0].n;
    const openOn = async (m: FleetTrader) => (await m.result('rfq.maker.get_limits', {})).usage.open_quotes;
    try {
      await limited.result('rfq.maker.set_limits', { limits: { max_open_quotes: 10 } });
      const taken = [];
      for (let i = 0; i < 3; i++) {
        const rfq = await taker.result('rfq.create', { client_ref: randomUUID(), legs: [{ instrument: call, quantity: '1' }] });
        const quote = quoteFor(limited, rfq, expiry);
        await (i % 2 === 0 ? limited : onB).result('rfq.maker.respond', quote.params);
        taken.push({ rfq, quote });
        // Both instances answer every step: each keeps what it read, and must see the other's quote.
        expect([await openOn(limited), await openOn(onB)]).toEqual([i + 1, i + 1]);
      }
      // The accept goes through A; B read three quotes before and must not answer three now.
      const accepted = await taker.result('rfq.accept', acceptFor(taker, taken[1].rfq.rfq_id, taken[1].quote, 'buy'));
      expect(accepted.state).toBe('accepted');
      expect(await live()).toBe(2);
      expect([await openOn(onB), await openOn(limited)]).toEqual([2, 2]);
    } finally {
      await onB.disconnect();
      await limited.disconnect();
    }
  }, 60_000);

  it('refuses on another instance, within 1 s, a round paused through one', async () => {
    const onB = await onInstance(b);
    const started = Date.now();
    expect((await adminOf(a).post('/v1/admin/instruments/pause-by-expiration', { expiration: expiry, asset: 'ETH' })).status).toBe(200);
    await refusedAfter(onB, call, 1000);
    const ms = Date.now() - started;
    process.stdout.write(`pause through a refused on b after ${ms} ms\n`);
    expect(ms).toBeLessThan(1000);
    await resumeEverywhere([onB, taker]);
    await onB.disconnect();
  }, 30_000);

  it('after CLIENT KILL TYPE pubsub, a pause through one instance is refused on the others within 6 s', async () => {
    const onB = await onInstance(b);
    const onC = await onInstance(c);
    expect(Number(redis.killPubsub())).toBeGreaterThanOrEqual(3);
    const started = Date.now();
    expect((await adminOf(a).post('/v1/admin/instruments/pause-by-expiration', { expiration: expiry, asset: 'ETH' })).status).toBe(200);
    await Promise.all([refusedAfter(onB, call, 6000), refusedAfter(onC, call, 6000)]);
    process.stdout.write(`after pubsub kill: pause refused on b and c after ${Date.now() - started} ms\n`);
    await resumeEverywhere([onB, onC]);
    await onB.disconnect();
    await onC.disconnect();
  }, 40_000);

  it('a change whose broadcast never came (written with its version bump only) is picked up by the version check within 6 s', async () => {
    const onB = await onInstance(b);
    const onC = await onInstance(c);
    const started = Date.now();
    await db.query('BEGIN');
    await db.query(`UPDATE instruments SET paused = true WHERE expiry = $1`, [expiry]);
    await db.query(`UPDATE view_versions SET version = version + 1 WHERE topic = 'instruments.changed'`);
    await db.query('COMMIT');
    await Promise.all([refusedAfter(onB, call, 6000), refusedAfter(onC, call, 6000)]);
    process.stdout.write(`silent change seen on b and c after ${Date.now() - started} ms\n`);
    await resumeEverywhere([onB, onC]);
    await onB.disconnect();
    await onC.disconnect();
  }, 40_000);

  it('finishes within 10 s the accepted RFQs of an instance killed with SIGKILL', async () => {
    const t = await onInstance(c, taker);
    const m = await onInstance(c, maker);
    const quoted = [];
    for (let i = 0; i < 12; i++) {
      const rfq = await t.result('rfq.create', { client_ref: randomUUID(), legs: [{ instrument: call, quantity: '1' }] });
      const quote = quoteFor(m, rfq, expiry);
      await m.result('rfq.maker.respond', quote.params);
      quoted.push({ rfq, quote });
    }
    // The others frozen: only c takes the fill jobs, and dies holding them.
    process.kill(a.pid!, 'SIGSTOP');
    process.kill(b.pid!, 'SIGSTOP');
    let killedAt = 0;
    try {
      await Promise.race(
        quoted.map(({ rfq, quote }) =>
          t.call('rfq.accept', acceptFor(t, rfq.rfq_id, quote, 'buy')).then(
            (reply) => {
              if (reply.result?.state === 'accepted' && !killedAt) {
                killedAt = Date.now();
                process.kill(c.pid!, 'SIGKILL');
              }
            },
            () => undefined,
          ),
        ),
      );
      await waitFor(() => killedAt > 0, 5000, 'an accept');
    } finally {
      process.kill(a.pid!, 'SIGCONT');
      process.kill(b.pid!, 'SIGCONT');
    }
    await c.stop('SIGKILL'); // reaps it
    const left = await openAccepted(db);
    await waitFor(async () => (await openAccepted(db)) === 0, 10_000, 'every accepted RFQ filled or failed');
    const ms = Date.now() - killedAt;
    process.stdout.write(`SIGKILL: ${left} RFQs left accepted or submitting by the dead instance, all finished ${ms} ms after the kill\n`);
    expect(ms).toBeLessThan(10_000);
    const outcome = await acceptedOutcome(db);
    expect(outcome).toMatchObject({ open: 0, doubled: 0 });
    await expectInvariants(pgRows(db));
    await t.disconnect();
    await m.disconnect();
    await c.start();
  }, 90_000);

  it('expires within 10 s of its deadline an RFQ whose instance was killed with SIGKILL', async () => {
    // A fourth instance with a 3 s RFQ time-to-live creates the RFQ (the deadline is set at
    // creation), then dies: the expiry is the survivors' (the delayed job in Redis, or the sweep).
    const d = new Instance('instance-ttl', await freePort(), { ...fleet.env, RFQ_TTL_SECONDS: '3' }, fleet.logDir);
    let t: FleetTrader | undefined;
    let rfq: { rfq_id: string; expires_at: number };
    try {
      await d.start();
      t = await onInstance(d, taker);
      rfq = await t.result('rfq.create', { client_ref: randomUUID(), legs: [{ instrument: call, quantity: '1' }] });
    } finally {
      await d.stop('SIGKILL'); // (also when the start failed: no fourth process outlives the test)
    }
    const due = rfq.expires_at * 1000;
    await waitFor(async () => (await db.query(`SELECT state FROM rfqs WHERE id = $1`, [rfq.rfq_id])).rows[0].state === 'expired', 15_000, 'expired');
    const late = Date.now() - due;
    process.stdout.write(`RFQ of a killed instance expired ${late} ms after its deadline\n`);
    expect(late).toBeLessThan(10_000);
    await t.disconnect();
    // (The test's time covers a slow start, whose own limit is 60 s and whose error shows the log.)
  }, 100_000);

  it('fails a start at once, with the log, when the process exits while starting (a port already taken)', async () => {
    // The port is held by a listener that answers no HTTP (an instance there would answer /health itself).
    const holder = createServer((socket) => socket.destroy());
    await new Promise<void>((done) => holder.listen(0, '127.0.0.1', done));
    const clash = new Instance('instance-clash', (holder.address() as AddressInfo).port, fleet.env, fleet.logDir);
    const started = Date.now();
    try {
      await expect(clash.start()).rejects.toThrow(/instance-clash exited \(code 1\) while starting[\s\S]*EADDRINUSE/);
      expect(Date.now() - started).toBeLessThan(20_000); // not the 60 s an unseen exit cost
      expect(clash.running).toBe(false);
    } finally {
      await clash.stop('SIGKILL');
      holder.close();
    }
  }, 30_000);

  it('answers the calls in flight on SIGTERM, closes sockets with 1001 and exits 0', async () => {
    const t = await onInstance(b, taker);
    const reply = t.call('rfq.list', {}, 8000);
    const exit = b.stop('SIGTERM');
    // Readiness while it drains: 503 `draining`, so a balancer sends nobody new (polled until the
    // port closes, a connection per probe as a balancer's checks: a client that keeps one
    // keep-alive connection busy holds the HTTP server's close up to the 15 s forced exit).
    const seen: string[] = [];
    for (let i = 0; i < 500; i++) {
      const res = await fetch(`${b.url}/health`, { headers: { connection: 'close' } }).then(
        async (r) => `${r.status} ${((await r.json()) as { status: string }).status}`,
        () => 'closed',
      );
      if (seen[seen.length - 1] !== res) seen.push(res);
      if (res === 'closed') break;
    }
    // (Fastify answers 503 itself once the HTTP server closes; never 200 again.)
    expect(seen).toContain('503 draining');
    expect(seen.slice(seen.indexOf('503 draining')).filter((x) => x !== '503 undefined')).toEqual(['503 draining', 'closed']);
    const answered = await reply.then(
      (r) => r,
      (e) => String(e),
    );
    expect(answered).toMatchObject({ jsonrpc: '2.0' }); // a reply (result, or RFQ_NOT_READY if it came after the drain began), never silence
    expect(await t.client!.closed).toBe(1001);
    const code = await exit;
    if (code !== 0) process.stdout.write(`${b.name} exited ${code}; its log:\n${b.logTail(40)}\n`);
    expect(code).toBe(0);
    await b.start();
  }, 60_000);

  it('Redis stopped and started during lifecycles: health 503 then 200, every accepted RFQ finished within 10 s of the return, invariants hold', async () => {
    await taker.reconnect([a]);
    await maker.reconnect([b]);
    let running = true;
    const outcomes: Array<Awaited<ReturnType<typeof lifecycle>>> = [];
    const loop = (async () => {
      while (running) {
        outcomes.push(await lifecycle(taker, maker, call, expiry, outcomes.length % 2 ? 'sell' : 'buy'));
        await sleep(50);
      }
    })();
    await sleep(1500);
    await redis.stop();
    await waitFor(async () => (await healthStatus(a)) === 503, 10_000, 'health 503');
    // While Redis is down: rfq.* writes are refused as retryable, queries are served from PostgreSQL.
    const refused = await taker.call('rfq.create', { client_ref: randomUUID(), legs: [{ instrument: call, quantity: '1' }] });
    expect(refused.error?.data).toMatchObject({ error: 'RFQ_NOT_READY', retryable: true, reason: 'redis_unavailable' });
    expect((await new Http(a.url).as(taker.token!).get('/query/balances')).status).toBe(200);
    await sleep(2500);
    await redis.start();
    const back = Date.now();
    await Promise.all([a, b, c].map((i) => waitFor(async () => (await healthStatus(i)) === 200, 10_000, `${i.name} healthy`)));
    const healthyMs = Date.now() - back;
    await waitFor(() => outcomes.slice(-1)[0]?.accepted === true && (outcomes.slice(-1)[0].acceptedAt ?? 0) > back, 10_000, 'a lifecycle after the return');
    running = false;
    await loop;
    await waitFor(async () => (await openAccepted(db)) === 0, 10_000, 'accepted RFQs finished');
    process.stdout.write(
      `Redis back: healthy after ${healthyMs} ms, every accepted RFQ finished ${Date.now() - back} ms after the return (${outcomes.filter((o) => o.accepted).length} accepted of ${outcomes.length})\n`,
    );
    expect(await acceptedOutcome(db)).toMatchObject({ open: 0, doubled: 0 });
    await expectInvariants(pgRows(db));
  }, 90_000);

  it('PostgreSQL restarted during lifecycles: health 503 then 200 within 5 s of its return, nothing lost or doubled', async () => {
    let running = true;
    const outcomes: Array<Awaited<ReturnType<typeof lifecycle>>> = [];
    const loop = (async () => {
      while (running) {
        outcomes.push(await lifecycle(taker, maker, call, expiry, 'buy'));
        await sleep(50);
      }
    })();
    await sleep(1500);
    await db.end().catch(() => undefined);
    await pg.stop('fast');
    await waitFor(async () => (await healthStatus(a)) === 503, 10_000, 'health 503');
    // While PostgreSQL is down: rfq.* writes are refused as retryable, queries answer 503.
    const refused = await taker.call('rfq.create', { client_ref: randomUUID(), legs: [{ instrument: call, quantity: '1' }] });
    expect(refused.error?.data).toMatchObject({ error: 'RFQ_NOT_READY', retryable: true });
    expect((await new Http(a.url).as(taker.token!).get('/query/balances')).status).toBe(503);
    await sleep(2000);
    await pg.start();
    const back = Date.now();
    await Promise.all([a, b, c].map((i) => waitFor(async () => (await healthStatus(i)) === 200, 5000, `${i.name} healthy`)));
    const healthyMs = Date.now() - back;
    await waitFor(() => outcomes.slice(-1)[0]?.accepted === true && (outcomes.slice(-1)[0].acceptedAt ?? 0) > back, 10_000, 'a lifecycle after the return');
    running = false;
    await loop;
    await connectDb();
    await waitFor(async () => (await openAccepted(db)) === 0, 10_000, 'accepted RFQs finished');
    process.stdout.write(`PostgreSQL back: healthy after ${healthyMs} ms, accepted RFQs finished ${Date.now() - back} ms after the return\n`);
    expect(healthyMs).toBeLessThan(5000);
    expect(await acceptedOutcome(db)).toMatchObject({ open: 0, doubled: 0 });
    await expectInvariants(pgRows(db));
  }, 90_000);

  /** A second connection of `who` (default: a fresh taker session of the test's taker) on `instance`. */
  async function onInstance(instance: Instance, who: FleetTrader = taker): Promise<FleetTrader> {
    const t = new FleetTrader(who.wallet, who.accountId, who.roles);
    t.token = who.token;
    await t.connect(instance);
    return t;
  }
});
