import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { BenchEnv, http } from '../lib/env';
import { ServerProcess } from '../lib/proc';
import { httpLoad } from '../lib/http-load';
import { CpuMeter, type CpuReading } from '../lib/cpu';
import { Exchange } from '../lib/exchange';
import { median } from '../lib/stats';
import { makePositions, traceRequest } from '../figures/f1';

/**
 * Experiment: F1a's request (canned rows) against Legwork servers started with different
 * environments, and the bare Fastify route, in one run: short windows in turn, so that a slow
 * minute of a shared machine slows every side alike. CPU per request of each server process, and
 * the median of each window's bare/this ratio.
 *
 * `node bench/.build/bench/experiments/f1-variants.js [windows=8] [seconds=3] name=KEY:VALUE,KEY:VALUE ...`
 * (a variant without settings is the app as it is: `base=`).
 */
/** `name=KEY:VALUE,KEY:VALUE` arguments as variants (none: the app as it is). */
function variantsOf(args: string[]): Array<{ name: string; env: Record<string, string> }> {
  const variants = args
    .filter((a) => a.includes('='))
    .map((a) => {
      const [name, settings] = [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)];
      const pairs = settings.split(',').filter(Boolean);
      return { name, env: Object.fromEntries(pairs.map((kv) => [kv.slice(0, kv.indexOf(':')), kv.slice(kv.indexOf(':') + 1)])) };
    });
  return variants.length > 0 ? variants : [{ name: 'base', env: {} }];
}

interface Target {
  name: string;
  server: ServerProcess;
  url: string;
}

/** The windows in turn (reversed every other one): each target's CPU per request, and the bare/this ratio of each window. */
async function measure(targets: Target[], meter: CpuMeter, headers: Record<string, string>, windows: number, seconds: number): Promise<void> {
  const cpu: Record<string, number[]> = Object.fromEntries(targets.map((t) => [t.name, []]));
  const ratios: Record<string, number[]> = Object.fromEntries(targets.map((t) => [t.name, []]));
  for (let w = 0; w < windows; w++) {
    const window: Record<string, number> = {};
    for (const t of w % 2 === 0 ? targets : [...targets].reverse()) {
      const x = await httpLoad(t.url, { connections: 16, seconds, headers, measure: () => meter.start(t.server.pid) });
      if (x.non2xx || x.errors) throw new Error(`${t.name}: ${x.non2xx} non-2xx, ${x.errors} errors`);
      window[t.name] = (((x.measured as CpuReading).server ?? NaN) / x.requests) * 1000;
      cpu[t.name].push(window[t.name]);
    }
    for (const t of targets) ratios[t.name].push(window.bare / window[t.name]);
    console.log(
      `window ${w + 1}: ${targets.map((t) => `${t.name} ${window[t.name].toFixed(4)} ms (${(window.bare / window[t.name]).toFixed(3)})`).join('; ')}`,
    );
  }
  console.log(
    `median: ${targets.map((t) => `${t.name} ${median(cpu[t.name]).toFixed(4)} ms CPU/req, bare/this ${median(ratios[t.name]).toFixed(3)}`).join('; ')}`,
  );
}

/** The servers: one Legwork per variant (the first makes the positions), each canned with its own traced statements, and the bare route. */
async function start(env: BenchEnv, variants: ReturnType<typeof variantsOf>, servers: ServerProcess[]): Promise<{ targets: Target[]; token: string }> {
  const appEnv = (extra: Record<string, string>) =>
    env.appEnv({ MARKET_DATA_MAX_AGE_SECONDS: '86400', RFQ_RATE_PER_SECOND: '100000', RFQ_RATE_BURST: '100000', ...extra });
  const path = '/query/rfq-positions';
  const legwork: Target[] = [];
  for (const v of variants) {
    const server = await ServerProcess.start(`legwork-${v.name}`, 'legwork', appEnv(v.env), { logFile: join(tmpdir(), `f1v-${v.name}.log`) });
    servers.push(server);
    legwork.push({ name: v.name, server, url: `http://127.0.0.1:${server.port}${path}` });
  }
  const base = `http://127.0.0.1:${legwork[0].server.port}`;
  const made = await makePositions(new Exchange(base, `ws://127.0.0.1:${legwork[0].server.port}/client`, appEnv({})), base);
  if (typeof made === 'string') throw new Error(made);
  const real = await http(base, 'GET', path, { token: made.token });
  for (const l of legwork) {
    const statements = await traceRequest(l.server, `http://127.0.0.1:${l.server.port}`, path, made.token);
    await l.server.request({ type: 'canned', entries: statements.map((s) => ({ match: s.text, rows: s.rows })) });
  }
  const bare = await ServerProcess.start('bare-http', 'bare-http', {}, { logFile: join(tmpdir(), 'f1v-bare.log') });
  servers.push(bare);
  await bare.request({ type: 'canned', body: real.body });
  const targets = [{ name: 'bare', server: bare, url: `http://127.0.0.1:${bare.port}${path}` }, ...legwork];
  for (const t of targets) {
    const check = await http(t.url.replace(path, ''), 'GET', path, { token: made.token });
    if (JSON.stringify(check.body) !== JSON.stringify(real.body)) throw new Error(`${t.name}: a different body`);
    await httpLoad(t.url, { connections: 16, seconds: 1, headers: { authorization: `Bearer ${made.token}` } });
  }
  return { targets, token: made.token };
}

async function main() {
  const numbers = process.argv.slice(2).filter((a) => /^\d+(\.\d+)?$/.test(a));
  const postgresUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const env = await BenchEnv.create(postgresUrl, redisUrl);
  const meter = await CpuMeter.open({ postgresUrl, database: env.database, redisUrl });
  const servers: ServerProcess[] = [];
  try {
    const { targets, token } = await start(env, variantsOf(process.argv.slice(2)), servers);
    await measure(targets, meter, { authorization: `Bearer ${token}` }, Number(numbers[0] ?? 8), Number(numbers[1] ?? 3));
  } finally {
    for (const s of servers) await s.stop();
    await meter.close();
    await env.destroy();
  }
  process.exit(0);
}
void main();
