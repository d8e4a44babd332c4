import { connect } from 'node:net';
import WebSocket from 'ws';
import { Http, RpcClient, TestWallet, freshIp } from './clients';
import { createAccount, signInWs } from './factories';
import { Environment, type TestApp } from './harness';
import { appRows } from './invariants';
import { type Round, clientRef, expectRfqError, expirationIn, leg, listRound, pauseRound, rfqTrader, signedQuote, terms } from './rfq-support';

/** docs/spec/design.md section 10: the limits that hold against abuse, each refused with its code, never a fault. */
// One app for the abuse limits, closed before the next describe starts its own: the app's close
// then follows its own tests (held open behind the next describe, its close waited about 67 s).
describe('abuse limits (design.md section 10)', () => {
  let env: Environment;
  let app: TestApp;

  beforeAll(async () => {
    env = await Environment.create({ SWEEP_INTERVAL_MS: '200', MAX_CONNECTIONS_PER_IP: '3' });
    app = await env.start();
  });
  // 90 s: with the other jest worker busy on PostgreSQL, this app's graceful close once took over 30 s.
  afterAll(async () => {
    await app?.close();
    await env?.destroy();
  }, 90_000);

  const nonceFrom = (xff: string) => new Http(app.url).request('POST', '/v1/auth/nonce', { wallet: new TestWallet().address }, { 'x-forwarded-for': xff });

  describe('abuse limits (design.md section 10): addresses and sign-in attempts', () => {
    it('X-Forwarded-For "<spoofed>, <proxy-appended>" keys on the proxy-appended address (TRUST_PROXY=1)', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) statuses.push((await nonceFrom(`10.66.${i}.${i}, 198.51.100.7`)).status);
      expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
      expect(statuses[10]).toBe(429); // a new left-most entry each time did not help
      expect((await nonceFrom('10.66.0.0, 198.51.100.8')).status).toBe(200);
    });

    it('IPv6 clients key on their /64', async () => {
      for (let i = 1; i <= 10; i++) expect((await nonceFrom(`2001:db8:77:1::${i.toString(16)}`)).status).toBe(200);
      expect((await nonceFrom('2001:db8:77:1:ffff:ffff:ffff:ffff')).status).toBe(429);
      expect((await nonceFrom('2001:db8:77:2::1')).status).toBe(200);
    });

    it('31 sign-in attempts from one address in a minute: the 31st is refused (HTTP and WebSocket together)', async () => {
      const ip = freshIp();
      const wallet = new TestWallet();
      const bad = { wallet: wallet.address, message: `Sign in to Legwork\n\nWallet: ${wallet.address}\nNonce: ${'0'.repeat(32)}`, signature: '1'.repeat(88) };
      const http = new Http(app.url).from(ip);
      for (let i = 0; i < 20; i++) expect((await http.post('/v1/auth/session', bad)).status).toBe(401);
      const client = await RpcClient.connect(app.wsUrl, { 'x-forwarded-for': ip });
      for (let i = 0; i < 5; i++) expect((await client.call('public/auth', bad)).error.code).toBe(1002);
      for (let i = 0; i < 5; i++) expect((await client.call('public/session_resume', { session_token: 'x.y.z' })).error.code).toBe(1004);
      const refused = await client.call('public/auth', bad);
      expect(refused.error).toMatchObject({ code: 1005, data: { error: 'RATE_LIMITED' } });
      const refusedHttp = await http.post('/v1/auth/session', bad);
      expect(refusedHttp.status).toBe(429);
      // Another address is not affected.
      expect((await new Http(app.url).from(freshIp()).post('/v1/auth/session', bad)).status).toBe(401);
      await client.close();
    });
  });

  describe('abuse limits (design.md section 10): what one connection may send', () => {
    it('the 65th pipelined request on one connection is 1005 while the first 64 are answered', async () => {
      const { client } = await signInWs(app, (await createAccount(app, ['taker'])).wallet);
      const frames = Array.from({ length: 65 }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: 1000 + i, method: 'rfq.list', params: {} }));
      const replies = new Map<number, any>();
      const all = new Promise<void>((resolve) =>
        client.socket.on('message', (data) => {
          const reply = JSON.parse(data.toString());
          if (typeof reply.id === 'number' && reply.id >= 1000) replies.set(reply.id, reply);
          if (replies.size === 65) resolve();
        }),
      );
      // One TCP write: the server reads all 65 before any is answered.
      const tcp = (client.socket as unknown as { _socket: { cork(): void; uncork(): void } })._socket;
      tcp.cork();
      for (const frame of frames) client.socket.send(frame);
      tcp.uncork();
      await all;
      for (let i = 0; i < 64; i++) expect(replies.get(1000 + i).result).toBeDefined();
      // design.md section 16: a 1005 says when to retry.
      expect(replies.get(1064).error).toEqual({
        code: 1005,
        message: 'too many requests in flight',
        data: { error: 'RATE_LIMITED', message: 'too many requests in flight', retry_after_ms: 100 },
      });
      // The connection goes on.
      expect((await client.call('rfq.list', {})).result).toBeDefined();
      await client.close();
    });

    it('params nested 20,000 deep are a client error, never a fault', async () => {
      const { client } = await signInWs(app, (await createAccount(app, ['taker'])).wallet);
      const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
      const rfq = await client.send(`{"jsonrpc":"2.0","id":1,"method":"rfq.list","params":{"states":${deep(20_000)}}}`, 1);
      expectRfqError(rfq, 'RFQ_VALUE_OUT_OF_RANGE');
      expect(rfq.error.data.message).toMatch(/deeper than 16/);
      const pub = await client.send(`{"jsonrpc":"2.0","id":2,"method":"public/get_instruments","params":{"asset":${deep(20_000)}}}`, 2);
      expect(pub.error).toMatchObject({ code: -32602, data: { error: 'INVALID_PARAMS' } });
      // 16 levels (params itself the first) pass the depth rule and meet the method's own schema.
      const atLimit = await client.send(`{"jsonrpc":"2.0","id":3,"method":"rfq.list","params":{"states":${deep(15)}}}`, 3);
      expectRfqError(atLimit, 'RFQ_VALUE_OUT_OF_RANGE');
      expect(atLimit.error.data.message).not.toMatch(/deeper/);
      const over = await client.send(`{"jsonrpc":"2.0","id":4,"method":"rfq.list","params":{"states":${deep(16)}}}`, 4);
      expect(over.error.data.message).toMatch(/deeper than 16/);
      await client.close();
    });

    it('an HTTP body nested 20,000 deep is a client error, never a fault', async () => {
      const deep = '['.repeat(20_000) + ']'.repeat(20_000);
      for (const path of ['/v1/auth/nonce', '/v1/auth/session']) {
        const res = await new Http(app.url).from(freshIp()).request('POST', path, `{"wallet":${deep}}`);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ error: expect.stringMatching(/deeper than 16/) });
      }
      const admin = await new Http(app.url).admin().request('POST', '/v1/admin/accounts', `{"wallet":"x","roles":${deep}}`);
      expect(admin.status).toBe(400);
    });
  });

  describe('abuse limits (design.md section 10): connections, buffers and headers', () => {
    it('MAX_CONNECTIONS_PER_IP: the upgrade over it is answered 429', async () => {
      const ip = freshIp();
      const open = await Promise.all([1, 2, 3].map(() => RpcClient.connect(app.wsUrl, { 'x-forwarded-for': ip })));
      const status = await new Promise<number>((resolve) => {
        const socket = new WebSocket(app.wsUrl, { headers: { 'x-forwarded-for': ip } });
        socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        socket.on('open', () => resolve(101));
      });
      expect(status).toBe(429);
      const other = await RpcClient.connect(app.wsUrl, { 'x-forwarded-for': freshIp() });
      await open[0].close();
      await new Promise((r) => setTimeout(r, 50));
      const again = await RpcClient.connect(app.wsUrl, { 'x-forwarded-for': ip });
      expect((await again.call('public/get_market_config')).result).toBeDefined();
      for (const c of [...open, other, again]) await c.close();
    });

    it('a reply that would take the unsent buffer past 1 MiB closes the connection with 1008', async () => {
      const slow = await RpcClient.connect(app.wsUrl, { 'x-forwarded-for': freshIp() });
      const tcp = (slow.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
      tcp.pause(); // the client stops reading: the server's unsent buffer grows
      const batch = JSON.stringify(Array.from({ length: 20 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'public/get_market_config', params: {} })));
      for (let i = 0; i < 4000 && slow.socket.readyState === WebSocket.OPEN; i++) {
        slow.socket.send(batch);
        if (i % 50 === 0) await new Promise((r) => setTimeout(r, 10));
      }
      await new Promise((r) => setTimeout(r, 200));
      tcp.resume();
      expect(await Promise.race([slow.closed, new Promise((r) => setTimeout(() => r('open'), 10_000))])).toBe(1008);
    });

    it('every response carries the security headers; /docs its own CSP', async () => {
      for (const path of ['/health', '/openapi.json', '/no-such-route', '/v1/admin/accounts/1']) {
        const res = await fetch(app.url + path);
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        expect(res.headers.get('referrer-policy')).toBe('no-referrer');
        expect(res.headers.get('x-frame-options')).toBe('DENY');
        expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
      }
      const docs = await fetch(`${app.url}/docs`);
      expect(docs.status).toBe(200);
      expect(docs.headers.get('x-content-type-options')).toBe('nosniff');
      expect(docs.headers.get('referrer-policy')).toBe('no-referrer');
      expect(docs.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
      expect(docs.headers.get('content-security-policy')).not.toMatch(/script-src[^;]*unsafe/);
    });
  });

  describe('abuse limits (design.md section 10): slow clients and old nonces', () => {
    it('a client that does not finish its headers is cut after 10 s (slowloris)', async () => {
      const { port } = new URL(app.url);
      const socket = connect(Number(port), '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      const started = Date.now();
      socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
      let answer = '';
      socket.on('data', (d) => (answer += d.toString()));
      await new Promise((resolve) => socket.once('close', resolve));
      const seconds = (Date.now() - started) / 1000;
      expect(seconds).toBeGreaterThanOrEqual(9.5);
      expect(seconds).toBeLessThan(13);
      expect(answer === '' || answer.startsWith('HTTP/1.1 408')).toBe(true);
    }, 20_000);

    it('the sweep deletes expired sign-in nonces (none older than 10 minutes remain)', async () => {
      const rows = appRows(app);
      const now = Math.floor(Date.now() / 1000);
      const wallet = new TestWallet().address;
      await rows(`INSERT INTO auth_nonces (nonce, wallet, expires_at) VALUES ($1, $2, $3), ($4, $2, $5), ($6, $2, $7)`, [
        'a'.repeat(32),
        wallet,
        now - 900,
        'b'.repeat(32),
        now - 1,
        'c'.repeat(32),
        now + 300,
      ]);
      await new Promise((r) => setTimeout(r, 700));
      const left = await rows(`SELECT nonce FROM auth_nonces WHERE wallet = $1 ORDER BY nonce`, [wallet]);
      expect(left.map((r: any) => r.nonce)).toEqual(['c'.repeat(32)]);
    });
  });
});

describe('what failures reveal, /metrics behind METRICS_TOKEN', () => {
  const METRICS_TOKEN = 'metrics-token-0123456789abcdef0123456789';
  let env: Environment;
  let app: TestApp;
  let round: Round;

  beforeAll(async () => {
    env = await Environment.create({ METRICS_TOKEN });
    app = await env.start();
    round = await listRound(app, 'SOL', expirationIn(10));
  });
  afterAll(async () => {
    await app?.close();
    await env?.destroy();
  });

  it('/metrics takes the bearer METRICS_TOKEN when it is set', async () => {
    expect((await fetch(`${app.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${app.url}/metrics`, { headers: { authorization: 'Bearer wrong-token' } })).status).toBe(401);
    const ok = await fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toMatch(/# TYPE/);
  });

  it('rfq.maker.respond checks the signature before the legs are tradable (design.md 5, as accept)', async () => {
    const [taker, maker, other] = await Promise.all([rfqTrader(app, ['taker']), rfqTrader(app, ['quoter']), rfqTrader(app, ['quoter'])]);
    const rfq = await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(round.symbol('150'), '1')] });
    await pauseRound(app, round, true);
    try {
      const forged = signedQuote(other.wallet, rfq, terms(7), round.expiry).params; // signed by another wallet
      expectRfqError(await maker.client.call('rfq.maker.respond', forged), 'RFQ_INVALID_SIGNATURE');
      const genuine = signedQuote(maker.wallet, rfq, terms(8), round.expiry).params;
      expectRfqError(await maker.client.call('rfq.maker.respond', genuine), 'RFQ_INVALID_INSTRUMENT', true);
    } finally {
      await pauseRound(app, round, false);
    }
    const genuine = signedQuote(maker.wallet, rfq, terms(9), round.expiry).params;
    expect((await maker.client.call('rfq.maker.respond', genuine)).result).toMatchObject({ rfq_id: rfq.rfq_id, state: 'quoted' });
    for (const t of [taker, maker, other]) await t.client.close();
  });

  it('respond and decline on an RFQ no longer pending do not name its state', async () => {
    const [taker, q1, q2] = await Promise.all([rfqTrader(app, ['taker']), rfqTrader(app, ['quoter']), rfqTrader(app, ['quoter'])]);
    const states = /pending|quoted|declined|expired|accepted|submitting|filled|failed/;
    const declined = await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(round.symbol('150'), '1')] });
    await q1.client.result('rfq.maker.decline', { rfq_id: declined.rfq_id, reason: 'size_limit' });
    const quoted = await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(round.symbol('150'), '1')] });
    await q1.client.result('rfq.maker.respond', signedQuote(q1.wallet, quoted, terms(1), round.expiry).params);
    for (const rfq of [declined, quoted]) {
      const respond = await q2.client.call('rfq.maker.respond', signedQuote(q2.wallet, rfq, terms(5), round.expiry).params);
      const decline = await q2.client.call('rfq.maker.decline', { rfq_id: rfq.rfq_id, reason: 'size_limit' });
      for (const reply of [respond, decline]) {
        expectRfqError(reply, 'RFQ_STATE_CONFLICT');
        expect(reply.error.message).not.toMatch(states);
        expect(reply.error.data.message).not.toMatch(states);
      }
    }
    for (const t of [taker, q1, q2]) await t.client.close();
  });
});
