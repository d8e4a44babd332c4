import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import type WebSocket from 'ws';
import { encodeWallet } from '@legwork/protocol';
import { loadConfig } from '../../src/common/config/config';
import { SessionService } from '../../src/modules/auth/session.service';
import { ADMIN_TOKEN, httpOk, parallel } from '../lib/env';
import { type MemorySample, ServerProcess, sleep } from '../lib/proc';
import type { FigureResult } from '../lib/report';
import { median } from '../lib/stats';
import { openSocket } from '../lib/ws-load';
import { type Context, alternate } from './context';

/**
 * F3: memory per idle signed-in WebSocket. A fresh server per round: warm it (a few connections
 * signed in and closed), full GC, memory; then N connections, each signed in with
 * public/session_resume (a session token minted with the server's own SessionService for an
 * account created through the admin API), idle 1 s, full GC, memory. Per connection = delta / N.
 * Baseline: a bare `ws` server with N connections that each sent the same frame (echoed).
 */
interface Measure {
  perConnRss: number;
  perConnHeap: number;
  perConnExternal: number;
  connectMs: number;
}

function delta(m0: MemorySample, m1: MemorySample, n: number): Omit<Measure, 'connectMs'> {
  return {
    perConnRss: (m1.rss - m0.rss) / n,
    perConnHeap: (m1.heapUsed - m0.heapUsed) / n,
    perConnExternal: (m1.external - m0.external) / n,
  };
}

/**
 * The N accounts, once: straight into the accounts table when the schema is there (account creation
 * is not what F3 measures), else through the admin API of a setup server (which migrates).
 */
async function createAccounts(ctx: Context, env: Record<string, string>, n: number): Promise<Array<{ wallet: string; accountId: number }>> {
  const wallets = Array.from({ length: n }, () => encodeWallet(randomBytes(32)));
  let accounts: Array<{ wallet: string; accountId: number }>;
  const db = new Client({ connectionString: ctx.env.databaseUrl });
  await db.connect();
  try {
    const migrated = (await db.query(`SELECT to_regclass('public.accounts') IS NOT NULL AS ok`)).rows[0].ok as boolean;
    if (migrated) {
      const { rows } = await db.query<{ id: string; wallet: string }>(
        `INSERT INTO accounts (wallet, roles) SELECT w, '{taker}' FROM unnest($1::text[]) AS w RETURNING id, wallet`,
        [wallets],
      );
      accounts = rows.map((r) => ({ wallet: r.wallet, accountId: Number(r.id) }));
    } else {
      const setup = await ServerProcess.start('legwork-f3-setup', 'legwork', env, { logFile: join(ctx.logDir, 'f3-setup.log') });
      const base = `http://127.0.0.1:${setup.port}`;
      accounts = await parallel(n, 32, async (i) => {
        const created = await httpOk(base, 'POST', '/v1/admin/accounts', { token: ADMIN_TOKEN, body: { wallet: wallets[i], roles: ['taker'] } });
        return { wallet: wallets[i], accountId: Number(created.account_id) };
      });
      await setup.stop();
    }
  } finally {
    await db.end();
  }
  return accounts;
}

/** What every F3 measurement uses: the N sign-in frames, the servers kept across rounds (quick run). */
interface F3Run {
  ctx: Context;
  env: Record<string, string>;
  n: number;
  frames: string[];
  kept: Partial<Record<'legwork' | 'bare-ws', ServerProcess>>;
}

/** `count` connections, each sending its frame (from `offset`) and waiting for the reply. */
function connectAll(frames: string[], url: string, count: number, offset: number, check: boolean): Promise<WebSocket[]> {
  return parallel(count, 100, async (i) => {
    const socket = await openSocket(url, { 'x-forwarded-for': `10.9.${(i >> 8) & 255}.${i & 255}` });
    const frame = frames[(offset + i) % frames.length];
    const reply = await new Promise<string>((resolve) => {
      socket.once('message', (d: Buffer) => resolve(d.toString()));
      socket.send(frame);
    });
    if (check && !reply.includes('"account_id":')) throw new Error(`session_resume failed: ${reply.slice(0, 300)}`);
    return socket;
  });
}

async function closeAll(sockets: WebSocket[]): Promise<void> {
  for (const s of sockets) s.terminate();
  await sleep(200);
}

async function measure(f: F3Run, name: string, script: 'legwork' | 'bare-ws', r: number): Promise<Measure> {
  const { ctx, env, n, frames, kept } = f;
  // A fresh server per round (the quick run keeps one of each for its rounds).
  const start = () =>
    ServerProcess.start(`${name}-${r}`, script, script === 'legwork' ? env : {}, {
      logFile: join(ctx.logDir, `f3-${name}-${r}.log`),
      nodeArgs: script === 'legwork' ? ctx.legworkNodeArgs : [],
    });
  const server = ctx.quick ? (kept[script] ??= await start()) : await start();
  const isLegwork = script === 'legwork';
  try {
    const url = `ws://127.0.0.1:${server.port}/client`;
    await closeAll(await connectAll(frames, url, 20, n - 20, isLegwork));
    await sleep(300);
    const m0 = await server.memory();
    const t0 = performance.now();
    const sockets = await connectAll(frames, url, n, 0, isLegwork);
    const connectMs = performance.now() - t0;
    await sleep(1000);
    const m1 = await server.memory();
    if (ctx.profileDir && r === 0) {
      // Heap snapshots around the connections (after the measurement): bench/heap-diff.js reads them.
      await closeAll(sockets);
      await sleep(500);
      await server.request({ type: 'heap-snapshot', file: join(ctx.profileDir, `F3-${name}-before.heapsnapshot`) }, 120_000);
      const again = await connectAll(frames, url, n, 0, isLegwork);
      await sleep(500);
      await server.request({ type: 'heap-snapshot', file: join(ctx.profileDir, `F3-${name}-after.heapsnapshot`) }, 120_000);
      await closeAll(again);
      ctx.log(`heap snapshots in ${ctx.profileDir}: node bench/.build/bench/heap-diff.js F3-${name}-before.heapsnapshot F3-${name}-after.heapsnapshot ${n}`);
      return { ...delta(m0, m1, n), connectMs };
    }
    await closeAll(sockets);
    return { ...delta(m0, m1, n), connectMs };
  } finally {
    if (!ctx.quick) await server.stop();
  }
}

export async function runF3(ctx: Context): Promise<FigureResult[]> {
  const n = ctx.quick ? 300 : 5000;
  const env = ctx.env.appEnv({ LOG_LEVEL: 'warn' });
  const sessions = new SessionService(loadConfig(env));
  const accounts = await createAccounts(ctx, env, n);
  const frames = accounts.map((a, i) =>
    JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'public/session_resume', params: { session_token: sessions.issue(a.wallet, a.accountId, ['taker']) } }),
  );
  const run: F3Run = { ctx, env, n, frames, kept: {} };
  const rounds: Array<{ legwork: Measure; baseline: Measure }> = [];
  for (let r = 0; r < ctx.rounds; r++) {
    const x = await alternate(
      r,
      () => measure(run, 'bare-ws', 'bare-ws', r),
      () => measure(run, 'legwork', 'legwork', r),
    );
    rounds.push(x);
    ctx.log(
      `F3 round ${r + 1}: RSS/conn ${Math.round(x.legwork.perConnRss)} B vs ${Math.round(x.baseline.perConnRss)} B; heap/conn ${Math.round(x.legwork.perConnHeap)} B vs ${Math.round(x.baseline.perConnHeap)} B; sign-in ${Math.round((n / x.legwork.connectMs) * 1000)}/s`,
    );
  }
  for (const server of Object.values(run.kept)) await server.stop();
  return f3Figures(rounds, n);
}

function f3Figures(rounds: Array<{ legwork: Measure; baseline: Measure }>, n: number): FigureResult[] {
  const ratioRss = median(rounds.map((x) => x.legwork.perConnRss / x.baseline.perConnRss));
  const ratioHeap = median(rounds.map((x) => (x.legwork.perConnHeap + x.legwork.perConnExternal) / (x.baseline.perConnHeap + x.baseline.perConnExternal)));
  const common = {
    baselineTitle: `bare ws server, ${n} idle connections`,
    status: 'measured' as const,
    ratioOf: 'Legwork / baseline, median of per-round ratios',
  };
  return [
    {
      ...common,
      id: 'F3',
      title: `RSS per idle signed-in WebSocket at ${n} connections`,
      unit: 'bytes/connection',
      legwork: median(rounds.map((x) => x.legwork.perConnRss)),
      baseline: median(rounds.map((x) => x.baseline.perConnRss)),
      ratio: ratioRss,
      target: '<= 1.5x',
      met: ratioRss <= 1.5,
      rounds: rounds.map((x) => ({ legwork: x.legwork.perConnRss, baseline: x.baseline.perConnRss })),
      extra: {
        connections: n,
        sign_ins_per_second: median(rounds.map((x) => (n / x.legwork.connectMs) * 1000)),
        heap_per_conn: { legwork: median(rounds.map((x) => x.legwork.perConnHeap)), baseline: median(rounds.map((x) => x.baseline.perConnHeap)) },
        external_per_conn: { legwork: median(rounds.map((x) => x.legwork.perConnExternal)), baseline: median(rounds.map((x) => x.baseline.perConnExternal)) },
      },
      notes: [
        'fresh server process per round; delta of process.memoryUsage() after full GC, before and after opening the connections, divided by their number',
      ],
    },
    {
      ...common,
      id: 'F3-heap',
      title: `JS heap + external per idle signed-in WebSocket at ${n} connections`,
      unit: 'bytes/connection',
      legwork: median(rounds.map((x) => x.legwork.perConnHeap + x.legwork.perConnExternal)),
      baseline: median(rounds.map((x) => x.baseline.perConnHeap + x.baseline.perConnExternal)),
      ratio: ratioHeap,
      target: '<= 1.5x',
      met: ratioHeap <= 1.5,
      rounds: rounds.map((x) => ({
        legwork: x.legwork.perConnHeap + x.legwork.perConnExternal,
        baseline: x.baseline.perConnHeap + x.baseline.perConnExternal,
      })),
    },
  ];
}
