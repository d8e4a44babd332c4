import { Client } from 'pg';
import { RunnerSql } from '../../src/common/database/sql';
import { GROWING_TABLES } from '../../src/modules/rfq/rfq-history.repository';
import { Http } from './clients';
import { Environment, METRICS_AUTH, type TestApp } from './harness';
import { acceptAndFill, marketData, pair, quoted } from './support/ledger';
import { type RfqTrader, expirationIn, leg, listRound, sessionToken } from './rfq-support';

/** The tables whose size grows with history: the sweep's list, competitive quotes and panels (kept with their RFQ), and the instruments' (a round a day, for ever). */
const GROWING: ReadonlySet<string> = new Set([...GROWING_TABLES, 'competition_quotes', 'competition_panels', 'instruments', 'expirations', 'instrument_ivs']);

/** Partial indexes (read from the catalog): their predicate bounds a scan that has no index condition. */
const partial = new Set<string>();

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Recheck Cond'?: string;
  Plans?: PlanNode[];
}

/** An index scan of a growing table bounded by an index condition, or by a partial index's predicate. */
const bounded = (node: PlanNode): boolean => Boolean(node['Index Cond'] || node['Recheck Cond'] || (node['Index Name'] && partial.has(node['Index Name'])));

/**
 * What is wrong with a plan (docs/spec/design.md section 17: "no request sorts, counts or scans a
 * table whose size grows with history"), planned with sequential scans and sorts priced out, so
 * that a Seq Scan or a Sort left in the plan is one no index can avoid: a Seq Scan of a growing
 * table, an index scan of one without an index condition (a walk of the whole index) unless a
 * Limit bounds it, or a Sort above a growing table's rows read other than through an index
 * condition (a sort of one account's open rows, or of a page, is bounded; of a table is not).
 */
function faults(node: PlanNode, limited = false): string[] {
  const found: string[] = [];
  const type = node['Node Type'];
  const table = node['Relation Name'];
  const growing = table !== undefined && GROWING.has(table);
  if (growing && type === 'Seq Scan') found.push(`Seq Scan on ${table}`);
  if (growing && /Index/.test(type) && !bounded(node) && !limited) found.push(`${type} on ${table} without an index condition`);
  if ((type === 'Sort' || type === 'Incremental Sort') && readsGrowing(node)) found.push(`${type} over ${tablesOf(node).join(', ')}`);
  const underLimit = type === 'Limit' || (limited && type !== 'Sort' && type !== 'Aggregate' && type !== 'Hash');
  for (const child of node.Plans ?? []) found.push(...faults(child, underLimit));
  return found;
}

function tablesOf(node: PlanNode): string[] {
  return [...new Set([...(node['Relation Name'] ? [node['Relation Name']] : []), ...(node.Plans ?? []).flatMap(tablesOf)])];
}

/** Whether a growing table's rows reach the node other than through an index condition (a bounded lookup). */
function readsGrowing(node: PlanNode): boolean {
  const table = node['Relation Name'];
  if (table !== undefined && GROWING.has(table) && !bounded(node)) return true;
  return (node.Plans ?? []).some(readsGrowing);
}

interface Captured {
  text: string;
  params: unknown[];
}

/**
 * docs/spec/design.md section 17, "Reads stay keyset-paginated on an index": every statement that
 * the hot reads run (HTTP /query/*, JSON-RPC reads, admin and console reads, the public listings)
 * is captured from the repositories as they run it, then planned on PostgreSQL. PostgreSQL only:
 * the embedded database's planner is the same, but the statements are checked once.
 */
const onPostgres = process.env.DATABASE_URL ? describe : describe.skip;

onPostgres('hot reads plan on indexes: no Seq Scan, no Sort on a growing table (design.md section 17)', () => {
  let env: Environment;
  let app: TestApp;
  let taker: RfqTrader;
  let maker: RfqTrader;
  let planner: Client;
  let rfqId: string;
  let fillId: string;
  let quoteId: string;
  const captured: Captured[] = [];

  beforeAll(async () => {
    env = await Environment.create();
    app = await env.start();
    ({ taker, maker } = await pair(app));
    const expiry = expirationIn(3);
    const sol = await listRound(app, 'SOL', expiry, ['140', '150', '160']);
    await marketData(app, 'SOL', '150');
    const q = await quoted(taker, maker, expiry, [leg(sol.symbol('150'), '1')]);
    const filled = await acceptAndFill(taker, q, 'buy');
    expect(filled.state).toBe('filled');
    rfqId = q.rfqId;
    // A listed maker: rfq.makers reads its stats.
    await maker.client.result('rfq.maker.set_profile', { listed: true, name: 'Plans' });
    quoteId = q.quoteId;
    fillId = (await new Http(app.url).admin().get(`/query/rfq-fills?account_id=${taker.accountId}`)).body.rows[0].fill_id;
    planner = new Client({ connectionString: env.env.DATABASE_URL });
    await planner.connect();
    await planner.query('ANALYZE');
    const { rows } = await planner.query(`SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indpred IS NOT NULL`);
    for (const r of rows) partial.add(r.name);
    await planner.query('SET enable_seqscan = off');
    await planner.query('SET enable_sort = off');
    await planner.query('SET enable_incremental_sort = off');
    const structured = (RunnerSql.prototype as unknown as { structured: (text: string, params: unknown[]) => Promise<unknown> }).structured;
    jest.spyOn(RunnerSql.prototype as never, 'structured' as never).mockImplementation(function (this: RunnerSql, text: string, params: unknown[]) {
      captured.push({ text, params: [...params] });
      return structured.call(this, text, params);
    } as never);
  }, 180_000);

  afterAll(async () => {
    jest.restoreAllMocks();
    await planner?.end();
    await taker?.client.close();
    await maker?.client.close();
    await app?.close();
    await env?.destroy();
  }, 60_000);

  /** The statements a request runs, as the repositories ran them. */
  async function statementsOf(request: () => Promise<unknown>): Promise<Captured[]> {
    captured.length = 0;
    await request();
    // Reads only: a background job's write (the RFQ expiry's, say) may run meanwhile; it is not the request's.
    return captured.filter(
      (s) => /^\s*(SELECT|WITH)\b/i.test(s.text) && !/\b(INSERT|UPDATE|DELETE)\b|pg_advisory|legwork_refuse|FOR (UPDATE|SHARE)/i.test(s.text),
    );
  }

  async function planFaults(s: Captured): Promise<string[]> {
    const { rows } = await planner.query(`EXPLAIN (FORMAT JSON) ${s.text}`, s.params);
    return faults((rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0].Plan);
  }

  const admin = () => new Http(app.url).admin();
  const as = (t: RfqTrader) => new Http(app.url).as(sessionToken(t.wallet.address, t.accountId, ['taker']));
  const ok = async (res: Promise<{ status: number; body: any }>) => {
    const r = await res;
    if (r.status !== 200) throw new Error(`${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };

  /** The hot reads: every request path that reads history, with the parameters clients send. */
  const READS: Array<[string, () => Promise<unknown>]> = [
    ['GET /query/balances', () => ok(as(taker).get('/query/balances'))],
    ['GET /query/rfq-positions', () => ok(as(taker).get('/query/rfq-positions'))],
    ['GET /query/rfq-positions?status=settled', () => ok(as(taker).get('/query/rfq-positions?status=settled'))],
    ['GET /query/rfq-positions?status=all', () => ok(as(taker).get('/query/rfq-positions?status=all'))],
    ['GET /query/rfq-fills', () => ok(as(taker).get('/query/rfq-fills'))],
    ['GET /query/rfq-fills?after', () => ok(as(taker).get(`/query/rfq-fills?after=${BigInt(fillId) + 1n}`))],
    ['GET /v1/instruments?include_settled=true', () => ok(new Http(app.url).get('/v1/instruments?include_settled=true'))],
    ['GET /v1/instruments?asset&include_settled=true', () => ok(new Http(app.url).get('/v1/instruments?asset=SOL&include_settled=true'))],
    ['GET /v1/exchange/journal', () => ok(new Http(app.url).get('/v1/exchange/journal?after=0&limit=100'))],
    ['GET /v1/exchange/keys', () => ok(new Http(app.url).get('/v1/exchange/keys'))],
    ['rfq.get', () => taker.client.result('rfq.get', { rfq_id: rfqId })],
    ['rfq.list', () => taker.client.result('rfq.list', {})],
    ['rfq.maker.poll', () => maker.client.result('rfq.maker.poll', {})],
    ['rfq.maker.get_limits', () => maker.client.result('rfq.maker.get_limits', {})],
    ['rfq.maker.quotes', () => maker.client.result('rfq.maker.quotes', {})],
    ['rfq.maker.quotes state all', () => maker.client.result('rfq.maker.quotes', { state: 'all' })],
    ['rfq.makers', () => taker.client.result('rfq.makers', {})],
    ['rfq.maker.stats', () => maker.client.result('rfq.maker.stats', {})],
    ['rfq.maker.quotes after', () => maker.client.result('rfq.maker.quotes', { state: 'all', after: quoteId })],
    ['rfq.subscribe since 0', () => taker.client.result('rfq.subscribe', { since: 0 })],
    ['public/get_instruments include_settled', () => taker.client.result('public/get_instruments', { include_settled: true })],
    ['GET /v1/admin/audit', () => ok(admin().get('/v1/admin/audit'))],
    ['GET /v1/admin/audit?after', () => ok(admin().get('/v1/admin/audit?after=1'))],
    ['GET /v1/admin/accounts/:id', () => ok(admin().get(`/v1/admin/accounts/${taker.accountId}`))],
    ['GET /v1/admin/accounts/:id/maker-limits', () => ok(admin().get(`/v1/admin/accounts/${maker.accountId}/maker-limits`))],
    ['GET /v1/admin/risk', () => ok(admin().get('/v1/admin/risk'))],
    ['GET /v1/admin/overview', () => ok(admin().get('/v1/admin/overview'))],
    ['GET /v1/admin/rfqs', () => ok(admin().get('/v1/admin/rfqs'))],
    ['GET /v1/admin/rfqs?state', () => ok(admin().get('/v1/admin/rfqs?state=filled'))],
    ['GET /v1/admin/rfqs?account_id', () => ok(admin().get(`/v1/admin/rfqs?account_id=${taker.accountId}`))],
    ['GET /v1/admin/rfqs/:id/events', () => ok(admin().get(`/v1/admin/rfqs/${rfqId}/events`))],
    ['GET /v1/admin/market-data', () => ok(admin().get('/v1/admin/market-data'))],
    ['GET /metrics', () => fetch(`${app.url}/metrics`, { headers: METRICS_AUTH }).then((r) => r.text())],
    ['GET /v1/admin/accounts?wallet', () => ok(admin().get(`/v1/admin/accounts?wallet=${taker.wallet.address}`))],
  ];

  it.each(READS)('%s', async (_name, request) => {
    const statements = await statementsOf(request);
    expect(statements.length).toBeGreaterThan(0);
    const found: string[] = [];
    for (const s of statements) for (const f of await planFaults(s)) found.push(`${f}: ${s.text.replace(/\s+/g, ' ').slice(0, 300)}`);
    expect(found).toEqual([]);
  });
});
