import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import WebSocket from 'ws';
import { encodeWallet } from '@legwork/protocol';
import { Exchange, type Leg, type Trader } from '../lib/exchange';
import { httpOk, parallel } from '../lib/env';
import { httpLoad } from '../lib/http-load';
import { ServerProcess, sleep } from '../lib/proc';
import { Samples } from '../lib/stats';
import { lineChart } from '../lib/svg';
import type { Context } from './context';
import { fanOut } from './f10';

/**
 * `npm run bench -- --curves` (not in CI): how cost grows. Each curve is one Legwork server per
 * point (a fresh database state is not needed: every point makes its own accounts), written as
 * bench/results/curves.{json,md} and one SVG chart per curve in docs/figures/ (linked from
 * bench/results/performance.md):
 * - lifecycles/s and lifecycle p99 at 1, 4, 16 and 64 taker/maker pairs (as F5, closed loop);
 * - RSS per idle signed-in connection at 5,000 and 50,000 connections (as F3; a point needs
 *   N + 2,000 file descriptors in this process and the server's: `ulimit -n`);
 * - F10 (the `created` broadcast, p99 until the last quoter has it) at 100, 1,000 and 5,000 quoters;
 * - GET /query/rfq-positions latency (one request at a time, limit 1000) with 50, 500 and 5,000
 *   positions held by the account.
 */
interface Curves {
  lifecycles: Array<{ pairs: number; per_second: number; p50_ms: number; p99_ms: number; failures: number }>;
  rss: Array<{ connections: number; rss_per_connection: number | null; heap_per_connection: number | null; note?: string }>;
  fanout: Array<{ quoters: number; legwork_p99_ms: number; baseline_p99_ms: number; ratio: number }>;
  positions: Array<{ positions: number; p50_ms: number; p99_ms: number; rows: number }>;
}

const F5_ENV = {
  MARKET_DATA_MAX_AGE_SECONDS: '86400',
  RFQ_RATE_PER_SECOND: '1000000',
  RFQ_RATE_BURST: '1000000',
  RFQ_TTL_SECONDS: '4',
  MAX_OPEN_RFQS: '100000',
  MAX_CONNECTIONS_PER_IP: '1000000',
};

async function lifecyclePoint(ctx: Context, pairs: number): Promise<Curves['lifecycles'][number]> {
  const env = ctx.env.appEnv(F5_ENV);
  const server = await ServerProcess.start(`legwork-curve-${pairs}`, 'legwork', env, { logFile: join(ctx.logDir, `curve-lifecycles-${pairs}.log`) });
  const traders: Trader[] = [];
  try {
    const ex = new Exchange(`http://127.0.0.1:${server.port}`, `ws://127.0.0.1:${server.port}/client`, env);
    const round = await ex.listRound(`BC${pairs}`, 3, ['140', '150', '160']);
    const legs: Leg[] = [
      { instrument: round.symbol('150'), quantity: '1' },
      { instrument: round.symbol('160'), quantity: '-1' },
    ];
    const takers = await parallel(pairs, 8, async () => ex.connect(await ex.account(['taker'], '100000000'), true));
    const makers = await parallel(pairs, 8, async () => ex.connect(await ex.account(['quoter'], '1000000000'), false));
    traders.push(...takers, ...makers);
    let running = true;
    let counting = false;
    let done = 0;
    let failures = 0;
    const latencies = new Samples();
    const loops = takers.map(async (taker, i) => {
      while (running) {
        try {
          const r = await ex.lifecycle(taker, makers[i], round, legs, 'buy', 3);
          if (counting) {
            done++;
            latencies.push(r.ms);
          }
        } catch {
          if (counting) failures++;
          await sleep(50);
        }
      }
    });
    await sleep(4500); // the deferred expiry jobs in steady state (F5)
    const t0 = performance.now();
    counting = true;
    await sleep(6000);
    counting = false;
    const seconds = (performance.now() - t0) / 1000;
    running = false;
    await Promise.all(loops);
    const point = { pairs, per_second: done / seconds, p50_ms: latencies.percentile(50), p99_ms: latencies.percentile(99), failures };
    ctx.log(`curve lifecycles: ${pairs} pairs: ${point.per_second.toFixed(1)}/s, p99 ${point.p99_ms.toFixed(1)} ms (${failures} failed)`);
    return point;
  } finally {
    for (const t of traders) await t.rpc?.close().catch(() => undefined);
    await server.stop();
  }
}

function fdLimit(): number {
  try {
    return Number(execFileSync('sh', ['-c', 'ulimit -Hn'], { encoding: 'utf8' }).trim()) || 0;
  } catch {
    return 0;
  }
}

async function rssPoint(ctx: Context, n: number): Promise<Curves['rss'][number]> {
  const limit = fdLimit();
  if (limit < n + 2000)
    return {
      connections: n,
      rss_per_connection: null,
      heap_per_connection: null,
      note: `not measured: ${n} connections need ${n + 2000} file descriptors, ulimit -Hn is ${limit}`,
    };
  const env = ctx.env.appEnv(F5_ENV);
  const server = await ServerProcess.start(`legwork-curve-rss-${n}`, 'legwork', env, { logFile: join(ctx.logDir, `curve-rss-${n}.log`) });
  const sockets: WebSocket[] = [];
  try {
    const ex = new Exchange(`http://127.0.0.1:${server.port}`, `ws://127.0.0.1:${server.port}/client`, env);
    const wallets = Array.from({ length: n }, () => encodeWallet(randomBytes(32)));
    const db = new Client({ connectionString: ctx.env.databaseUrl });
    await db.connect();
    const { rows } = await db.query<{ id: string; wallet: string }>(
      `INSERT INTO accounts (wallet, roles) SELECT w, '{taker}' FROM unnest($1::text[]) AS w RETURNING id, wallet`,
      [wallets],
    );
    await db.end();
    const url = `ws://127.0.0.1:${server.port}/client`;
    const m0 = await server.memory();
    // Past ~28,000 connections one source address runs out of ephemeral ports: 127.0.0.x, 20,000 each.
    const connected = await parallel(n, 100, async (i) => {
      const socket = new WebSocket(url, {
        headers: { 'x-forwarded-for': `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` },
        perMessageDeflate: false,
        localAddress: `127.0.0.${1 + Math.floor(i / 20_000)}`,
      });
      await new Promise((resolve, reject) => {
        socket.once('open', resolve);
        socket.once('error', reject);
      });
      const token = ex.sessions.issue(rows[i].wallet, Number(rows[i].id), ['taker']);
      await new Promise<void>((resolve) => {
        socket.once('message', () => resolve());
        socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'public/session_resume', params: { session_token: token } }));
      });
      return socket;
    });
    sockets.push(...connected);
    await sleep(1000);
    const m1 = await server.memory();
    const point = {
      connections: n,
      rss_per_connection: (m1.rss - m0.rss) / n,
      heap_per_connection: (m1.heapUsed + m1.external - m0.heapUsed - m0.external) / n,
    };
    ctx.log(
      `curve RSS: ${n} connections: ${Math.round(point.rss_per_connection)} B RSS, ${Math.round(point.heap_per_connection)} B heap+external per connection`,
    );
    return point;
  } finally {
    for (const s of sockets) s.terminate();
    await server.stop();
  }
}

async function positionsPoint(ctx: Context, count: number): Promise<Curves['positions'][number]> {
  const env = ctx.env.appEnv(F5_ENV);
  const server = await ServerProcess.start(`legwork-curve-pos-${count}`, 'legwork', env, { logFile: join(ctx.logDir, `curve-positions-${count}.log`) });
  try {
    const base = `http://127.0.0.1:${server.port}`;
    const ex = new Exchange(base, `ws://127.0.0.1:${server.port}/client`, env);
    const round = await ex.listRound(`BP${count}`, 3, ['150']);
    const trader = await ex.account(['taker'], '100000000');
    // The positions straight into the tables (count / 2 strikes, a call and a put each): what is
    // measured is the read, not the fills that would make them (F1b makes its 50 by real fills).
    const strikes = Array.from({ length: Math.ceil(count / 2) }, (_, i) => String(1000 + i));
    const symbols = strikes.flatMap((s) => [round.symbol(s, 'call'), round.symbol(s, 'put')]).slice(0, count);
    const db = new Client({ connectionString: ctx.env.databaseUrl });
    await db.connect();
    await db.query(
      `INSERT INTO instruments (symbol, asset, strike, kind, expiry)
       SELECT s, $2, (split_part(s, '-', 3))::numeric * 1000000, CASE WHEN s LIKE '%-C' THEN 'call' ELSE 'put' END, $3 FROM unnest($1::text[]) AS s ON CONFLICT DO NOTHING`,
      [symbols, round.asset, round.expiry],
    );
    await db.query(
      `INSERT INTO positions (account_id, instrument, quantity, avg_num, avg_den, average_price) SELECT $1, s, 1000000, 1500000, 1, 1500000 FROM unnest($2::text[]) AS s`,
      [trader.accountId, symbols],
    );
    await db.end();
    const token = ex.sessions.issue(trader.wallet, trader.accountId, ['taker']);
    const path = '/query/rfq-positions?limit=1000';
    const first = await httpOk(base, 'GET', path, { token });
    await httpLoad(`${base}${path}`, { connections: 1, seconds: 1, headers: { authorization: `Bearer ${token}` } });
    const r = await httpLoad(`${base}${path}`, { connections: 1, seconds: 4, headers: { authorization: `Bearer ${token}` } });
    const point = { positions: count, p50_ms: r.p50, p99_ms: r.p99, rows: (first as { rows?: unknown[] }).rows?.length ?? 0 };
    ctx.log(`curve positions: ${count}: p50 ${r.p50} ms, p99 ${r.p99} ms (${point.rows} rows answered)`);
    return point;
  } finally {
    await server.stop();
  }
}

export async function runCurves(ctx: Context, figuresDir: string): Promise<Curves> {
  const curves: Curves = { lifecycles: [], rss: [], fanout: [], positions: [] };
  const step = async <T>(what: string, fn: () => Promise<T>): Promise<T | null> => {
    try {
      return await fn();
    } catch (error) {
      ctx.log(`curve ${what} failed: ${String((error as Error)?.stack ?? error)}`);
      return null;
    }
  };
  for (const pairs of [1, 4, 16, 64]) {
    const p = await step(`lifecycles ${pairs}`, () => lifecyclePoint(ctx, pairs));
    if (p) curves.lifecycles.push(p);
  }
  for (const n of [5000, 50000]) {
    const p = await step(`rss ${n}`, () => rssPoint(ctx, n));
    if (p) curves.rss.push(p);
  }
  for (const n of [100, 1000, 5000]) {
    const f = await step(`F10 ${n}`, () => fanOut(ctx, n, 3, 20));
    if (f) curves.fanout.push({ quoters: n, legwork_p99_ms: f.legworkP99, baseline_p99_ms: f.baselineP99, ratio: f.ratio });
  }
  for (const n of [50, 500, 5000]) {
    const p = await step(`positions ${n}`, () => positionsPoint(ctx, n));
    if (p) curves.positions.push(p);
  }

  writeCharts(curves, figuresDir);
  return curves;
}

/** The four SVG charts of the curves, in `figuresDir`. */
function writeCharts(curves: Curves, figuresDir: string): void {
  mkdirSync(figuresDir, { recursive: true });
  const write = (name: string, svg: string) => writeFileSync(join(figuresDir, name), svg);
  write(
    'curve-lifecycles.svg',
    lineChart({
      title: 'RFQ lifecycles by concurrent pairs',
      xLabel: 'taker/maker pairs',
      yLabel: 'lifecycles/s; p99 ms',
      logX: true,
      series: [
        { name: 'lifecycles/s', points: curves.lifecycles.map((p) => [p.pairs, p.per_second]) },
        { name: 'lifecycle p99 ms', points: curves.lifecycles.map((p) => [p.pairs, p.p99_ms]) },
      ],
    }),
  );
  write(
    'curve-rss.svg',
    lineChart({
      title: 'Memory per idle signed-in connection',
      xLabel: 'connections',
      yLabel: 'bytes per connection',
      logX: true,
      series: [
        { name: 'RSS', points: curves.rss.filter((p) => p.rss_per_connection !== null).map((p) => [p.connections, p.rss_per_connection!]) },
        { name: 'heap + external', points: curves.rss.filter((p) => p.heap_per_connection !== null).map((p) => [p.connections, p.heap_per_connection!]) },
      ],
    }),
  );
  write(
    'curve-fanout.svg',
    lineChart({
      title: 'created broadcast until the last quoter (p99)',
      xLabel: 'subscribed quoters',
      yLabel: 'ms',
      logX: true,
      series: [
        { name: 'Legwork', points: curves.fanout.map((p) => [p.quoters, p.legwork_p99_ms]) },
        { name: 'bare ws', points: curves.fanout.map((p) => [p.quoters, p.baseline_p99_ms]) },
      ],
    }),
  );
  write(
    'curve-positions.svg',
    lineChart({
      title: 'GET /query/rfq-positions latency',
      xLabel: 'positions held',
      yLabel: 'ms',
      logX: true,
      series: [
        { name: 'p50', points: curves.positions.map((p) => [p.positions, p.p50_ms]) },
        { name: 'p99', points: curves.positions.map((p) => [p.positions, p.p99_ms]) },
      ],
    }),
  );
}

/** The curves as the small markdown tables of bench/results/performance.md. */
export function curvesMarkdown(c: Curves): string {
  const f = (x: number | null | undefined, d = 1) => (x === null || x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(d));
  return [
    '| pairs | lifecycles/s | p50 ms | p99 ms | failed |',
    '|---|---|---|---|---|',
    ...c.lifecycles.map((p) => `| ${p.pairs} | ${f(p.per_second)} | ${f(p.p50_ms)} | ${f(p.p99_ms)} | ${p.failures} |`),
    '',
    '| connections | RSS bytes/connection | heap + external bytes/connection | note |',
    '|---|---|---|---|',
    ...c.rss.map((p) => `| ${p.connections} | ${f(p.rss_per_connection, 0)} | ${f(p.heap_per_connection, 0)} | ${p.note ?? ''} |`),
    '',
    '| quoters | Legwork p99 ms | bare ws p99 ms | ratio |',
    '|---|---|---|---|',
    ...c.fanout.map((p) => `| ${p.quoters} | ${f(p.legwork_p99_ms)} | ${f(p.baseline_p99_ms)} | ${f(p.ratio, 2)} |`),
    '',
    '| positions | p50 ms | p99 ms | rows answered (limit 1000) |',
    '|---|---|---|---|',
    ...c.positions.map((p) => `| ${p.positions} | ${f(p.p50_ms)} | ${f(p.p99_ms)} | ${p.rows} |`),
  ].join('\n');
}
