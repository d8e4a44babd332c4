import { join } from 'node:path';
import type { BenchEnv } from '../lib/env';
import type { ServerProcess } from '../lib/proc';
import type { CpuMeter } from '../lib/cpu';

/** What every figure gets from the runner. */
export interface Context {
  quick: boolean;
  rounds: number;
  /** Measurement window of one throughput run, ms. */
  windowMs: number;
  env: BenchEnv;
  meter: CpuMeter;
  /** Directory for server logs of this run (deleted after a run without failures). */
  logDir: string;
  /** bench/results: reports, and the F5 trace and pgbench script. */
  resultsDir: string;
  /** Extra node flags for the Legwork server. */
  legworkNodeArgs: string[];
  /** With --profile: where the CPU profiles of the Legwork server go (one extra, uncounted window per figure). */
  profileDir: string | null;
  /** With --scale: F5 also runs its load on two Legwork instances sharing the database (figures/f5-scale.ts). */
  scale?: boolean;
  log: (line: string) => void;
}

/** With --profile, runs `load` once more with the Legwork server's CPU profiler on (not counted). */
export async function profiled(ctx: Context, server: ServerProcess, name: string, load: () => Promise<unknown>): Promise<void> {
  if (!ctx.profileDir) return;
  const file = join(ctx.profileDir, `${name}.cpuprofile`);
  await server.request({ type: 'profile-start' });
  await load();
  await server.request({ type: 'profile-stop', file });
  ctx.log(`profile of ${name}: ${file}`);
}

/** Round `r` runs the baseline first when even, Legwork first when odd. */
export async function alternate<B, L>(round: number, baseline: () => Promise<B>, legwork: () => Promise<L>): Promise<{ baseline: B; legwork: L }> {
  if (round % 2 === 0) {
    const b = await baseline();
    const l = await legwork();
    return { baseline: b, legwork: l };
  }
  const l = await legwork();
  const b = await baseline();
  return { baseline: b, legwork: l };
}
