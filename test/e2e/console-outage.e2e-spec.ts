import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { Http } from './clients';
import { Environment, type TestApp } from './harness';
import { freePort } from '../fleet/free-port';

/**
 * The console's overview while Redis is down (a private redis-server, killed here): the page
 * still answers quickly, with what PostgreSQL knows and no queue depths, and /health says why.
 */
const hasRedisServer = (() => {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

(process.env.REDIS_URL && hasRedisServer ? describe : describe.skip)('console overview with Redis down', () => {
  let env: Environment;
  let app: TestApp;
  let redis: ChildProcess | null = null;

  beforeAll(async () => {
    const port = await freePort();
    redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    for (let i = 0; ; i++) {
      try {
        execFileSync('redis-cli', ['-p', String(port), 'ping'], { stdio: 'ignore' });
        break;
      } catch {
        if (i > 100) throw new Error('redis-server did not start');
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    env = await Environment.create({ REDIS_URL: `redis://127.0.0.1:${port}` });
    app = await env.start();
  });
  afterAll(async () => {
    redis?.kill('SIGKILL');
    await app?.close();
    await env?.destroy();
  });

  it('answers within the queue-depth timeout with the database counts and no queues', async () => {
    const admin = new Http(app.url).admin();
    const up = await admin.get('/v1/admin/overview');
    expect(up.status).toBe(200);
    expect(Object.keys(up.body.queues).length).toBeGreaterThan(0);

    const child = redis!;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    redis = null;
    await exited;

    const started = Date.now();
    const down = await admin.get('/v1/admin/overview');
    const ms = Date.now() - started;
    expect(down.status).toBe(200);
    expect(down.body.queues).toEqual({});
    expect(down.body.rfqs_by_state).toMatchObject({ pending: 0, filled: 0 });
    expect(ms).toBeLessThan(2500);
    console.log(`console: overview with Redis down answered in ${ms} ms`);
    const health = await new Http(app.url).get('/health');
    expect([health.status, health.body.redis]).toEqual([503, 'down']);
  }, 30_000);
});
