import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import type WebSocket from 'ws';
import { encodeWallet } from '@legwork/protocol';
import { Exchange, type Leg } from '../lib/exchange';
import { parallel } from '../lib/env';
import { ServerProcess, sleep } from '../lib/proc';
import type { FigureResult } from '../lib/report';
import { median, medianOrNull, percentile } from '../lib/stats';
import { openSocket } from '../lib/ws-load';
import { type Context, alternate, profiled } from './context';

/**
 * F10: one `created` broadcast to N subscribed quoter connections (N = 1,000; quick 300): the
 * time from the taker's rfq.create being sent until the last quoter has the `created` event.
 * Baseline: a bare `ws` server (servers/bare-broadcast.ts) asked by one connection to broadcast
 * the same frame text (captured from Legwork) to N other connections: from the request being sent
 * until the last has it. Legwork's time includes the create itself (its statement, the Redis
 * PUBLISH and the hop back): what a quoter waits for. `broadcasts` per round, p99 per round,
 * median of the per-round ratios.
 */
const isCreated = (text: string) => text.includes('"event":"created"');

interface Side {
  /** The server's process (its CPU per broadcast is read from /proc). */
  pid: number;
  /** One broadcast: ms from the trigger until the last of the N connections has the frame. */
  broadcast(): Promise<number>;
  close(): Promise<void>;
}

/** N sockets that count `created` frames; `arm()` resolves when each has one more. */
function counter(sockets: WebSocket[]) {
  let waiting: { left: number; resolve: () => void } | null = null;
  let first: string | null = null;
  for (const socket of sockets) {
    socket.on('message', (data: Buffer) => {
      const text = data.toString();
      if (!isCreated(text)) return;
      first ??= text;
      if (waiting && --waiting.left === 0) waiting.resolve();
    });
  }
  return {
    arm(timeoutMs: number): Promise<void> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`F10: only ${sockets.length - (waiting?.left ?? 0)} of ${sockets.length} connections got the frame in ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiting = {
          left: sockets.length,
          resolve: () => {
            clearTimeout(timer);
            waiting = null;
            resolve();
          },
        };
      });
    },
    get firstFrame(): string | null {
      return first;
    },
  };
}

function request(socket: WebSocket, frame: string): Promise<string> {
  return new Promise((resolve) => {
    const onMessage = (d: Buffer) => {
      const text = d.toString();
      if (!text.includes('"id":')) return;
      socket.off('message', onMessage);
      resolve(text);
    };
    socket.on('message', onMessage);
    socket.send(frame);
  });
}

async function legworkSide(ctx: Context, n: number): Promise<Side & { frame: () => Promise<string>; server: ServerProcess }> {
  const env = ctx.env.appEnv({
    RFQ_RATE_PER_SECOND: '1000000',
    RFQ_RATE_BURST: '1000000',
    MAX_OPEN_RFQS: '100000',
    MARKET_DATA_MAX_AGE_SECONDS: '86400',
    MAX_CONNECTIONS_PER_IP: '100000',
  });
  const server = await ServerProcess.start(`legwork-f10-${n}`, 'legwork', env, {
    logFile: join(ctx.logDir, `f10-legwork-${n}.log`),
    nodeArgs: ctx.legworkNodeArgs,
  });
  const ex = new Exchange(`http://127.0.0.1:${server.port}`, `ws://127.0.0.1:${server.port}/client`, env);
  const round = await ex.listRound('BTEN', 3, ['150', '160']);
  const legs: Leg[] = [{ instrument: round.symbol('150'), quantity: '1' }];
  const taker = await ex.connect(await ex.account(['taker']), false);
  // Quoters straight into the accounts table (account creation is not what F10 measures).
  const wallets = Array.from({ length: n }, () => encodeWallet(randomBytes(32)));
  const db = new Client({ connectionString: ctx.env.databaseUrl });
  await db.connect();
  const { rows } = await db.query<{ id: string; wallet: string }>(
    `INSERT INTO accounts (wallet, roles) SELECT w, '{quoter}' FROM unnest($1::text[]) AS w RETURNING id, wallet`,
    [wallets],
  );
  await db.end();
  const url = `ws://127.0.0.1:${server.port}/client`;
  const sockets = await parallel(rows.length, 50, async (i) => {
    const socket = await openSocket(url, { 'x-forwarded-for': `10.10.${(i >> 8) & 255}.${i & 255}` });
    const token = ex.sessions.issue(rows[i].wallet, Number(rows[i].id), ['quoter']);
    const resumed = await request(socket, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'public/session_resume', params: { session_token: token } }));
    if (!resumed.includes('"account_id":')) throw new Error(`F10 session_resume failed: ${resumed.slice(0, 300)}`);
    const subscribed = await request(socket, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'rfq.maker.subscribe', params: {} }));
    if (subscribed.includes('"error"')) throw new Error(`F10 rfq.maker.subscribe failed: ${subscribed.slice(0, 300)}`);
    return socket;
  });
  const count = counter(sockets);
  const broadcast = async () => {
    const all = count.arm(30_000);
    const t0 = performance.now();
    await taker.rpc.result('rfq.create', { client_ref: randomUUID(), legs });
    await all;
    return performance.now() - t0;
  };
  return {
    server,
    pid: server.pid,
    broadcast,
    frame: async () => {
      if (!count.firstFrame) await broadcast();
      return count.firstFrame!;
    },
    close: async () => {
      for (const s of sockets) s.terminate();
      await taker.rpc.close().catch(() => undefined);
      await server.stop();
    },
  };
}

async function bareSide(ctx: Context, n: number, frame: string): Promise<Side> {
  const server = await ServerProcess.start(`bare-broadcast-${n}`, 'bare-broadcast', {}, { logFile: join(ctx.logDir, `f10-bare-${n}.log`) });
  await server.request({ type: 'frame', text: frame });
  const url = `ws://127.0.0.1:${server.port}/client`;
  const trigger = await openSocket(url);
  const sockets = await parallel(n, 50, () => openSocket(url));
  const count = counter(sockets);
  let id = 0;
  return {
    pid: server.pid,
    broadcast: async () => {
      const all = count.arm(30_000);
      const t0 = performance.now();
      await request(trigger, JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'broadcast' }));
      await all;
      return performance.now() - t0;
    },
    close: async () => {
      for (const s of [trigger, ...sockets]) s.terminate();
      await server.stop();
    },
  };
}

export interface FanOut {
  n: number;
  legworkP99: number;
  baselineP99: number;
  ratio: number;
  rounds: Array<{ legwork: number; baseline: number; legworkP50: number; baselineP50: number; legworkCpuMs: number | null; baselineCpuMs: number | null }>;
  /** Server CPU ms per broadcast (medians of the rounds): steadier than the latencies on a shared machine. */
  legworkCpuMs: number | null;
  baselineCpuMs: number | null;
}

/** F10 at `n` connections: `rounds` alternating rounds of `broadcasts` broadcasts per side. */
export async function fanOut(ctx: Context, n: number, rounds: number, broadcasts: number): Promise<FanOut> {
  const legwork = await legworkSide(ctx, n);
  let bare: Side | null = null;
  try {
    bare = await bareSide(ctx, n, await legwork.frame());
    const run = async (side: Side) => {
      const samples: number[] = [];
      for (let i = 0; i < 3; i++) await side.broadcast(); // warm-up
      const stop = await ctx.meter.start(side.pid);
      for (let i = 0; i < broadcasts; i++) {
        samples.push(await side.broadcast());
        await sleep(20);
      }
      const cpu = await stop();
      return { samples, cpuMs: cpu.server === null ? null : (cpu.server * 1000) / broadcasts };
    };
    const out: FanOut['rounds'] = [];
    for (let r = 0; r < rounds; r++) {
      const x = await alternate(
        r,
        () => run(bare!),
        () => run(legwork),
      );
      const l = x.legwork.samples;
      const b = x.baseline.samples;
      out.push({
        legwork: percentile(l, 99),
        baseline: percentile(b, 99),
        legworkP50: percentile(l, 50),
        baselineP50: percentile(b, 50),
        legworkCpuMs: x.legwork.cpuMs,
        baselineCpuMs: x.baseline.cpuMs,
      });
      ctx.log(
        `F10 n=${n} round ${r + 1}: p99 ${out[r].legwork.toFixed(1)} ms vs ${out[r].baseline.toFixed(1)} ms (p50 ${out[r].legworkP50.toFixed(1)} vs ${out[r].baselineP50.toFixed(1)}); server CPU ${x.legwork.cpuMs?.toFixed(2)} vs ${x.baseline.cpuMs?.toFixed(2)} ms per broadcast`,
      );
    }
    // With --profile: the Legwork server's CPU profile over one more (uncounted) set of broadcasts.
    await profiled(ctx, legwork.server, `F10-${n}`, () => run(legwork));
    return {
      n,
      legworkP99: median(out.map((x) => x.legwork)),
      baselineP99: median(out.map((x) => x.baseline)),
      ratio: median(out.map((x) => x.legwork / x.baseline)),
      rounds: out,
      legworkCpuMs: medianOrNull(out.map((x) => x.legworkCpuMs)),
      baselineCpuMs: medianOrNull(out.map((x) => x.baselineCpuMs)),
    };
  } finally {
    await bare?.close();
    await legwork.close();
  }
}

export async function runF10(ctx: Context): Promise<FigureResult[]> {
  const n = ctx.quick ? 300 : 1000;
  const f = await fanOut(ctx, n, ctx.rounds, ctx.quick ? 10 : 30);
  return [
    {
      id: 'F10',
      title: `one created broadcast to ${n} subscribed quoter connections, until the last has it, p99`,
      unit: 'ms',
      baselineTitle: `bare ws server sending the same frame to ${n} connections`,
      status: 'measured',
      legwork: f.legworkP99,
      baseline: f.baselineP99,
      ratioOf: 'Legwork p99 / baseline p99 (median of per-round ratios)',
      ratio: f.ratio,
      target: '<= 1.5',
      met: f.ratio <= 1.5,
      rounds: f.rounds,
      extra: {
        connections: n,
        p50_ms: { legwork: median(f.rounds.map((x) => x.legworkP50)), baseline: median(f.rounds.map((x) => x.baselineP50)) },
        server_cpu_ms_per_broadcast: { legwork: f.legworkCpuMs, baseline: f.baselineCpuMs },
      },
      notes: [
        "Legwork's time runs from the taker's rfq.create being sent (its statement, the PUBLISH and the hop back included), the baseline's from the broadcast request being sent",
        'the receiving connections are in the bench process for both sides',
      ],
    },
  ];
}
