import { join } from 'node:path';
import { type CpuReading, per1000 } from '../lib/cpu';
import { ServerProcess } from '../lib/proc';
import type { FigureResult } from '../lib/report';
import { median, medianOrNull } from '../lib/stats';
import { fixedRate, pipelined } from '../lib/ws-load';
import { type Context, alternate, profiled } from './context';

const frame = (id: number) => `{"jsonrpc":"2.0","id":${id},"method":"public/get_market_config"}`;

interface F2Round {
  legwork: number;
  baseline: number;
  cpuL: CpuReading;
  cpuB: CpuReading;
  opsL: number;
  opsB: number;
  rate: number;
  p99L: number;
  p99B: number;
  p50L: number;
  p50B: number;
  answeredL: number;
  dueL: number;
  replyBytes: number;
}

/** Both servers of F2 and the run's settings. */
interface F2Servers {
  ctx: Context;
  legwork: ServerProcess;
  bare: ServerProcess;
  urlL: string;
  urlB: string;
  depth: number;
  warmMs: number;
}

/** One round: the pipelined rates, then the fixed rate (half the baseline's) for the latencies. */
async function f2Round(s: F2Servers, r: number): Promise<F2Round> {
  const { ctx, legwork, bare, urlL, urlB, depth, warmMs } = s;
  const tp = await alternate(
    r,
    () => pipelined(urlB, frame, { depth, warmMs, windowMs: ctx.windowMs, measure: () => ctx.meter.start(bare.pid) }),
    () => pipelined(urlL, frame, { depth, warmMs, windowMs: ctx.windowMs, measure: () => ctx.meter.start(legwork.pid) }),
  );
  const rateB = tp.baseline.ops / tp.baseline.seconds;
  const rateL = tp.legwork.ops / tp.legwork.seconds;
  const rate = Math.max(100, Math.round(rateB / 2));
  const lat = await alternate(
    r,
    () => fixedRate(urlB, frame, { rate, warmMs, windowMs: ctx.windowMs, drainMs: ctx.quick ? 1000 : 3000 }),
    () => fixedRate(urlL, frame, { rate, warmMs, windowMs: ctx.windowMs, drainMs: ctx.quick ? 1000 : 3000 }),
  );
  const round: F2Round = {
    legwork: rateL,
    baseline: rateB,
    cpuL: tp.legwork.measured as CpuReading,
    cpuB: tp.baseline.measured as CpuReading,
    opsL: tp.legwork.ops,
    opsB: tp.baseline.ops,
    rate,
    p99L: lat.legwork.p99,
    p99B: lat.baseline.p99,
    p50L: lat.legwork.p50,
    p50B: lat.baseline.p50,
    answeredL: lat.legwork.answered,
    dueL: lat.legwork.due,
    replyBytes: tp.legwork.replyBytes,
  };
  ctx.log(
    `F2 round ${r + 1}: ${Math.round(rateL)}/s vs ${Math.round(rateB)}/s; at ${rate}/s p99 ${lat.legwork.p99.toFixed(2)} ms vs ${lat.baseline.p99.toFixed(2)} ms (answered ${lat.legwork.answered}/${lat.legwork.due})`,
  );
  return round;
}

/**
 * F2: JSON-RPC round trips per second over one connection pipelining public/get_market_config
 * (`depth` in flight), then p99 latency at a fixed rate of half the baseline's rate of the same
 * round. Baseline: a bare `ws` echo server, same frames. Both servers in their own processes.
 */
export async function runF2(ctx: Context): Promise<FigureResult[]> {
  const depth = 64;
  const legwork = await ServerProcess.start('legwork-f2', 'legwork', ctx.env.appEnv(), {
    logFile: join(ctx.logDir, 'f2-legwork.log'),
    nodeArgs: ctx.legworkNodeArgs,
  });
  const bare = await ServerProcess.start('bare-ws', 'bare-ws', {}, { logFile: join(ctx.logDir, 'f2-bare-ws.log') });
  const urlL = `ws://127.0.0.1:${legwork.port}/client`;
  const urlB = `ws://127.0.0.1:${bare.port}/client`;
  const warmMs = ctx.quick ? 300 : 500;
  const rounds: F2Round[] = [];
  try {
    const s: F2Servers = { ctx, legwork, bare, urlL, urlB, depth, warmMs };
    for (let r = 0; r < ctx.rounds; r++) rounds.push(await f2Round(s, r));
    await profiled(ctx, legwork, 'F2', () => pipelined(urlL, frame, { depth, warmMs, windowMs: ctx.windowMs }));
  } finally {
    await legwork.stop();
    await bare.stop();
  }
  return f2Figures(rounds, depth);
}

function f2Figures(rounds: F2Round[], depth: number): FigureResult[] {
  const cpu = (pick: (x: (typeof rounds)[number]) => { c: CpuReading; ops: number }) => ({
    server: medianOrNull(rounds.map((x) => per1000(pick(x).c.server, pick(x).ops))),
    postgres: medianOrNull(rounds.map((x) => per1000(pick(x).c.postgres, pick(x).ops))),
    redis: medianOrNull(rounds.map((x) => per1000(pick(x).c.redis, pick(x).ops))),
  });
  const ratio = median(rounds.map((x) => x.legwork / x.baseline));
  const overhead = median(rounds.map((x) => x.p99L - x.p99B));
  return [
    {
      id: 'F2',
      title: 'JSON-RPC round trips/s, one connection pipelining public/get_market_config',
      unit: 'round trips/s',
      baselineTitle: 'bare ws echo server, same frames',
      status: 'measured',
      legwork: median(rounds.map((x) => x.legwork)),
      baseline: median(rounds.map((x) => x.baseline)),
      ratioOf: 'Legwork / baseline, median of per-round ratios',
      ratio,
      target: '>= 0.50',
      met: ratio >= 0.5,
      rounds: rounds.map((x) => ({ legwork: x.legwork, baseline: x.baseline })),
      cpu: { legwork: cpu((x) => ({ c: x.cpuL, ops: x.opsL })), baseline: cpu((x) => ({ c: x.cpuB, ops: x.opsB })) },
      extra: { depth, reply_bytes: rounds[0]?.replyBytes, request_bytes: frame(1000).length },
      notes: [
        `${depth} requests in flight on one connection; the echo server answers each frame with the same frame (${frame(1000).length} bytes), Legwork with the market config (${rounds[0]?.replyBytes} bytes)`,
      ],
    },
    {
      id: 'F2-p99',
      title: 'p99 round trip at 50 % of the baseline rate (one connection, fixed rate)',
      unit: 'ms',
      baselineTitle: 'bare ws echo server at the same rate',
      status: 'measured',
      legwork: median(rounds.map((x) => x.p99L)),
      baseline: median(rounds.map((x) => x.p99B)),
      ratioOf: 'p99 overhead = Legwork p99 - baseline p99, ms (median of rounds)',
      ratio: overhead,
      target: 'overhead <= 1 ms',
      met: overhead <= 1,
      rounds: rounds.map((x) => ({ legwork: x.p99L, baseline: x.p99B, rate: x.rate, p50L: x.p50L, p50B: x.p50B, answered: `${x.answeredL}/${x.dueL}` })),
      extra: { rates: rounds.map((x) => x.rate) },
      notes: ["latency counted from each request's due time (open loop, no coordinated omission); rate = half the baseline's pipelined rate of the same round"],
    },
  ];
}
