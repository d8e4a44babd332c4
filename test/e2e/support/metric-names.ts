/**
 * What the monitoring files read, and what /metrics exports: the pieces of
 * test/e2e/monitoring.e2e-spec.ts, which proves that every series an alert rule or a dashboard
 * panel queries is one the exchange really exports (a misspelt name is a panel that stays empty
 * and an alert that never fires, silently).
 */

/** Series that Prometheus itself writes (not the target): `up` per scrape, `ALERTS` per alert. */
export const PROMETHEUS_SERIES = new Set(['up', 'ALERTS']);

/** Every series name of a Prometheus text exposition: sampled ones, and each `# TYPE` with the series its type adds. */
export function exportedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (\w+)$/.exec(line);
    if (type) {
      const [, name, kind] = type;
      names.add(name);
      // A histogram or summary with no sample yet still answers these once it has one.
      if (kind === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
      if (kind === 'summary') for (const suffix of ['_sum', '_count']) names.add(name + suffix);
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line);
    if (sample) names.add(sample[1]);
  }
  return names;
}

const KEYWORDS = new Set(['and', 'or', 'unless', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'offset', 'bool', 'inf', 'nan']);

/**
 * The metric names a PromQL expression reads: what is left once strings, Grafana variables,
 * ranges, label matchers, grouping label lists and numbers are taken out, minus function and
 * aggregation names (an identifier before `(`) and keywords. A Grafana `label_values(selector,
 * label)` reads its selector.
 */
export function promqlMetricNames(expr: string): string[] {
  const text = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' "" ')
    .replace(/\blabel_values\(([^,]*),\s*[A-Za-z_]\w*\s*\)/g, '($1)')
    .replace(/\$\{[^}]*\}|\$\w+/g, ' 0 ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/gi, ' ')
    .replace(/(?<![\w:.])(?:\d*\.?\d+(?:[eE][+-]?\d+)?)(?:(?:ms|[smhdwy])(?:\d+(?:ms|[smhdwy]))*)?(?![\w:])/g, ' ');
  const names = new Set<string>();
  for (const match of text.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const name = match[0];
    if (KEYWORDS.has(name.toLowerCase())) continue;
    if (/^\s*\(/.test(text.slice(match.index + name.length))) continue; // a function or an aggregation
    names.add(name);
  }
  return [...names];
}

/** One query of a monitoring file: where it is (for the failure message) and its PromQL. */
export interface Query {
  where: string;
  expr: string;
}

interface Panel {
  title?: string;
  targets?: Array<{ expr?: string }>;
  panels?: Panel[];
}

interface Dashboard {
  panels?: Panel[];
  templating?: { list?: Array<{ name: string; type: string; query?: string | { query?: string } }> };
  annotations?: { list?: Array<{ name: string; expr?: string }> };
}

/** Every PromQL query of a Grafana dashboard: panel targets (rows' panels included), query variables, annotations. */
export function dashboardQueries(dashboard: Dashboard): Query[] {
  const out: Query[] = [];
  const walk = (panels: Panel[] = []) => {
    for (const panel of panels) {
      for (const target of panel.targets ?? []) if (target.expr) out.push({ where: `panel "${panel.title}"`, expr: target.expr });
      walk(panel.panels);
    }
  };
  walk(dashboard.panels);
  for (const variable of dashboard.templating?.list ?? []) {
    if (variable.type !== 'query') continue;
    const query = typeof variable.query === 'string' ? variable.query : variable.query?.query;
    if (query) out.push({ where: `variable $${variable.name}`, expr: query });
  }
  for (const annotation of dashboard.annotations?.list ?? []) {
    if (annotation.expr) out.push({ where: `annotation "${annotation.name}"`, expr: annotation.expr });
  }
  return out;
}

/** A YAML scalar after its key: plain, quoted, or a block (`|`, `>`, with chomping) of the lines indented deeper than the key. */
function scalarAt(lines: string[], index: number, keyIndent: number, value: string): string {
  if (/^[|>][+-]?$/.test(value)) {
    const block: string[] = [];
    for (let i = index + 1; i < lines.length; i++) {
      const line = lines[i];
      if (line.trim() !== '' && line.length - line.trimStart().length <= keyIndent) break;
      block.push(line.trim());
    }
    return block.join('\n').trim();
  }
  if (/^'.*'$/.test(value)) return value.slice(1, -1).replace(/''/g, "'");
  if (/^".*"$/.test(value)) return JSON.parse(value) as string;
  return value;
}

/**
 * The expressions of a Prometheus rules file (`expr:` of each `alert:` or `record:`), and of a
 * promtool test file (`expr:` of `promql_expr_test`, and each `series:` of `input_series`, whose
 * name must be exported too). Enough YAML for these files: one key per line, scalars plain,
 * quoted or block.
 */
export function yamlQueries(file: string, text: string): Query[] {
  const lines = text.split('\n');
  const out: Query[] = [];
  let rule = '';
  lines.forEach((line, index) => {
    const match = /^(\s*)(?:- )?(alert|record|expr|series):\s*(.*?)\s*$/.exec(line);
    if (!match) return;
    const [, indent, key, raw] = match;
    const value = scalarAt(lines, index, indent.length, raw);
    if (key === 'alert' || key === 'record') rule = `${key} ${value}`;
    else out.push({ where: `${file}:${index + 1}${rule && key === 'expr' ? ` (${rule})` : ''}`, expr: value });
  });
  return out;
}

/** The rules of a rules file by name (`alert: X` or `record: X`), each with its lines up to the next rule. */
export function ruleBlocks(text: string): Map<string, string> {
  const blocks = new Map<string, string>();
  let name: string | null = null;
  let lines: string[] = [];
  const flush = () => name && blocks.set(name, lines.join('\n'));
  for (const line of text.split('\n')) {
    const start = /^\s*- (?:alert|record):\s*(\S+)/.exec(line);
    if (start || /^\s*- name:/.test(line)) {
      flush();
      name = start ? start[1] : null;
      lines = [];
    }
    lines.push(line);
  }
  flush();
  return blocks;
}
