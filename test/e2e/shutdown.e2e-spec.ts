import { connect } from 'node:net';
import { Environment } from './harness';

/** docs/spec/design.md section 11: SIGTERM answers what is in flight, within a bound, then the instance goes. */
describe('shutdown: HTTP connections', () => {
  it('a connection that never finishes its request holds a shutdown for the HTTP drain (5 s) only', async () => {
    const env = await Environment.create({});
    try {
      const app = await env.start();
      const socket = connect(Number(new URL(app.url).port), '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
      const cut = new Promise((resolve) => socket.once('close', resolve));
      const started = Date.now();
      await app.close();
      const ms = Date.now() - started;
      await cut;
      // Without the drain's bound the close waited for the headers timeout (10 s); a client that
      // stopped reading a response held one for about 60 s.
      expect(ms).toBeGreaterThanOrEqual(4500);
      expect(ms).toBeLessThan(8000);
    } finally {
      await env.destroy();
    }
  }, 30_000);
});
