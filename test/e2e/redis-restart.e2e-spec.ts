import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { Http, RpcClient, TestWallet, freshIp } from './clients';
import { Environment, type TestApp } from './harness';

function hasRedisServer(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 15000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not met in time');
}

/** Runs whenever REDIS_URL is set (CI always): a private redis-server that the test stops and restarts. */
(process.env.REDIS_URL && hasRedisServer() ? describe : describe.skip)('Redis down and back', () => {
  let env: Environment;
  let app: TestApp;
  let redis: ChildProcess | null = null;
  let port: number;

  const startRedis = async () => {
    redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await waitFor(async () => {
      try {
        execFileSync('redis-cli', ['-p', String(port), 'ping'], { stdio: 'ignore' });
        return true;
      } catch {
        return false;
      }
    });
  };
  const stopRedis = async () => {
    const child = redis;
    redis = null;
    if (!child) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  };

  beforeAll(async () => {
    port = await freePort();
    await startRedis();
    env = await Environment.create({ REDIS_URL: `redis://127.0.0.1:${port}` });
    app = await env.start();
  });
  afterAll(async () => {
    if (!redis) await startRedis(); // let the app close its connections cleanly
    await app.close();
    await stopRedis();
    await env.destroy();
  });

  it('reports 503 while Redis is down, refuses rate-limited work with 503, and recovers', async () => {
    const http = new Http(app.url);
    expect(await http.get('/health')).toMatchObject({ status: 200, body: { database: 'up', redis: 'up' } });
    await stopRedis();
    await waitFor(async () => (await http.get('/health')).status === 503);
    expect((await http.get('/health')).body).toMatchObject({ status: 'degraded', redis: 'down' });
    const nonce = await http.from(freshIp()).post('/v1/auth/nonce', { wallet: new TestWallet().address });
    expect(nonce).toEqual({ status: 503, body: { error: expect.any(String) } });

    await startRedis();
    await waitFor(async () => (await http.get('/health')).status === 200);
    expect((await http.from(freshIp()).post('/v1/auth/nonce', { wallet: new TestWallet().address })).status).toBe(200);
    const client = await RpcClient.connect(app.wsUrl, { 'x-forwarded-for': freshIp() });
    expect((await client.call('public/get_nonce', { wallet: new TestWallet().address })).result).toBeDefined();
    await client.close();
  }, 60_000);

  it('an instance shuts down in seconds while Redis is down (no wait on a reconnecting connection)', async () => {
    const other = await env.start();
    await stopRedis();
    const started = Date.now();
    await other.close();
    expect(Date.now() - started).toBeLessThan(12_000);
    await startRedis();
  }, 40_000);
});
