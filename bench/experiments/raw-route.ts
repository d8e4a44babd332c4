import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { BenchEnv } from '../lib/env';
import { ServerProcess } from '../lib/proc';
import { httpLoad } from '../lib/http-load';
import { CpuMeter } from '../lib/cpu';

/**
 * Experiment (`node bench/.build/bench/experiments/raw-route.js`, after `npm run bench` built it):
 * a plain Fastify route inside the Legwork server process (BENCH_EXP_RAW_ROUTE=1: its Fastify
 * instance with the hooks Nest and Legwork add, no Nest controller) against the bare F1 server,
 * the same 50-row body: how much of F1a's gap is the process around Nest rather than Nest.
 */
async function main() {
  const postgresUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const env = await BenchEnv.create(postgresUrl, redisUrl);
  const meter = await CpuMeter.open({ postgresUrl, database: env.database, redisUrl });
  const rows = Array.from({ length: 50 }, (_, i) => ({
    account_id: 100123, instrument: `BFONE-26NOV26-${100 + 5 * (i >> 1)}-${i % 2 ? 'P' : 'C'}`, asset: 'BFONE', strike: `${100 + 5 * (i >> 1)}.00000000`,
    kind: i % 2 ? 'put' : 'call', expiry: 1795564800, settled: false, quantity: '1.00000000', average_price: '12.34567800', updated_at: '2026-11-23T12:58:28.213Z',
  }));
  const body = { rows };
  const legwork = await ServerProcess.start('legwork-raw', 'legwork', env.appEnv({ BENCH_EXP_RAW_ROUTE: '1' }), { logFile: join(tmpdir(), 'raw.log') });
  const bare = await ServerProcess.start('bare-http', 'bare-http', {}, { logFile: join(tmpdir(), 'bare.log') });
  await legwork.request({ type: 'raw-body', body });
  await bare.request({ type: 'canned', body });
  const urlL = `http://127.0.0.1:${legwork.port}/bench/raw`;
  const urlB = `http://127.0.0.1:${bare.port}/query/rfq-positions`;
  for (const u of [urlL, urlB]) await httpLoad(u, { connections: 16, seconds: 1 });
  for (let r = 0; r < 3; r++) {
    const b = await httpLoad(urlB, { connections: 16, seconds: 3, measure: () => meter.start(bare.pid) });
    const l = await httpLoad(urlL, { connections: 16, seconds: 3, measure: () => meter.start(legwork.pid) });
    const cpu = (x: any) => ((x.measured.server / x.requests) * 1000).toFixed(4);
    console.log(`round ${r}: legwork-process raw route ${Math.round(l.rps)}/s (${cpu(l)} ms cpu/req) vs bare ${Math.round(b.rps)}/s (${cpu(b)})`);
  }
  await legwork.stop();
  await bare.stop();
  await meter.close();
  await env.destroy();
  process.exit(0);
}
void main();
