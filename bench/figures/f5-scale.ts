import { join } from 'node:path';
import { Client } from 'pg';
import type { CpuReading } from '../lib/cpu';
import type { Exchange, Leg, Round, Trader } from '../lib/exchange';
import { HEAD_HISTOGRAMS, type Histogram, delta, merge, readHistograms, summary } from '../lib/histogram';
import { type Script, pgbench } from '../lib/pgbench';
import { ServerProcess, sleep } from '../lib/proc';
import { median } from '../lib/stats';
import type { Context } from './context';

/**
 * F5 with two Legwork instances on one database (`--scale`, not in the default run): what a second
 * instance changes in PostgreSQL's CPU per lifecycle, the figure the scale-out ceiling is computed
 * from (bench/results/performance.md, Scale-out). Back-to-back windows of the same 16 pairs' load: all 16
 * pairs on instance A, then 8 on A and 8 (fresh accounts) on instance B, which shares A's database
 * and Redis prefix (fill and expiry jobs go to either instance's workers; events reach the other
 * instance's sockets through Redis), the order alternating between repeats. CPU per lifecycle:
 * both servers, PostgreSQL (backends of the bench database, and with the auxiliary processes),
 * Redis; the journal head's hold and wait from both servers' histograms.
 */
export interface ScaleInput {
  ex: Exchange;
  exB: (base: string, wsUrl: string) => Exchange;
  env: Record<string, string>;
  legwork: ServerProcess;
  takers: Trader[];
  makers: Trader[];
  round: Round;
  legs: Leg[];
  quoteLifetime: number;
  warmMs: number;
  windowMs: number;
}

interface ScaleWindow {
  instances: number;
  lifecycles_per_s: number;
  failures: number;
  /** CPU ms per lifecycle. */
  server_ms: number;
  postgres_ms: number | null;
  postgres_backends_ms: number | null;
  redis_ms: number | null;
  head_hold: ReturnType<typeof summary>;
  head_wait: ReturnType<typeof summary>;
}

async function heads(servers: ServerProcess[]): Promise<Array<Record<string, Histogram>>> {
  return Promise.all(servers.map((s) => readHistograms(s, HEAD_HISTOGRAMS)));
}

export async function scaleOut(ctx: Context, input: ScaleInput) {
  const { ex } = input;
  const b = await ServerProcess.start('legwork-f5-b', 'legwork', input.env, { logFile: join(ctx.logDir, 'f5-legwork-b.log'), nodeArgs: ctx.legworkNodeArgs });
  const exB = input.exB(`http://127.0.0.1:${b.port}`, `ws://127.0.0.1:${b.port}/client`);
  const half = Math.floor(input.takers.length / 2);
  const own: Trader[] = [];
  try {
    const takersB: Trader[] = [];
    const makersB: Trader[] = [];
    for (let i = 0; i < half; i++) {
      takersB.push(await exB.connect(await ex.account(['taker'], '100000000'), true));
      makersB.push(await exB.connect(await ex.account(['quoter'], '1000000000'), false));
    }
    own.push(...takersB, ...makersB);
    const one = input.takers.map((t, i) => [t, input.makers[i]] as const);
    const two = [...one.slice(0, half), ...takersB.map((t, i) => [t, makersB[i]] as const)];

    const windows: ScaleWindow[] = [];
    const repeats = ctx.quick ? 1 : 2;
    for (let r = 0; r < repeats; r++) {
      for (const instances of r % 2 === 0 ? [1, 2] : [2, 1]) {
        const w = await scaleWindow(ctx, input, b, instances === 1 ? one : two, instances);
        windows.push(w);
        const f = (x: number | null) => (x === null ? '-' : x.toFixed(2));
        ctx.log(
          `F5 scale-out, ${instances} instance(s): ${w.lifecycles_per_s.toFixed(1)} lifecycles/s (${w.failures} failed); CPU ms per lifecycle: servers ${f(w.server_ms)}, PostgreSQL ${f(w.postgres_ms)} (its backends ${f(w.postgres_backends_ms)}), Redis ${f(w.redis_ms)}; head held p50/p99 ${f(w.head_hold?.p50_ms ?? null)}/${f(w.head_hold?.p99_ms ?? null)} ms`,
        );
      }
    }
    const chain = await chainCeiling(ctx);
    return { one: medians(windows, 1), two: medians(windows, 2), windows, chain };
  } finally {
    for (const t of own) await t.rpc?.close().catch(() => undefined);
    await b.stop();
  }
}

/** One window: `instances` 1 (the 16 pairs on A) or 2 (8 on A, 8 on B); CPU per lifecycle of both servers, PostgreSQL, Redis; the heads of both. */
async function scaleWindow(
  ctx: Context,
  input: ScaleInput,
  b: ServerProcess,
  pairs: ReadonlyArray<readonly [Trader, Trader]>,
  instances: number,
): Promise<ScaleWindow> {
  const { ex, legwork, round, legs, quoteLifetime } = input;
  const servers = instances === 1 ? [legwork] : [legwork, b];
  let running = true;
  let counting = false;
  let completed = 0;
  let failures = 0;
  const loops = pairs.map(async ([taker, maker]) => {
    while (running) {
      try {
        await ex.lifecycle(taker, maker, round, legs, 'buy', quoteLifetime);
        if (counting) completed++;
      } catch {
        if (counting) failures++;
        await sleep(50);
      }
    }
  });
  await sleep(input.warmMs);
  const heads0 = await heads(servers);
  const b0 = instances === 2 ? b.cpuSeconds() : 0;
  const stop = await ctx.meter.start(legwork.pid);
  const t0 = performance.now();
  counting = true;
  await sleep(input.windowMs);
  counting = false;
  const seconds = (performance.now() - t0) / 1000;
  const cpu: CpuReading = await stop();
  const b1 = instances === 2 ? b.cpuSeconds() : 0;
  const heads1 = await heads(servers);
  running = false;
  await Promise.all(loops);
  const n = Math.max(1, completed);
  const ms = (x: number | null | undefined) => (x === null || x === undefined ? null : (x * 1000) / n);
  const windowOf = (name: string) => merge(heads1.flatMap((h, i) => (h[name] ? [delta(h[name], heads0[i][name])] : [])));
  return {
    instances,
    lifecycles_per_s: completed / seconds,
    failures,
    server_ms: ms((cpu.server ?? 0) + (b1 - b0))!,
    postgres_ms: ms(cpu.postgres),
    postgres_backends_ms: ms(cpu.postgresBackends),
    redis_ms: ms(cpu.redis),
    head_hold: summary(windowOf(HEAD_HISTOGRAMS[0])),
    head_wait: summary(windowOf(HEAD_HISTOGRAMS[1])),
  };
}

/** Medians of the windows of `instances` instance(s). */
function medians(windows: ScaleWindow[], instances: number) {
  const list = windows.filter((w) => w.instances === instances);
  const med = (pick: (w: ScaleWindow) => number | null | undefined) => {
    const xs = list.map(pick).filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
    return xs.length ? median(xs) : null;
  };
  return {
    lifecycles_per_s: med((w) => w.lifecycles_per_s),
    server_ms: med((w) => w.server_ms),
    postgres_ms: med((w) => w.postgres_ms),
    postgres_backends_ms: med((w) => w.postgres_backends_ms),
    redis_ms: med((w) => w.redis_ms),
    head_hold_p50_ms: med((w) => w.head_hold?.p50_ms),
    head_hold_p99_ms: med((w) => w.head_hold?.p99_ms),
  };
}

/** pgbench script of one chain append: lock the head, write a 1,072-byte row chained to it and move the head, COMMIT. */
function chainScript(batch: number): Script {
  const text = [
    'BEGIN;',
    'SELECT seq, hash FROM bench_chain_head WHERE id = 1 FOR UPDATE;',
    `WITH h AS (SELECT seq, hash FROM bench_chain_head WHERE id = 1), r AS (INSERT INTO bench_chain (seq, prev, hash, payload) SELECT h.seq + g, h.hash, sha256(h.hash || int8send(h.seq + g)), decode(repeat('ab', 1072), 'hex') FROM h, generate_series(1, ${batch}) g) UPDATE bench_chain_head SET seq = seq + ${batch}, hash = sha256(hash) WHERE id = 1;`,
    'COMMIT;',
    '',
  ].join('\n');
  return { text, defines: {}, statements: 4, commits: 1, transactions: 1, autocommit: 0, fillCommands: [] };
}

/**
 * The chain alone, from a C client (pgbench, -r): one head row locked FOR UPDATE, one 1,072-byte
 * row written chained to it, the head moved, COMMIT (a WAL flush): the fill's tail under the head
 * without the rest of the fill and without Node. With 1 client: the uncontended hold; with 16:
 * appends per second when nothing but the chain runs, the ceiling of one head on this PostgreSQL
 * and disk. `batch` 8: eight rows per transaction (one lock, one flush), what batching would give.
 */
async function chainCeiling(ctx: Context) {
  const pg = new Client({ connectionString: ctx.env.databaseUrl });
  await pg.connect();
  try {
    await pg.query(`CREATE TABLE IF NOT EXISTS bench_chain_head (id int PRIMARY KEY, seq bigint NOT NULL, hash bytea NOT NULL)`);
    await pg.query(`CREATE TABLE IF NOT EXISTS bench_chain (seq bigint PRIMARY KEY, prev bytea NOT NULL, hash bytea NOT NULL, payload bytea NOT NULL)`);
    await pg.query(`INSERT INTO bench_chain_head VALUES (1, 0, '\\x00') ON CONFLICT (id) DO NOTHING`);
    const seconds = ctx.quick ? 2 : 5;
    const out: Record<string, { clients: number; batch: number; tps: number; rows_per_s: number; lock_ms: number; write_ms: number; commit_ms: number }> = {};
    for (const [clients, batch] of [
      [1, 1],
      [16, 1],
      [16, 8],
    ]) {
      const file = join(ctx.logDir, `chain-${clients}-${batch}.pgbench.sql`);
      const r = await pgbench(ctx.env.databaseUrl, file, chainScript(batch), { clients, seconds, vars: {}, latencies: true });
      const [, lock, write, commit] = r.commandMs;
      out[`c${clients}_b${batch}`] = { clients, batch, tps: r.tps, rows_per_s: r.tps * batch, lock_ms: lock, write_ms: write, commit_ms: commit };
      ctx.log(
        `F5 chain alone (pgbench, ${clients} clients, ${batch} row(s) per transaction): ${r.tps.toFixed(0)} tps, ${(r.tps * batch).toFixed(0)} rows/s; mean ms: lock ${lock?.toFixed(2)}, write ${write?.toFixed(2)}, COMMIT ${commit?.toFixed(2)}`,
      );
    }
    return out;
  } finally {
    await pg.end().catch(() => undefined);
  }
}
