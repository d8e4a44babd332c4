import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FigureResult, type Report, notMeasured, writeReport } from '../lib/report';
import { run } from '../lib/proc';
import { median } from '../lib/stats';
import { ensureYear } from './build';
import { competitiveFigure } from './competitive';
import { loadFigures } from './load';
import { absoluteFigure, pairFigure } from './measure';
import { type Scale, scaleOf } from './plan';
import { prepareReads, readFigures } from './reads';
import { replayFigure, verifyFigure } from './replay';
import { type HistoryOptions, type Side, type StartupRounds, closeSides, openEnvs, startSides } from './sides';
import { repriceFigure, settlementFigure } from './year-ops';

/**
 * `npm run bench -- --history [--quick] [--rebuild] [--build-only]`: the figures of a year-old
 * database next to a fresh one, in one run, alternating rounds (bench/README.md, --history).
 * Results in bench/results/history.{json,md} (quick: history-quick). Exit 1 only when a run failed.
 */
function startupFigures(startup: StartupRounds): FigureResult[] {
  const r = startup.rounds;
  const startMs = median(r.map((x) => x.legwork));
  const rss = r.map((x) => ({ legwork: x.rssL / 1048576, baseline: x.rssB / 1048576 }));
  return [
    absoluteFigure(
      {
        id: 'H-startup',
        title: 'start-up of the server on the year (process start to listening), ms',
        unit: 'ms',
        target: '<= 5,000 ms (absolute)',
        notes: ['fork of the server process to its ready message (after app.listen), one uncounted start per side first, then alternating starts'],
        extra: { fresh_ms: r.map((x) => x.baseline) },
      },
      startMs,
      median(r.map((x) => x.baseline)),
      startMs <= 5000,
      r.map((x) => ({ legwork: x.legwork, baseline: x.baseline })),
    ),
    pairFigure(
      {
        id: 'H-rss',
        title: 'RSS after start (full GC), MB, year vs fresh',
        unit: 'MB',
        kind: 'cost',
        target: 1.2,
        notes: ['process.memoryUsage().rss after three full GCs, right after the start-up above'],
      },
      rss,
    ),
  ];
}

async function figures(o: HistoryOptions, s: Scale, sides: { year: Side; fresh: Side }, failures: string[], only: string[] | null): Promise<FigureResult[]> {
  const out: FigureResult[] = [];
  const attempt = async (ids: string[], f: () => Promise<FigureResult[]>) => {
    if (only && !ids.some((id) => only.includes(id.toUpperCase()))) return;
    const t0 = Date.now();
    try {
      out.push(...(await f()));
    } catch (error) {
      const message = `${ids.join('/')}: ${(error as Error)?.stack ?? String(error)}`;
      failures.push(message);
      o.log(`FAILED ${message}`);
      for (const id of ids) out.push(notMeasured(id, id, 'fresh database', '', 'failed', String((error as Error)?.message ?? error).slice(0, 300)));
    }
    o.log(`history: ${ids.join('/')} took ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  };
  await attempt(['F1b', 'H-fills-first', 'H-fills-deep', 'H-rfq-list', 'H-maker-poll'], async () => {
    const setups = { year: await prepareReads(sides.year, s), fresh: await prepareReads(sides.fresh, s) };
    return readFigures(o, s, sides, setups);
  });
  await attempt(['F5', 'F5-pg', 'F7-p99'], () => loadFigures(o, sides));
  await attempt(['F13'], async () => [await competitiveFigure(o, sides)]);
  await attempt(['F9'], async () => [await replayFigure(o, sides)]);
  await attempt(['H-verify-journal'], async () => [await verifyFigure(o, sides, s.filled)]);
  await attempt(['H-reprice'], async () => [await repriceFigure(o, s, sides.year)]);
  await attempt(['H-settle'], async () => [await settlementFigure(o, s, sides.year)]);
  return out;
}

/** `--only F5,H-settle`: the groups holding one of these ids (start-up always runs: it starts the servers). */
function onlyOf(args: string[]): string[] | null {
  const i = args.findIndex((a) => a.startsWith('--only'));
  if (i < 0) return null;
  const value = args[i].includes('=') ? args[i].split('=')[1] : args[i + 1];
  return value.split(',').map((x) => x.trim().toUpperCase());
}

async function ensureTools(log: (line: string) => void): Promise<void> {
  const root = join(__dirname, '..', '..', '..', '..');
  if (existsSync(join(root, 'dist-tools', 'src', 'cli.js'))) return;
  log('history: building the CLI (npm run tools:build) for verify-journal');
  const r = await run('npm', ['run', '-s', 'tools:build'], { timeoutMs: 600_000 });
  if (r.code !== 0) throw new Error(`tools:build failed: ${r.stderr.slice(0, 500)}`);
}

export async function runHistory(args: string[], postgresUrl: string, redisUrl: string, resultsDir: string, log: (line: string) => void): Promise<number> {
  const quick = args.includes('--quick');
  const s = scaleOf(quick);
  const startedAt = new Date().toISOString();
  const year = await ensureYear(postgresUrl, s, args.includes('--rebuild'), log);
  if (args.includes('--build-only')) return 0;
  await ensureTools(log);
  const logDir = mkdtempSync(join(tmpdir(), 'legwork-bench-history-'));
  const o: HistoryOptions = { quick, rounds: quick ? 3 : 5, logDir, log };
  log(`history: ${s.name} scale, logs in ${logDir}`);
  const envs = await openEnvs(postgresUrl, redisUrl, year.database, log);
  const failures: string[] = [];
  const out: FigureResult[] = [];
  let sides: { year: Side; fresh: Side } | null = null;
  try {
    const started = await startSides(envs, o);
    sides = started;
    out.push(...startupFigures(started.startup));
    out.push(...(await figures(o, s, sides, failures, onlyOf(args))));
  } catch (error) {
    failures.push(`history: ${(error as Error)?.stack ?? String(error)}`);
    log(`FAILED ${(error as Error)?.stack ?? String(error)}`);
  } finally {
    if (sides) await closeSides([sides.year, sides.fresh], log);
    else for (const e of [envs.year, envs.fresh]) await e.destroy().catch(() => undefined);
  }
  const report: Report = {
    startedAt,
    finishedAt: new Date().toISOString(),
    mode: quick ? 'quick' : 'full',
    machine: { cpus: cpus().length, node: process.version, platform: process.platform },
    settings: {
      rounds: o.rounds,
      history: { ...s, database: year.database, build_seconds: year.buildSeconds, last_build_seconds: year.lastBuildSeconds, built_at: year.builtAt },
      legwork: 'the year-old database (a TEMPLATE copy of the built year)',
      baseline: 'a fresh database, same server settings, measured in the same run',
    },
    figures: out,
    failures,
  };
  const written = writeReport(resultsDir, report, quick ? 'history-quick' : 'history');
  log(`history: wrote ${written.json} and ${written.md}`);
  for (const f of out)
    log(
      `${f.id.padEnd(16)} ${f.status === 'measured' ? `${f.legwork?.toFixed(2)} vs ${f.baseline?.toFixed(2)} ${f.unit}; ratio ${f.ratio?.toFixed(3) ?? '-'} (${f.target}) ${f.met === null ? '' : f.met ? 'met' : 'NOT met'}` : `${f.status}: ${f.reason}`}`,
    );
  if (failures.length) {
    log(`history: server logs kept in ${logDir}`);
    return 1;
  }
  rmSync(logDir, { recursive: true, force: true });
  return 0;
}
