import WebSocket from 'ws';
import { RpcClient, TestWallet, freshIp } from './clients';
import { createAccount, signInHttp, signInWs } from './factories';
import { logger } from '../../src/common/logging/logger';
import { Environment, METRICS_AUTH, type TestApp } from './harness';
import { expectRfqError } from './rfq-support';

/** The limits at their defaults (design.md section 0), except those a test needs lower to reach. */
const LIMITS = { PUBLIC_RATE_PER_SECOND: '20', PUBLIC_RATE_BURST: '50', MAX_CONNECTIONS_PER_IP: '2', RFQ_RATE_PER_SECOND: '1', RFQ_RATE_BURST: '3' };

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** The whole answer, body read: a body left unread holds the server's response (and its close) until the client reads it. */
async function answer(response: Promise<Response>): Promise<Answer> {
  const res = await response;
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const get = (app: TestApp, path: string, ip: string, headers: Record<string, string> = {}) =>
  answer(fetch(app.url + path, { headers: { 'x-forwarded-for': ip, ...headers } }));
const post = (app: TestApp, path: string, ip: string, body: unknown) =>
  answer(fetch(app.url + path, { method: 'POST', headers: { 'x-forwarded-for': ip, 'content-type': 'application/json' }, body: JSON.stringify(body) }));

/** How many of `calls` (run in order until one is refused) are admitted: the burst plus what refilled meanwhile at `rate`/s. */
async function admittedUntilRefused(calls: (i: number) => Promise<boolean>, rate = 20): Promise<{ admitted: number; most: number }> {
  const started = Date.now();
  let admitted = 0;
  while (admitted < 1000 && (await calls(admitted))) admitted++;
  return { admitted, most: 50 + Math.ceil(((Date.now() - started) / 1000) * rate) };
}

/** Retry-After of a 429: whole seconds, at least 1 (design.md section 16). */
function expectRetryAfter(res: Answer): void {
  expect(res.status).toBe(429);
  expect(res.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
}

/** docs/spec/design.md section 16: public reads are limited, and every refusal says when to retry. */
describe('public reads share a per-IP token bucket; refusals say when to retry (design.md section 16)', () => {
  let env: Environment;
  let app: TestApp;

  beforeAll(async () => {
    env = await Environment.create(LIMITS);
    app = await env.start();
  });
  afterAll(async () => {
    await app?.close();
    await env?.destroy();
  }, 60_000);

  it('HTTP: the 51st unauthenticated request of a burst is 429 with Retry-After; /health, /metrics, authenticated routes and other addresses are not limited', async () => {
    const ip = freshIp();
    let refused: Answer | null = null;
    const { admitted, most } = await admittedUntilRefused(async (i) => {
      const res = await get(app, ['/v1/instruments', '/openapi.json', '/v1/exchange/keys'][i % 3], ip);
      if (res.status !== 200) refused = res;
      return res.status === 200;
    });
    expect(admitted).toBeGreaterThanOrEqual(50);
    expect(admitted).toBeLessThanOrEqual(most);
    expectRetryAfter(refused!);
    expect(JSON.parse(refused!.text)).toEqual({ error: 'at most 20 public requests per second from one address (burst 50)' });
    expect(refused!.headers.get('x-request-id')).toBeTruthy();
    expect((await get(app, '/health', ip)).status).toBe(200);
    expect((await get(app, '/health/live', ip)).status).toBe(200);
    expect((await get(app, '/metrics', ip, METRICS_AUTH)).status).toBe(200);
    expect((await get(app, '/v1/instruments', freshIp())).status).toBe(200);
    const { token } = await signInHttp(app, (await createAccount(app, ['taker'])).wallet);
    for (let i = 0; i < 60; i++) expect((await get(app, '/query/rfq-positions', ip, { authorization: `Bearer ${token}` })).status).toBe(200);
  });

  it('HTTP and the public/* methods share one bucket; sign-in methods keep their own limits; the bucket refills at 20/s', async () => {
    const ip = freshIp();
    const client = await RpcClient.connect(app.wsUrl, { 'x-forwarded-for': ip });
    let refused: any = null;
    const { admitted, most } = await admittedUntilRefused(async (i) => {
      if (i < 25) return (await get(app, '/v1/instruments', ip)).status === 200;
      const reply = await client.call(i % 2 ? 'public/get_instruments' : 'public/get_market_config', {});
      if (reply.error) refused = reply;
      return reply.result !== undefined;
    });
    expect(admitted).toBeGreaterThanOrEqual(50);
    expect(admitted).toBeLessThanOrEqual(most);
    expect(refused.error).toMatchObject({ code: 1005, data: { error: 'RATE_LIMITED', retry_after_ms: expect.any(Number) } });
    expect(refused.error.data.retry_after_ms).toBeGreaterThan(0);
    expect(refused.error.data.retry_after_ms).toBeLessThanOrEqual(50);
    expect((await client.call('public/get_nonce', { wallet: new TestWallet().address })).result).toBeDefined();
    await new Promise((r) => setTimeout(r, refused.error.data.retry_after_ms + 10));
    expect((await client.call('public/get_market_config', {})).result).toBeDefined();
    // 64 in flight at once: as many answered as the bucket holds, the rest refused at once.
    const flood = await Promise.all(Array.from({ length: 64 }, () => client.call('public/get_instruments', {})));
    expect(flood.filter((r) => r.error?.code === 1005).length).toBeGreaterThanOrEqual(60);
    await client.close();
  });

  it('Retry-After on every 429 the server gives: public bucket, nonces, sign-in attempts, the WebSocket upgrade', async () => {
    // Public bucket: above.  Nonces: NONCE_RATE_PER_MINUTE (10) per address.
    const nonceIp = freshIp();
    for (let i = 0; i < 10; i++) expect((await post(app, '/v1/auth/nonce', nonceIp, { wallet: new TestWallet().address })).status).toBe(200);
    const nonce = await post(app, '/v1/auth/nonce', nonceIp, { wallet: new TestWallet().address });
    expectRetryAfter(nonce);
    expect(Number(nonce.headers.get('retry-after'))).toBeGreaterThan(30); // the window's oldest hit leaves in about a minute
    // Sign-in attempts: AUTH_RATE_PER_MINUTE (30) per address.
    const authIp = freshIp();
    const wallet = new TestWallet();
    const bad = { wallet: wallet.address, message: `Sign in to Legwork\n\nWallet: ${wallet.address}\nNonce: ${'0'.repeat(32)}`, signature: '1'.repeat(88) };
    for (let i = 0; i < 30; i++) expect((await post(app, '/v1/auth/session', authIp, bad)).status).toBe(401);
    expectRetryAfter(await post(app, '/v1/auth/session', authIp, bad));
    // The upgrade over MAX_CONNECTIONS_PER_IP (2).
    const wsIp = freshIp();
    const open = await Promise.all([1, 2].map(() => RpcClient.connect(app.wsUrl, { 'x-forwarded-for': wsIp })));
    const upgrade = await new Promise<{ status: number; retryAfter: string | undefined }>((resolve) => {
      const socket = new WebSocket(app.wsUrl, { headers: { 'x-forwarded-for': wsIp } });
      socket.on('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] }));
      socket.on('open', () => resolve({ status: 101, retryAfter: undefined }));
    });
    expect(upgrade).toEqual({ status: 429, retryAfter: '1' });
    for (const c of open) await c.close();
  });

  it('retry_after_ms on both JSON-RPC codes: 1005 RATE_LIMITED (nonces, sign-in, in flight) and RFQ_RATE_LIMITED', async () => {
    const ip = freshIp();
    const client = await RpcClient.connect(app.wsUrl, { 'x-forwarded-for': ip });
    for (let i = 0; i < 10; i++) expect((await client.call('public/get_nonce', { wallet: new TestWallet().address })).result).toBeDefined();
    const nonce = await client.call('public/get_nonce', { wallet: new TestWallet().address });
    expect(nonce.error).toMatchObject({ code: 1005, data: { error: 'RATE_LIMITED', retry_after_ms: expect.any(Number) } });
    expect(nonce.error.data.retry_after_ms).toBeGreaterThan(30_000);
    for (let i = 0; i < 30; i++) await client.call('public/session_resume', { session_token: 'x.y.z' });
    const auth = await client.call('public/session_resume', { session_token: 'x.y.z' });
    expect(auth.error).toMatchObject({ code: 1005, data: { error: 'RATE_LIMITED', retry_after_ms: expect.any(Number) } });
    await client.close();

    const { client: taker } = await signInWs(app, (await createAccount(app, ['taker'])).wallet);
    const replies = [];
    for (let i = 0; i < 4; i++) replies.push(await taker.call('rfq.list', {}));
    expect(replies.slice(0, 3).every((r) => r.result)).toBe(true);
    expectRfqError(replies[3], 'RFQ_RATE_LIMITED', true);
    expect(replies[3].error.data.retry_after_ms).toBeGreaterThan(0);
    expect(replies[3].error.data.retry_after_ms).toBeLessThanOrEqual(1000);

    // The 65th request in flight on one connection.
    const frames = Array.from({ length: 65 }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: 5000 + i, method: 'public/get_nonce', params: { wallet: 'x' } }));
    const last = new Promise<any>((resolve) =>
      taker.socket.on('message', (data) => {
        const reply = JSON.parse(data.toString());
        if (reply.id === 5064) resolve(reply);
      }),
    );
    const tcp = (taker.socket as unknown as { _socket: { cork(): void; uncork(): void } })._socket;
    tcp.cork();
    for (const frame of frames) taker.socket.send(frame);
    tcp.uncork();
    expect((await last).error).toMatchObject({ code: 1005, data: { error: 'RATE_LIMITED', message: 'too many requests in flight', retry_after_ms: 100 } });
    await taker.close();
  });

  (process.env.REDIS_URL ? it : it.skip)(
    'with Redis, the bucket holds across instances',
    async () => {
      const second = await env.start();
      try {
        const ip = freshIp();
        // Alternating instances: together they admit the burst and what refilled, no more.
        const { admitted, most } = await admittedUntilRefused(async (i) => (await get(i % 2 ? second : app, '/v1/instruments', ip)).status === 200);
        expect(admitted).toBeGreaterThanOrEqual(50);
        expect(admitted).toBeLessThanOrEqual(most);
      } finally {
        await second.close();
      }
    },
    120_000,
  );
});

/** docs/spec/design.md section 16: every request can be traced. */
describe('request ids (design.md section 16)', () => {
  let env: Environment;
  let app: TestApp;
  let other: Environment;
  let otherApp: TestApp;

  beforeAll(async () => {
    env = await Environment.create();
    app = await env.start();
    other = await Environment.create();
    otherApp = await other.start();
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await otherApp?.close();
    await env?.destroy();
    await other?.destroy();
  }, 60_000);

  const idOf = async (target: TestApp, path: string, headers: Record<string, string> = {}) =>
    (await answer(fetch(target.url + path, { headers }))).headers.get('x-request-id');

  it('a well-formed X-Request-Id is echoed, on successes and failures alike', async () => {
    for (const id of ['a', 'abc.DEF-123_x', 'x'.repeat(64), '0123456789abcdef']) {
      expect(await idOf(app, '/health', { 'x-request-id': id })).toBe(id);
      expect(await idOf(app, '/no-such-route', { 'x-request-id': id })).toBe(id);
      expect(await idOf(app, '/query/rfq-positions', { 'x-request-id': id })).toBe(id); // 401
    }
  });

  it('a missing or ill-formed one is replaced by one the server makes', async () => {
    const made = [await idOf(app, '/health')];
    for (const bad of ['has space', 'x'.repeat(65), 'semi;colon', 'ünïcode', 'a/b', '']) {
      const id = await idOf(app, '/health', { 'x-request-id': bad });
      expect(id).not.toBe(bad);
      made.push(id);
    }
    for (const id of made) expect(id).toMatch(/^[A-Za-z0-9._-]{1,64}$/);
    expect(new Set(made).size).toBe(made.length);
  });

  it('two instances never make the same id', async () => {
    const ids = await Promise.all(Array.from({ length: 200 }, (_, i) => idOf(i % 2 ? otherApp : app, '/health/live')));
    expect(new Set(ids).size).toBe(200);
    expect(ids.some((id) => /^req-/.test(id!))).toBe(false);
  });

  it('the log lines of a request carry its id; JSON-RPC lines carry the operation, the connection and the account', async () => {
    const lines: any[] = [];
    const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      for (const line of String(chunk).split('\n')) if (line.startsWith('{')) lines.push(JSON.parse(line));
      return true;
    });
    logger.setLevel('info');
    try {
      await answer(
        fetch(app.url + '/v1/auth/nonce', { method: 'POST', headers: { 'x-request-id': 'trace-me-1', 'content-type': 'application/json' }, body: '{}' }),
      );
      await answer(fetch(app.url + '/no-such-route', { headers: { 'x-request-id': 'trace-me-2' } }));
      const { accountId, wallet } = await createAccount(app, ['taker']);
      const { client } = await signInWs(app, wallet);
      const reply = await client.call('rfq.get', { rfq_id: '00000000-0000-4000-8000-000000000000' });
      await client.close();
      await new Promise((r) => setTimeout(r, 50));
      expect(lines.find((l) => l.msg === 'http' && l.request_id === 'trace-me-1')).toMatchObject({ method: 'POST', status: 400 });
      expect(lines.find((l) => l.msg === 'http' && l.request_id === 'trace-me-2')).toMatchObject({ method: 'GET', status: 404 });
      for (const line of lines.filter((l) => l.context === 'Http')) expect(line.request_id).toEqual(expect.any(String));
      expect(lines.find((l) => l.msg === 'rpc failed')).toEqual(
        expect.objectContaining({ operation_id: reply.error.data.operation_id, connection_id: expect.any(String), account_id: accountId, method: 'rfq.get' }),
      );
    } finally {
      logger.setLevel('error');
      write.mockRestore();
    }
  });
});
