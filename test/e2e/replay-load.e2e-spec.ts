import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Database } from '../../src/common/database/database';
import { RpcClient, freshIp } from './clients';
import { Environment, type TestApp } from './harness';
import { type RfqTrader, type Round, clientRef, expectRfqError, expirationIn, leg, listRound, resumeWs, rfqTrader, sessionToken, sleep } from './rfq-support';
import { repetitions } from './support/long';

/**
 * docs/spec/design.md section 20, "Replay never stalls an instance", as the attack of issue 36
 * found it: 28 connections of one account, and 28 accounts one connection each, all send
 * `rfq.subscribe { since: 0 }` at once over a long event log while a probe client measures
 * `public/get_market_config`. The replaying clients run in a process of their own
 * (support/replayer.js): this process is the server. On PostgreSQL with Redis the connections are
 * spread over two instances, and the limit of two replays per account holds across them.
 *
 * `npm test` replays 1,000 events of the one account 28 times and 500 events of each of 28
 * accounts; LEGWORK_LONG=1 (`npm run test:long`) 10,000 and 5,000, a week of the attack's pace.
 */
const ONE_ACCOUNT_EVENTS = repetitions(1000, 10_000);
const EACH_ACCOUNT_EVENTS = repetitions(500, 5000);
const CONNECTIONS = 28;
const LONG = process.env.LEGWORK_LONG === '1';

let env: Environment;
const apps: TestApp[] = [];
let round: Round;
let maker: RfqTrader;

beforeAll(async () => {
  env = await Environment.create({ RFQ_RATE_PER_SECOND: '100000', RFQ_RATE_BURST: '100000', MAX_OPEN_RFQS: '100000' });
  apps.push(await env.start());
  // Two instances share the replay slots only through Redis; the embedded default is one instance.
  if (process.env.DATABASE_URL && process.env.REDIS_URL) apps.push(await env.start());
  round = await listRound(apps[0], 'SOL', expirationIn(10));
  maker = await rfqTrader(apps[0], ['quoter']);
}, 120_000);
afterAll(async () => {
  await maker?.client.close();
  for (const app of apps) await app.close();
  await env?.destroy();
}, 60_000);

/** A taker with `n` stored events: one real `declined`, copied to account_seq 2..n (a long history, quickly). */
async function takerWithEvents(n: number): Promise<RfqTrader> {
  const app = apps[0];
  const taker = await rfqTrader(app, ['taker']);
  const rfq = await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(round.symbol('150'), '1')] });
  await maker.client.result('rfq.maker.decline', { rfq_id: rfq.rfq_id, reason: 'size_limit' });
  const sql = app.app.get(Database);
  for (let i = 0; i < 100 && (await sql.rows('SELECT 1 FROM account_events WHERE account_id = $1', [taker.accountId])).length === 0; i++) await sleep(50);
  await sql.exec(
    `INSERT INTO account_events (account_id, account_seq, channel, event, rfq, at)
     SELECT e.account_id, g, e.channel, e.event, e.rfq, e.at FROM account_events e, generate_series(2, $2::int) g
      WHERE e.account_id = $1 AND e.account_seq = 1`,
    [taker.accountId, n],
  );
  await sql.exec('UPDATE account_event_seqs SET last_seq = $2 WHERE account_id = $1', [taker.accountId, n]);
  return taker;
}

function p99(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
}

/** Sequential `public/get_market_config` calls until `stop()` (at least `min`): their durations in ms. */
async function probe(client: RpcClient, stop: () => boolean, min: number): Promise<number[]> {
  const samples: number[] = [];
  while (samples.length < min || !stop()) {
    const started = performance.now();
    await client.result('public/get_market_config', {});
    samples.push(performance.now() - started);
  }
  return samples;
}

interface ReplayResult {
  refused: number;
  retryAfterMs: number[];
  replayed: number;
  inOrder: boolean;
  latest: number | null;
  error: string | null;
}

/** Runs support/replayer.js over `jobs`; resolves with its results and sets `done` when it exits. */
function replayers(jobs: object[], done: { value: boolean }): Promise<ReplayResult[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(__dirname, 'support', 'replayer.js'), JSON.stringify(jobs)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('exit', () => {
      done.value = true;
      try {
        const parsed = JSON.parse(out);
        if (parsed.fatal) reject(new Error(parsed.fatal));
        else resolve(parsed.results);
      } catch (error) {
        reject(new Error(`replayer output: ${out.slice(0, 200)} (${String(error)})`));
      }
    });
  });
}

describe('replay never stalls an instance (design.md section 20)', () => {
  it('the attack: 28 connections of one account and 28 accounts replay at once; the probe p99 stays within 2x, the third replay of an account is refused, every replay completes in order', async () => {
    const heavy = await takerWithEvents(ONE_ACCOUNT_EVENTS);
    const many = await Promise.all(Array.from({ length: CONNECTIONS }, () => takerWithEvents(EACH_ACCOUNT_EVENTS)));
    const job = (t: RfqTrader, latest: number, i: number) => ({
      url: apps[i % apps.length].wsUrl,
      ip: freshIp(),
      token: sessionToken(t.wallet.address, t.accountId, ['taker']),
      since: 0,
      latest,
    });
    const jobs = [...Array.from({ length: CONNECTIONS }, (_, i) => job(heavy, ONE_ACCOUNT_EVENTS, i)), ...many.map((t, i) => job(t, EACH_ACCOUNT_EVENTS, i))];
    const client = await RpcClient.connect(apps[0].wsUrl, { 'x-forwarded-for': freshIp() });
    try {
      await probe(client, () => true, 100); // warm-up
      const rest = p99(await probe(client, () => true, 400));
      const done = { value: false };
      const running = replayers(jobs, done);
      const [results, load] = await Promise.all([running, probe(client, () => done.value, 100)]);
      const ofHeavy = results.slice(0, CONNECTIONS);
      // Every replay, admitted at once or after waiting retry_after_ms, complete and in order.
      for (const r of results) expect(r).toMatchObject({ error: null, inOrder: true });
      for (const r of ofHeavy) expect(r.replayed).toBe(ONE_ACCOUNT_EVENTS);
      // 28 at once from one account: all but two were refused at first, each refusal with when to retry.
      expect(ofHeavy.filter((r) => r.refused > 0).length).toBeGreaterThanOrEqual(CONNECTIONS - 2);
      for (const wait of ofHeavy.flatMap((r) => r.retryAfterMs)) expect(wait).toBeGreaterThanOrEqual(1);
      const loaded = p99(load);
      // The rule is 2x. A 1-2 ms p99 at rest on a shared CI machine is timer noise at that size: npm test
      // allows 5 ms above it too; the long variant (its own jest process, an idle machine) holds 2x, with
      // 1 ms above a sub-millisecond rest allowed (measured: 0.26 ms at rest, 0.51 ms under replay).
      const bound = LONG ? Math.max(2 * rest, rest + 1) : Math.max(2 * rest, rest + 5);
      process.stdout.write(`replay load: probe p99 at rest ${rest.toFixed(2)} ms, under replay ${loaded.toFixed(2)} ms (${load.length} samples)\n`);
      expect(loaded).toBeLessThanOrEqual(bound);
    } finally {
      await client.close();
    }
  }, 300_000);

  it('a third concurrent replay of one account is RFQ_RATE_LIMITED with retry_after_ms; once one ends it is admitted', async () => {
    // 15,000 events at 5,000 a second: the first two replays run for seconds.
    const taker = await takerWithEvents(15_000);
    const connect = (i: number) => resumeWs(apps[i % apps.length], taker.wallet, taker.accountId, ['taker']);
    const [a, b, c] = await Promise.all([connect(0), connect(1), connect(2)]);
    try {
      const first = a.call('rfq.subscribe', { since: 0 });
      const second = b.call('rfq.subscribe', { since: 0 });
      await sleep(300);
      const third = await c.call('rfq.subscribe', { since: 0 });
      expectRfqError(third, 'RFQ_RATE_LIMITED', true);
      expect(third.error.data.retry_after_ms).toBeGreaterThanOrEqual(1);
      expect(third.error.data.message).toMatch(/at most 2 replays/);
      // A subscribe with nothing to replay is not a replay: it is answered at once.
      expect((await c.call('rfq.subscribe', { since: 15_000 })).result).toMatchObject({ subscribed: true, account_seq: 15_000 });
      expect((await first).result).toMatchObject({ account_seq: 15_000 });
      expect((await second).result).toMatchObject({ account_seq: 15_000 });
      // The budget paused them (5,000 events a second for the account, both together), it did not fail them.
      expect(a.notifications.filter((n) => n.channel === 'rfq')).toHaveLength(15_000);
      expect(b.notifications.filter((n) => n.channel === 'rfq')).toHaveLength(15_000);
      const d = await connect(3);
      expect((await d.call('rfq.subscribe', { since: 14_000 })).result).toMatchObject({ account_seq: 15_000 });
      await d.close();
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  }, 120_000);
});
