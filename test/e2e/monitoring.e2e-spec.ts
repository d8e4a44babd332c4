import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ViewVersions } from '../../src/common/broadcast/view-versions';
import { Environment, type TestApp } from './harness';
import { PROMETHEUS_SERIES, type Query, dashboardQueries, exportedNames, promqlMetricNames, ruleBlocks, yamlQueries } from './support/metric-names';

/**
 * The alert rules (deploy/prometheus) and the Grafana dashboard (deploy/grafana) query only series
 * that a live /metrics exports: a misspelt or renamed series is an empty panel and an alert that
 * can never fire, and nothing else would say so. promtool (scripts/promtool-test.sh) proves the
 * rules' logic on the series its tests feed; this proves those series are the exchange's.
 */
const ROOT = join(__dirname, '../..');
const PROMETHEUS_DIR = join(ROOT, 'deploy/prometheus');
const DASHBOARD = join(ROOT, 'deploy/grafana/legwork.json');
const METRICS_TOKEN = 'monitoring-metrics-token-0123456789abcdef';

/** design.md section 17: the table-growth and retention-lag alerts and panels are written against these. */
const HISTORY_SERIES = ['legwork_table_rows', 'legwork_retention_lag_seconds'];

function read(path: string): string {
  return readFileSync(path, 'utf8');
}

function prometheusFiles(): string[] {
  return readdirSync(PROMETHEUS_DIR)
    .filter((f) => f.endsWith('.yml') || f.endsWith('.yaml'))
    .sort();
}

function allQueries(): Query[] {
  const rules = prometheusFiles().flatMap((f) => yamlQueries(`deploy/prometheus/${f}`, read(join(PROMETHEUS_DIR, f))));
  const dashboard = dashboardQueries(JSON.parse(read(DASHBOARD)) as Parameters<typeof dashboardQueries>[0]).map((q) => ({
    ...q,
    where: `deploy/grafana/legwork.json ${q.where}`,
  }));
  return [...rules, ...dashboard];
}

/** One line per name a query reads that `exported` lacks: `name  (where)`. */
function missing(queries: Query[], exported: Set<string>): string[] {
  const out: string[] = [];
  for (const q of queries) {
    for (const name of promqlMetricNames(q.expr)) if (!exported.has(name) && !PROMETHEUS_SERIES.has(name)) out.push(`${name}  (${q.where})`);
  }
  return out;
}

describe('reading metric names out of PromQL', () => {
  it('keeps metric names and drops functions, labels, keywords, strings, numbers and Grafana variables', () => {
    const expr = `histogram_quantile(0.99, sum by (le, method) (rate(legwork_rpc_call_duration_seconds_bucket{job=~"$job",method=~"rfq\\\\..*"}[$__rate_interval])))
      / on (instance) group_left sum without (pod) (legwork_ws_connections offset 5m) > bool 1e6
      and max by (job, table) (predict_linear(legwork_table_rows[6h], 7 * 86400)) unless absent(up{job="x"}) or vector(1)`;
    expect(promqlMetricNames(expr).sort()).toEqual(['legwork_rpc_call_duration_seconds_bucket', 'legwork_table_rows', 'legwork_ws_connections', 'up']);
    expect(promqlMetricNames('label_values(legwork_ws_connections{job=~"$job"}, instance)')).toEqual(['legwork_ws_connections']);
  });

  it('finds a name /metrics lacks, with the place that reads it', () => {
    const exported = exportedNames('# TYPE legwork_x histogram\nlegwork_y{a="b"} 1\n');
    expect(exported).toEqual(new Set(['legwork_x', 'legwork_x_bucket', 'legwork_x_sum', 'legwork_x_count', 'legwork_y']));
    expect(missing([{ where: 'here', expr: 'rate(legwork_x_count[5m]) / legwork_y + legwork_z' }], exported)).toEqual(['legwork_z  (here)']);
  });
});

let env: Environment;
let app: TestApp;
let exported: Set<string>;

const scrape = async (): Promise<string> => {
  const response = await fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(response.status).toBe(200);
  return response.text();
};

beforeAll(async () => {
  env = await Environment.create({ METRICS_TOKEN });
  app = await env.start();
  exported = exportedNames(await scrape());
});
afterAll(async () => {
  await app?.close();
  await env?.destroy();
});

describe('the monitoring files (deploy/) against a live /metrics: the series read', () => {
  it('reads every query: each alert and recording rule, each promtool series, each panel has one, and each reads a metric', () => {
    const rulesText = read(join(PROMETHEUS_DIR, 'legwork.rules.yml'));
    const ruleExprs = yamlQueries('rules', rulesText).filter((q) => q.where.includes('(alert ') || q.where.includes('(record '));
    expect(ruleExprs.length).toBe(ruleBlocks(rulesText).size);
    expect(ruleExprs.length).toBeGreaterThanOrEqual(9);
    expect(prometheusFiles().filter((f) => f.includes('test')).length).toBeGreaterThan(0);
    const dashboard = JSON.parse(read(DASHBOARD)) as { panels: Array<{ type: string; title: string; targets?: unknown[] }> };
    const bare = dashboard.panels.filter((p) => p.type !== 'row' && !p.targets?.length).map((p) => p.title);
    expect(bare).toEqual([]);
    const blind = allQueries().filter((q) => promqlMetricNames(q.expr).length === 0);
    expect(blind).toEqual([]);
  });

  it('every series an alert rule, a rule test or a dashboard query reads is on /metrics', () => {
    // Until the retention work exports them (design.md section 17), the lines for HISTORY_SERIES are the ones listed here.
    const lines = missing(allQueries(), exported);
    const absentHistory = HISTORY_SERIES.filter((name) => !exported.has(name));
    const message = [
      'series the monitoring files read that /metrics does not export:',
      ...lines,
      ...(absentHistory.length ? [`(${absentHistory.join(' and ')}: design.md section 17, exported by the retention work)`] : []),
    ].join('\n');
    expect(lines.length === 0 ? '' : message).toBe('');
  });

  it('the history series are queried by the alerts and the dashboard', () => {
    const queried = new Set(allQueries().flatMap((q) => promqlMetricNames(q.expr)));
    for (const name of HISTORY_SERIES) expect(queried).toContain(name);
  });
});

describe('the monitoring files (deploy/) against a live /metrics: alerts and the dashboard', () => {
  it('each alert has a duration, a severity, a summary and a description that says what to do', () => {
    for (const [name, block] of ruleBlocks(read(join(PROMETHEUS_DIR, 'legwork.rules.yml')))) {
      const problems = [
        /\n\s+for: \d+[smh]/.test(block) ? null : 'for',
        /\n\s+severity: (critical|warning|info)\n/.test(block) ? null : 'severity',
        /\n\s+summary: \S/.test(block) ? null : 'summary',
        /\n\s+description: \S/.test(block) ? null : 'description',
      ].filter(Boolean);
      expect(`${name}: ${problems.join(', ')}`).toBe(`${name}: `);
    }
  });

  it('legwork_stale_views is the count of views the instance refuses rfq.* writes for (LegworkStaleViews)', async () => {
    expect(await scrape()).toMatch(/^legwork_stale_views 0$/m);
    const stale = jest.spyOn(app.app.get(ViewVersions), 'stale').mockReturnValue(['market-data.changed']);
    try {
      expect(await scrape()).toMatch(/^legwork_stale_views 1$/m);
    } finally {
      stale.mockRestore();
    }
    expect(await scrape()).toMatch(/^legwork_stale_views 0$/m);
  });

  it('the dashboard takes its Prometheus data source from a variable', () => {
    const dashboard = JSON.parse(read(DASHBOARD)) as {
      templating: { list: Array<{ name: string; type: string; query: unknown }> };
      panels: Array<{ type: string; title: string; datasource?: { uid?: string } }>;
    };
    expect(dashboard.templating.list).toContainEqual(expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'prometheus' }));
    const elsewhere = dashboard.panels.filter((p) => p.type !== 'row' && p.datasource?.uid !== '${datasource}').map((p) => p.title);
    expect(elsewhere).toEqual([]);
  });
});
