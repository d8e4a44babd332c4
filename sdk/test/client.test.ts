import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConnectionError, Keypair, LegworkClient, LegworkRpcError, RfqError, TimeoutError } from '../src/index';
import { FakeServer } from './fake-server';

const fast = { reconnect: { initialDelayMs: 20, maxDelayMs: 100, jitter: 0 }, heartbeatMs: 0, requestTimeoutMs: 2000 };

let server: FakeServer;
before(async () => {
  server = await FakeServer.start();
});
after(async () => {
  await server.stop();
});

describe('LegworkClient against an in-test JSON-RPC server: requests and replies', () => {
  it('matches replies to requests by id, whatever their order', async () => {
    const client = await LegworkClient.connect(server.url, fast);
    try {
      const results = await Promise.all([
        client.call<any>('echo', { n: 1, delayMs: 60 }),
        client.call<any>('echo', { n: 2, delayMs: 0 }),
        client.call<any>('echo', { n: 3, delayMs: 30 }),
      ]);
      assert.deepEqual(
        results.map((r) => r.echo.n),
        [1, 2, 3],
      );
    } finally {
      await client.close();
    }
  });

  it('maps rfq.* failures to RfqError and others to LegworkRpcError', async () => {
    const client = await LegworkClient.connect(server.url, fast);
    try {
      const rfqId = 'ab'.repeat(16);
      await assert.rejects(client.getRfq(rfqId), (e: unknown) => {
        assert.ok(e instanceof RfqError);
        assert.ok(e instanceof LegworkRpcError);
        assert.equal(e.code, 1200);
        assert.equal(e.error, 'RFQ_NOT_FOUND');
        assert.equal(e.retryable, false);
        assert.equal(e.operationId, 'op-1');
        assert.equal(e.rfqId, rfqId);
        assert.equal(e.method, 'rfq.get');
        return true;
      });
      await assert.rejects(client.accept({ quote_id: 'cd'.repeat(32), side: 'buy', expires_at: 1, taker_signature: 'x' }), (e: unknown) => {
        assert.ok(e instanceof RfqError);
        assert.equal(e.error, 'RFQ_TAKER_UNFUNDED');
        assert.equal(e.quoteId, 'cd'.repeat(32));
        assert.deepEqual(e.details, { anchored: true, free_balance: '0', buy: null, sell: null });
        return true;
      });
      await assert.rejects(client.call('no/such'), (e: unknown) => {
        assert.ok(e instanceof LegworkRpcError);
        assert.ok(!(e instanceof RfqError));
        assert.equal(e.code, -32601);
        assert.equal(e.errorName, 'METHOD_NOT_FOUND');
        return true;
      });
    } finally {
      await client.close();
    }
  });
});

describe('LegworkClient against an in-test JSON-RPC server: time-outs and batches', () => {
  it('times a request out and ignores its late reply', async () => {
    const client = await LegworkClient.connect(server.url, fast);
    try {
      await assert.rejects(client.call('never', {}, { timeoutMs: 50 }), TimeoutError);
      await assert.rejects(client.call('echo', { delayMs: 200 }, { timeoutMs: 50 }), TimeoutError);
      await new Promise((r) => setTimeout(r, 250)); // the late echo reply arrives and is dropped
      assert.deepEqual(await client.call('echo', { n: 4 }), { echo: { n: 4 } });
    } finally {
      await client.close();
    }
  });

  it('sends a batch in one frame and gives each outcome in order', async () => {
    const client = await LegworkClient.connect(server.url, fast);
    try {
      const before = server.calls.length;
      const outcomes = await client.batch([
        { method: 'echo', params: { n: 1 } },
        { method: 'rfq.get', params: { rfq_id: '00'.repeat(16) } },
        { method: 'echo', params: { n: 3 } },
      ]);
      assert.equal(server.calls.length - before, 3);
      assert.deepEqual(outcomes[0], { ok: true, result: { echo: { n: 1 } } });
      assert.equal(outcomes[1].ok, false);
      assert.ok(!outcomes[1].ok && outcomes[1].error instanceof RfqError);
      assert.deepEqual(outcomes[2], { ok: true, result: { echo: { n: 3 } } });
      await assert.rejects(client.batch([]), RangeError);
      await assert.rejects(client.batch(Array.from({ length: 21 }, () => ({ method: 'echo' }))), RangeError);
    } finally {
      await client.close();
    }
  });
});

describe('LegworkClient against an in-test JSON-RPC server: sign-in and notifications', () => {
  it('signs in, creates an RFQ with a generated client_ref, and iterates notifications with gap detection', async () => {
    const client = await LegworkClient.connect(server.url, fast);
    try {
      const keypair = Keypair.generate();
      const session = await client.signIn(keypair);
      assert.equal(session.account_id, 7);
      assert.equal(client.sessionToken, session.session_token);
      const rfq = await client.createRfq({ legs: [{ instrument: 'SOL-27DEC26-150-C', quantity: '1' }] });
      assert.match(rfq.client_ref, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      await client.subscribeRfq();
      const gaps: any[] = [];
      client.on('gap', (g) => gaps.push(g));
      const conn = server.current;
      server.notify(conn, 'rfq', { event: 'quoted', rfq: { rfq_id: 'a' } });
      server.notify(conn, 'rfq', { event: 'accepted', rfq: { rfq_id: 'a' } });
      server.notify(conn, 'rfq', { event: 'filled', rfq: { rfq_id: 'a' } }, 2); // seq 3 and 4 lost
      const seen: number[] = [];
      for await (const n of client.notifications('rfq')) {
        seen.push(n.seq);
        if (n.event === 'filled') break;
      }
      assert.deepEqual(seen, [1, 2, 5]);
      assert.equal(client.gaps, 1);
      assert.equal(client.missedNotifications, 2);
      assert.deepEqual(gaps, [{ channel: 'rfq', expected: 3, received: 5, missed: 2 }]);
    } finally {
      await client.close();
    }
  });
});

describe('LegworkClient against an in-test JSON-RPC server: reconnection', () => {
  it('reconnects after the server drops the socket: session_resume, re-subscribe, queued calls go through', async () => {
    const client = await LegworkClient.connect(server.url, fast);
    try {
      const session = await client.signIn(Keypair.generate());
      await client.subscribeRfq();
      await client.subscribeMaker();
      const iterator = client.notifications('rfq_maker');
      const first = server.current;
      const events: string[] = [];
      client.on('disconnected', () => events.push('disconnected'));
      client.on('reconnecting', () => events.push('reconnecting'));
      const reconnected = new Promise<any>((resolve) => client.once('reconnected', resolve));

      const inFlight = client.call('never', {});
      first.socket.terminate(); // the server side kills the connection
      await assert.rejects(inFlight, ConnectionError);
      const queued = client.call<any>('echo', { n: 'queued' }); // made while disconnected

      const info = await reconnected;
      assert.equal(info.session.session_token, session.session_token);
      const second = server.current;
      assert.notEqual(second, first);
      assert.deepEqual(server.callsOn(second.n).slice(0, 3), ['public/session_resume', 'rfq.subscribe', 'rfq.maker.subscribe']);
      assert.deepEqual(server.calls.find((c) => c.connection === second.n)!.params, { session_token: session.session_token });
      assert.deepEqual(await queued, { echo: { n: 'queued' } });
      assert.deepEqual(events.slice(0, 2), ['disconnected', 'reconnecting']);
      assert.equal(client.connected, true);

      // seq starts again at 1 on the new connection: no gap, and the same iterator goes on.
      server.notify(second, 'rfq_maker', { event: 'created', rfq: { rfq_id: 'b' } });
      const next = await iterator.next();
      assert.equal(next.done, false);
      assert.equal((next.value as any).seq, 1);
      assert.equal(client.gaps, 0);
    } finally {
      await client.close();
    }
  });
});

describe('LegworkClient against an in-test JSON-RPC server: resuming where it left off', () => {
  it('re-subscribes with the last account_seq delivered: events sent while away reach the application once, in order', async () => {
    const client = await LegworkClient.connect(server.url, fast);
    try {
      await client.signIn(Keypair.generate());
      await client.subscribeRfq();
      const iterator = client.notifications('rfq');
      const event = (n: number) => ({ event: 'declined', account_seq: n, rfq: { rfq_id: `r${n}` } });
      for (const n of [1, 2, 3]) {
        server.stored.push(event(n));
        server.notify(server.current, 'rfq', event(n));
      }
      const seen: number[] = [];
      for (let i = 0; i < 3; i++) seen.push((await iterator.next()).value.account_seq);
      assert.equal(client.lastDelivered('rfq'), 3);

      const reconnected = new Promise<any>((resolve) => client.once('reconnected', resolve));
      server.current.socket.terminate();
      for (const n of [4, 5, 6]) server.stored.push(event(n)); // committed while the client is away
      server.overlap = true; // and the replay starts one early: 3 again
      await reconnected;
      const resubscribe = server.calls.filter((c) => c.method === 'rfq.subscribe').pop()!;
      assert.deepEqual(resubscribe.params, { since: 3 });
      server.notify(server.current, 'rfq', event(6)); // live, racing the replay: a duplicate
      server.notify(server.current, 'rfq', event(7));
      for (let i = 0; i < 4; i++) seen.push((await iterator.next()).value.account_seq);
      assert.deepEqual(seen, [1, 2, 3, 4, 5, 6, 7]);
    } finally {
      server.overlap = false;
      server.stored.length = 0;
      await client.close();
    }
  });

  it('signs in again with the remembered key when the session cannot be resumed', async () => {
    const client = await LegworkClient.connect(server.url, fast);
    try {
      const session = await client.signIn(Keypair.generate());
      await client.subscribeRfq();
      server.tokens.delete(session.session_token); // e.g. expired
      const reconnected = new Promise<any>((resolve) => client.once('reconnected', resolve));
      server.current.socket.terminate();
      const info = await reconnected;
      assert.notEqual(info.session.session_token, session.session_token);
      assert.equal(client.sessionToken, info.session.session_token);
      assert.deepEqual(server.callsOn(server.current.n), ['public/session_resume', 'public/get_nonce', 'public/auth', 'rfq.subscribe']);
    } finally {
      await client.close();
    }
  });
});

describe('LegworkClient against an in-test JSON-RPC server: retries and closing', () => {
  it('retries with backoff while the server is away', async () => {
    const away = await FakeServer.start();
    const client = await LegworkClient.connect(away.url, fast);
    const url = away.url;
    const port = Number(new URL(url).port);
    const attempts: number[] = [];
    client.on('reconnecting', (r) => attempts.push(r.attempt));
    await away.stop(); // closes every socket and the listener
    await new Promise((r) => setTimeout(r, 250));
    assert.ok(attempts.length >= 2, `attempts ${attempts.join(',')}`);
    assert.equal(client.connected, false);
    // The server comes back on the same port: the client reconnects by itself.
    const { WebSocketServer } = await import('ws');
    const back = new WebSocketServer({ host: '127.0.0.1', port });
    back.on('connection', (s) =>
      s.on('message', (d) => {
        const m = JSON.parse(d.toString());
        s.send(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { back: true } }));
      }),
    );
    try {
      assert.deepEqual(await client.call('anything', {}, { timeoutMs: 3000 }), { back: true });
    } finally {
      await client.close();
      for (const s of back.clients) s.terminate();
      await new Promise<void>((r) => back.close(() => r()));
    }
  });

  it('close() rejects pending calls, ends iterators and refuses new calls', async () => {
    const client = await LegworkClient.connect(server.url, fast);
    const pending = assert.rejects(client.call('never', {}), ConnectionError);
    const iterator = client.notifications('rfq');
    const next = iterator.next();
    await client.close();
    await pending;
    assert.deepEqual(await next, { value: undefined, done: true });
    await assert.rejects(client.call('echo'), ConnectionError);
  });

  it('without reconnect, a dropped connection closes the client', async () => {
    const client = await LegworkClient.connect(server.url, { ...fast, reconnect: false });
    const closed = new Promise<void>((resolve) => client.once('closed', () => resolve()));
    server.current.socket.terminate();
    await closed;
    await assert.rejects(client.call('echo'), ConnectionError);
  });
});

describe('LegworkClient against an in-test JSON-RPC server: dead connections and aborts', () => {
  it('cuts a connection that stops answering pings, and reconnects', async () => {
    const { WebSocketServer } = await import('ws');
    const mute = new WebSocketServer({ host: '127.0.0.1', port: 0, autoPong: false });
    await new Promise<void>((r) => mute.once('listening', () => r()));
    const port = (mute.address() as { port: number }).port;
    const client = await LegworkClient.connect(`ws://127.0.0.1:${port}/client`, { ...fast, heartbeatMs: 40 });
    try {
      const disconnected = new Promise<void>((resolve) => client.once('disconnected', () => resolve()));
      const reconnected = new Promise<void>((resolve) => client.once('reconnected', () => resolve()));
      await disconnected;
      await reconnected;
    } finally {
      await client.close();
      for (const s of mute.clients) s.terminate();
      await new Promise<void>((r) => mute.close(() => r()));
    }
  });

  it('ends a notification iterator when its signal aborts', async () => {
    const client = await LegworkClient.connect(server.url, fast);
    try {
      const controller = new AbortController();
      const iterator = client.notifications('rfq', { signal: controller.signal });
      const next = iterator.next();
      controller.abort();
      assert.deepEqual(await next, { value: undefined, done: true });
    } finally {
      await client.close();
    }
  });

  it('refuses a first connection that fails', async () => {
    await assert.rejects(LegworkClient.connect('ws://127.0.0.1:1/client', fast), ConnectionError);
  });
});
