import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * A loopback port nothing listens on, for a child process (an instance, a Redis, a PostgreSQL) to
 * bind a moment later. It is chosen below the kernel's ephemeral range: a port from that range
 * (what `listen(0)` hands out, and the local port of every outgoing connection) can be taken again
 * in the seconds between this check and the child's bind, and the child then exits with
 * EADDRINUSE. Below the range a port is only ever taken by an explicit bind.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  const floor = Math.min(10_000, low - 1_000);
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = randomInt(floor, low);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port in ${floor}..${low - 1}`);
}

/** The first port of the kernel's ephemeral range (Linux), 32768 where it cannot be read. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 2_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });
}
