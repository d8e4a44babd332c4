import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { BenchEnv } from '../lib/env';
import { ServerProcess } from '../lib/proc';
import { httpLoad } from '../lib/http-load';
import { CpuMeter } from '../lib/cpu';

/**
 * Experiment (`node bench/.build/bench/experiments/raw-route.js`, after `npm run bench` built it),
 * the same 50-row body from three servers against the bare F1 server (Fastify alone):
 * - a bare Nest application with one controller route (bench/servers/bare-nest.ts): the framework's floor;
 * - a plain Fastify route inside the Legwork server process (BENCH_EXP_RAW_ROUTE=1: its Fastify
 *   instance with the hooks Nest and Legwork add, no Nest controller): the process around Nest.
 * CPU per request of each server process, 3 rounds.
 */
async function main() {
  const postgresUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const env = await BenchEnv.create(postgresUrl, redisUrl);
  const meter = await CpuMeter.open({ postgresUrl, database: env.database, redisUrl });
  const rows = Array.from({ length: 50 }, (_, i) => ({
    account_id: 100123,
    instrument: `BFONE-26NOV26-${100 + 5 * (i >> 1)}-${i % 2 ? 'P' : 'C'}`,
    asset: 'BFONE',
    strike: `${100 + 5 * (i >> 1)}.00000000`,
    kind: i % 2 ? 'put' : 'call',
    expiry: 1795564800,
    settled: false,
    quantity: '1.00000000',
    average_price: '12.34567800',
    updated_at: '2026-11-23T12:58:28.213Z',
  }));
  const body = { rows };
  const legwork = await ServerProcess.start('legwork-raw', 'legwork', env.appEnv({ BENCH_EXP_RAW_ROUTE: '1' }), { logFile: join(tmpdir(), 'raw.log') });
  const bare = await ServerProcess.start('bare-http', 'bare-http', {}, { logFile: join(tmpdir(), 'bare.log') });
  const nest = await ServerProcess.start('bare-nest', 'bare-nest', {}, { logFile: join(tmpdir(), 'bare-nest.log') });
  await legwork.request({ type: 'raw-body', body });
  await bare.request({ type: 'canned', body });
  await nest.request({ type: 'canned', body });
  const targets = [
    { name: 'bare Fastify', url: `http://127.0.0.1:${bare.port}/query/rfq-positions`, server: bare },
    { name: 'bare Nest controller', url: `http://127.0.0.1:${nest.port}/query/rfq-positions`, server: nest },
    { name: 'Legwork process, plain Fastify route', url: `http://127.0.0.1:${legwork.port}/bench/raw`, server: legwork },
  ];
  for (const t of targets) await httpLoad(t.url, { connections: 16, seconds: 1 });
  for (let r = 0; r < 3; r++) {
    const line: string[] = [];
    let base = 0;
    for (const t of targets) {
      const x = await httpLoad(t.url, { connections: 16, seconds: 3, measure: () => meter.start(t.server.pid) });
      const cpu = ((x.measured as { server: number }).server / x.requests) * 1000;
      if (t.server === bare) base = cpu;
      line.push(`${t.name} ${Math.round(x.rps)}/s, ${cpu.toFixed(4)} ms CPU/req (bare/this ${(base / cpu).toFixed(3)})`);
    }
    console.log(`round ${r + 1}: ${line.join('; ')}`);
  }
  for (const s of [legwork, bare, nest]) await s.stop();
  await meter.close();
  await env.destroy();
  process.exit(0);
}
void main();
