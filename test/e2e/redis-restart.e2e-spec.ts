import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { Http, RpcClient, TestWallet, freshIp } from './clients';
import { Environment, type TestApp } from './harness';
import { freePort } from '../fleet/free-port';

function hasRedisServer(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 15000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not met in time');
}

/** A redis-server of the test's own on a free port, which the tests stop (SIGKILL) and start again on the same port. */
interface PrivateRedisServer {
  port: number;
  readonly running: boolean;
  /** Starts it on `port` (by default the one it had). */
  start(port?: number): Promise<void>;
  stop(): Promise<void>;
}

function privateRedisServer(): PrivateRedisServer {
  let child: ChildProcess | null = null;
  const server: PrivateRedisServer = {
    port: 0,
    get running(): boolean {
      return child !== null;
    },
    async start(port = server.port): Promise<void> {
      server.port = port;
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
      await waitFor(async () => {
        try {
          execFileSync('redis-cli', ['-p', String(port), 'ping'], { stdio: 'ignore' });
          return true;
        } catch {
          return false;
        }
      });
    },
    async stop(): Promise<void> {
      const running = child;
      child = null;
      if (!running) return;
      const exited = new Promise((r) => running.once('exit', r));
      running.kill('SIGKILL');
      await exited;
    },
  };
  return server;
}

/** Runs whenever REDIS_URL is set (CI always): a private redis-server that the test stops and restarts. */
(process.env.REDIS_URL && hasRedisServer() ? describe : describe.skip)('Redis down and back', () => {
  let env: Environment;
  let app: TestApp;
  const redis = privateRedisServer();

  beforeAll(async () => {
    await redis.start(await freePort());
    env = await Environment.create({ REDIS_URL: `redis://127.0.0.1:${redis.port}` });
    app = await env.start();
  });
  afterAll(async () => {
    if (!redis.running) await redis.start(); // let the app close its connections cleanly
    await app.close();
    await redis.stop();
    await env.destroy();
  });

  it('reports 503 while Redis is down, refuses rate-limited work with 503, and recovers', async () => {
    const http = new Http(app.url);
    expect(await http.get('/health')).toMatchObject({ status: 200, body: { database: 'up', redis: 'up' } });
    await redis.stop();
    await waitFor(async () => (await http.get('/health')).status === 503);
    expect((await http.get('/health')).body).toMatchObject({ status: 'degraded', redis: 'down' });
    const nonce = await http.from(freshIp()).post('/v1/auth/nonce', { wallet: new TestWallet().address });
    expect(nonce).toEqual({ status: 503, body: { error: expect.any(String) } });

    await redis.start();
    await waitFor(async () => (await http.get('/health')).status === 200);
    expect((await http.from(freshIp()).post('/v1/auth/nonce', { wallet: new TestWallet().address })).status).toBe(200);
    const client = await RpcClient.connect(app.wsUrl, { 'x-forwarded-for': freshIp() });
    expect((await client.call('public/get_nonce', { wallet: new TestWallet().address })).result).toBeDefined();
    await client.close();
  }, 60_000);

  it('an instance shuts down in seconds while Redis is down (no wait on a reconnecting connection)', async () => {
    const other = await env.start();
    await redis.stop();
    const started = Date.now();
    await other.close();
    // Every Redis client is dropped at once (about 30 ms here): waiting out each graceful close took 10 to 12 s,
    // and a history sweep resting 20x a slow statement held a CI run's shutdown up for 18.5 s.
    expect(Date.now() - started).toBeLessThan(6_000);
    await redis.start();
  }, 40_000);
});
