import { Database } from '../../src/common/database/database';
import { MetricsService } from '../../src/modules/health/metrics.service';
import { Http, RpcClient, freshIp } from './clients';
import { createAccount, signInWs } from './factories';
import { Environment, METRICS_AUTH, type TestApp } from './harness';
import { expirationIn, leg, listRound } from './rfq-support';
import { acceptAndFill, marketData, pair, quoted } from './support/ledger';

/** The samples of a Prometheus text exposition, by `name{label="value",…}` as printed (labels in print order). */
class Scrape {
  readonly samples = new Map<string, number>();

  constructor(readonly text: string) {
    for (const line of text.split('\n')) {
      if (!line || line.startsWith('#')) continue;
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{.*\})?) (\S+)$/.exec(line);
      if (!match) throw new Error(`not a sample line: ${line}`);
      this.samples.set(match[1], Number(match[2]));
    }
  }

  /** The value of the sample with exactly these labels (any print order); undefined when absent. */
  value(name: string, labels: Record<string, string> = {}): number | undefined {
    const wanted = Object.entries(labels)
      .map(([k, v]) => `${k}="${v}"`)
      .sort();
    for (const [key, value] of this.samples) {
      const brace = key.indexOf('{');
      const sampleName = brace < 0 ? key : key.slice(0, brace);
      if (sampleName !== name) continue;
      const sampleLabels =
        brace < 0
          ? []
          : key
              .slice(brace + 1, -1)
              .match(/[a-zA-Z_]+="(?:[^"\\]|\\.)*"/g)!
              .sort();
      if (JSON.stringify(sampleLabels) === JSON.stringify(wanted)) return value;
    }
    return undefined;
  }
}

describe('GET /metrics (Prometheus)', () => {
  let env: Environment;
  let app: TestApp;
  let http: Http;

  const scrape = async (): Promise<Scrape> => {
    const response = await fetch(`${app.url}/metrics`, { headers: METRICS_AUTH });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return new Scrape(await response.text());
  };

  beforeAll(async () => {
    env = await Environment.create();
    app = await env.start();
    http = new Http(app.url);
  });
  afterAll(async () => {
    await app?.close();
    await env?.destroy();
  });

  it('is public and answers the process metrics', async () => {
    const s = await scrape();
    expect(s.value('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(s.value('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });

  it('counts HTTP requests by route pattern and status, with durations', async () => {
    expect((await http.get('/health')).status).toBe(200);
    expect((await http.get('/health/ready')).status).toBe(200);
    expect((await http.admin().get('/v1/admin/accounts/424242')).status).toBe(404);
    expect((await http.admin().get('/v1/admin/accounts/424243')).status).toBe(404);
    expect((await http.get('/no/such/route')).status).toBe(404);
    const s = await scrape();
    expect(s.value('legwork_http_requests_total', { method: 'GET', route: '/health', status: '200' })).toBe(1);
    expect(s.value('legwork_http_requests_total', { method: 'GET', route: '/health/ready', status: '200' })).toBe(1);
    // The route pattern, never the raw URL: one series for both account ids.
    expect(s.value('legwork_http_requests_total', { method: 'GET', route: '/v1/admin/accounts/:account_id', status: '404' })).toBe(2);
    expect(s.text).not.toContain('424242');
    expect(s.value('legwork_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(s.value('legwork_http_request_duration_seconds_count', { method: 'GET', route: '/v1/admin/accounts/:account_id' })).toBe(2);
    const sum = s.value('legwork_http_request_duration_seconds_sum', { method: 'GET', route: '/health' })!;
    expect(sum).toBeGreaterThan(0);
    expect(sum).toBeLessThan(5);
    expect(s.value('legwork_http_request_duration_seconds_bucket', { method: 'GET', route: '/health', le: '+Inf' })).toBe(1);
  });

  it('answers /health/ready as /health', async () => {
    const [health, ready] = await Promise.all([http.get('/health'), http.get('/health/ready')]);
    expect(ready).toEqual(health);
    expect(ready.body.status).toBe('ok');
  });

  it('counts JSON-RPC calls by method and outcome, with durations, and the open connections', async () => {
    const { wallet } = await createAccount(app, ['taker']);
    const { client: signedIn } = await signInWs(app, wallet); // public/get_nonce ok, public/auth ok
    const client = await RpcClient.connect(app.wsUrl, { 'x-forwarded-for': freshIp() });
    expect((await scrape()).value('legwork_ws_connections')).toBe(2);

    for (let i = 0; i < 3; i++) expect((await client.call('public/get_market_config', {})).result).toBeDefined();
    expect((await client.call('public/get_nonce', { wallet: 5 })).error.code).toBe(-32602);
    expect((await client.call('private/get_positions', {})).error.code).toBe(-32601);
    expect((await client.sendRaw('{"jsonrpc":')).error.code).toBe(-32700);
    // rfq.* before sign-in: 1200 RFQ_WRONG_ROLE (or -32601 while no RFQ module registers it).
    const rfq = await client.call('rfq.maker.subscribe', {});

    const s = await scrape();
    const calls = (method: string, outcome: string) => s.value('legwork_rpc_calls_total', { method, outcome });
    expect(calls('public/get_market_config', 'ok')).toBe(3);
    expect(calls('public/get_nonce', 'ok')).toBe(1);
    expect(calls('public/auth', 'ok')).toBe(1);
    expect(calls('public/get_nonce', 'INVALID_PARAMS')).toBe(1);
    expect(calls('unknown', 'METHOD_NOT_FOUND')).toBeGreaterThanOrEqual(1);
    expect(calls('invalid', 'PARSE_ERROR')).toBe(1);
    if (rfq.error?.code === 1200) expect(calls('rfq.maker.subscribe', 'RFQ_WRONG_ROLE')).toBe(1);
    expect(s.text).not.toContain('private/get_positions'); // client text never becomes a label
    expect(s.value('legwork_rpc_call_duration_seconds_count', { method: 'public/get_market_config' })).toBe(3);
    const sum = s.value('legwork_rpc_call_duration_seconds_sum', { method: 'public/get_market_config' })!;
    expect(sum).toBeGreaterThan(0);
    expect(sum).toBeLessThan(3);
    expect(s.value('legwork_rpc_call_duration_seconds_count', { method: 'invalid' })).toBeUndefined();

    await client.close();
    await signedIn.close();
    let open: number | undefined;
    for (let i = 0; i < 50 && open !== 0; i++) {
      open = (await scrape()).value('legwork_ws_connections');
      if (open !== 0) await new Promise((r) => setTimeout(r, 20));
    }
    expect(open).toBe(0);
  });

  it('reads the queue depths at scrape time', async () => {
    const s = await scrape();
    for (const queue of ['rfq-expiry', 'rfq-fill', 'settlement']) {
      const depth = s.value('legwork_queue_depth', { queue });
      expect(depth).toBeGreaterThanOrEqual(0);
      expect(Number.isInteger(depth)).toBe(true);
    }
  });

  it('exposes RFQ transitions, quote and fill latency and ledger failures through MetricsService', async () => {
    const metrics = app.app.get(MetricsService);
    const before = await scrape();
    const transitions = (s: Scrape, from: string, to: string) => s.value('legwork_rfq_transitions_total', { from, to }) ?? 0;
    const histogram = (s: Scrape, name: string) => ({ count: s.value(`${name}_count`)!, sum: s.value(`${name}_sum`)! });

    metrics.rfqMoved(null, 'pending');
    metrics.rfqMoved('pending', 'quoted', 2.5);
    metrics.rfqMoved('quoted', 'accepted');
    metrics.rfqMoved('accepted', 'submitting');
    metrics.rfqMoved('submitting', 'filled', 0.75);
    metrics.rfqMoved('bogus', 'nonsense'); // bounded labels
    metrics.ledgerFailure('RFQ_TX_FAILED');
    metrics.ledgerFailure('RFQ_TX_FAILED');
    metrics.ledgerFailure('RFQ_ATTESTATION_FAILED');

    const after = await scrape();
    expect(transitions(after, 'none', 'pending') - transitions(before, 'none', 'pending')).toBe(1);
    expect(transitions(after, 'pending', 'quoted') - transitions(before, 'pending', 'quoted')).toBe(1);
    expect(transitions(after, 'submitting', 'filled') - transitions(before, 'submitting', 'filled')).toBe(1);
    expect(transitions(after, 'other', 'other')).toBe(1);
    const quote = [histogram(before, 'legwork_rfq_quote_latency_seconds'), histogram(after, 'legwork_rfq_quote_latency_seconds')];
    expect(quote[1].count - quote[0].count).toBe(1);
    expect(quote[1].sum - quote[0].sum).toBeCloseTo(2.5);
    expect(
      after.value('legwork_rfq_quote_latency_seconds_bucket', { le: '5' })! - (before.value('legwork_rfq_quote_latency_seconds_bucket', { le: '5' }) ?? 0),
    ).toBe(1);
    expect(
      after.value('legwork_rfq_quote_latency_seconds_bucket', { le: '2' })! - (before.value('legwork_rfq_quote_latency_seconds_bucket', { le: '2' }) ?? 0),
    ).toBe(0);
    const fill = [histogram(before, 'legwork_rfq_fill_latency_seconds'), histogram(after, 'legwork_rfq_fill_latency_seconds')];
    expect(fill[1].count - fill[0].count).toBe(1);
    expect(fill[1].sum - fill[0].sum).toBeCloseTo(0.75);
    expect(
      (after.value('legwork_ledger_failures_total', { code: 'RFQ_TX_FAILED' }) ?? 0) -
        (before.value('legwork_ledger_failures_total', { code: 'RFQ_TX_FAILED' }) ?? 0),
    ).toBe(2);
    expect(after.value('legwork_ledger_failures_total', { code: 'RFQ_ATTESTATION_FAILED' })).toBeGreaterThanOrEqual(1);
  });

  it("observes the journal head's wait and hold once per committed fill (legwork_journal_head_*_seconds)", async () => {
    const round = await listRound(app, 'HOLD', expirationIn(10));
    await marketData(app, 'HOLD', '150');
    const { taker, maker } = await pair(app, '1000', '10000');
    const seq = async () => Number((await app.app.get(Database).one<{ n: string }>('SELECT journal_seq AS n FROM journal_head WHERE id = 1'))!.n);
    const count = (s: Scrape, name: string) => s.value(`${name}_count`) ?? 0;
    const before = await scrape();
    const seq0 = await seq();
    try {
      for (let i = 0; i < 2; i++) {
        const q = await quoted(taker, maker, round.expiry, [leg(round.symbol('150'), '1')]);
        expect((await acceptAndFill(taker, q, 'buy')).state).toBe('filled');
      }
    } finally {
      await taker.client.close();
      await maker.client.close();
    }
    // One observation of each per receipt appended: the two fills' (the head moved by two). A batch's
    // hold is observed once its commit's end is read, just after its receipts are handed out.
    let after = await scrape();
    for (let i = 0; i < 50 && count(after, 'legwork_journal_head_hold_seconds') - count(before, 'legwork_journal_head_hold_seconds') < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      after = await scrape();
    }
    expect((await seq()) - seq0).toBe(2);
    for (const name of ['legwork_journal_head_wait_seconds', 'legwork_journal_head_hold_seconds']) {
      expect(`${name} ${count(after, name) - count(before, name)}`).toBe(`${name} 2`);
      const sum = after.value(`${name}_sum`)! - (before.value(`${name}_sum`) ?? 0);
      expect(sum).toBeGreaterThan(0);
      expect(sum).toBeLessThan(10);
      expect(after.value(`${name}_bucket`, { le: '+Inf' })).toBe(count(after, name));
    }
  });

  it('runs an after-commit callback once its transaction commits, never after a rollback, and at once outside a transaction', async () => {
    const db = app.app.get(Database);
    const calls: string[] = [];
    await db.tx(async (sql) => {
      await sql.rows('SELECT 1');
      sql.afterCommit(() => void calls.push('committed'));
      expect(calls).toEqual([]);
    });
    expect(calls).toEqual(['committed']);
    await expect(
      db.tx(async (sql) => {
        sql.afterCommit(() => void calls.push('rolled back'));
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    db.afterCommit(() => calls.push('pool'));
    expect(calls).toEqual(['committed', 'pool']);
  });
});
