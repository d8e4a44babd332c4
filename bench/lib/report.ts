import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { round } from './stats';

interface Cpu1000 {
  server: number | null;
  postgres: number | null;
  redis: number | null;
}

interface Round {
  legwork: number | null;
  baseline: number | null;
  [key: string]: unknown;
}

export interface FigureResult {
  id: string;
  title: string;
  /** Unit of `legwork` and `baseline`. */
  unit: string;
  baselineTitle: string;
  status: 'measured' | 'not measured' | 'failed';
  /** Why not measured, or the error. */
  reason?: string;
  legwork: number | null;
  baseline: number | null;
  /** How the ratio is formed, e.g. "legwork / baseline". */
  ratioOf: string;
  ratio: number | null;
  target: string;
  met: boolean | null;
  rounds: Round[];
  /** CPU seconds per 1,000 operations (medians over the rounds). */
  cpu?: { legwork: Cpu1000; baseline: Cpu1000 };
  extra?: Record<string, unknown>;
  notes?: string[];
}

export function notMeasured(id: string, title: string, baselineTitle: string, target: string, status: 'not measured' | 'failed', reason: string): FigureResult {
  return { id, title, unit: '', baselineTitle, status, reason, legwork: null, baseline: null, ratioOf: '', ratio: null, target, met: null, rounds: [] };
}

export interface Report {
  startedAt: string;
  finishedAt: string;
  mode: 'full' | 'quick';
  machine: { cpus: number; node: string; platform: string };
  settings: Record<string, unknown>;
  figures: FigureResult[];
  failures: string[];
}

function fmt(value: number | null | undefined, digits = 2): string {
  const r = round(value ?? null, digits);
  return r === null ? '–' : r.toLocaleString('en-US', { maximumFractionDigits: digits });
}

/** Three significant digits (CPU seconds per 1,000 operations span 0.005 to 20). */
function sig(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '–' : Number(value.toPrecision(3)).toString();
}

function cpuText(c: Cpu1000 | undefined): string {
  if (!c) return '–';
  return `${sig(c.server)} / ${sig(c.postgres)} / ${sig(c.redis)}`;
}

function markdown(report: Report): string {
  const lines: string[] = [];
  lines.push(`# Legwork bench (${report.mode}) — ${report.finishedAt}`);
  lines.push('');
  lines.push(
    `${report.machine.cpus} CPUs, Node ${report.machine.node}. Medians over ${String(report.settings.rounds)} alternating rounds. See bench/README.md.`,
  );
  lines.push('');
  lines.push('| id | Legwork figure | Legwork | baseline | ratio | target | met |');
  lines.push('|---|---|---|---|---|---|---|');
  for (const f of report.figures) {
    if (f.status !== 'measured') {
      lines.push(`| ${f.id} | ${f.title} | ${f.status}: ${f.reason ?? ''} | ${f.baselineTitle} | – | ${f.target} | – |`);
      continue;
    }
    const met = f.met === null ? '–' : f.met ? '**met**' : '**not met**';
    lines.push(
      `| ${f.id} | ${f.title} | ${fmt(f.legwork)} ${f.unit} | ${f.baselineTitle}: ${fmt(f.baseline)} ${f.unit} | ${fmt(f.ratio, 3)} (${f.ratioOf}) | ${f.target} | ${met} |`,
    );
  }
  lines.push('');
  lines.push('## CPU seconds per 1,000 operations (server process / PostgreSQL / Redis)');
  lines.push('');
  lines.push('| id | Legwork | baseline |');
  lines.push('|---|---|---|');
  for (const f of report.figures) if (f.cpu) lines.push(`| ${f.id} | ${cpuText(f.cpu.legwork)} | ${cpuText(f.cpu.baseline)} |`);
  lines.push('');
  lines.push('## Rounds');
  lines.push('');
  for (const f of report.figures) {
    if (!f.rounds.length) continue;
    lines.push(`- **${f.id}**: ${f.rounds.map((r, i) => `#${i + 1} ${fmt(r.legwork)} vs ${fmt(r.baseline)}`).join('; ')}`);
  }
  const notes = report.figures.filter((f) => f.notes?.length || f.extra);
  if (notes.length) {
    lines.push('');
    lines.push('## Notes');
    lines.push('');
    for (const f of notes) {
      for (const n of f.notes ?? []) lines.push(`- ${f.id}: ${n}`);
      if (f.extra) lines.push(`- ${f.id} details: \`${JSON.stringify(f.extra)}\``);
    }
  }
  if (report.failures.length) {
    lines.push('');
    lines.push('## Failures');
    lines.push('');
    for (const e of report.failures) lines.push(`- ${e}`);
  }
  lines.push('');
  return lines.join('\n');
}

export function writeReport(dir: string, report: Report, name = 'latest'): { json: string; md: string } {
  mkdirSync(dir, { recursive: true });
  const json = join(dir, `${name}.json`);
  const md = join(dir, `${name}.md`);
  writeFileSync(json, JSON.stringify(report, null, 2) + '\n');
  writeFileSync(md, markdown(report));
  return { json, md };
}
