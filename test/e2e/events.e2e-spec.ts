import { Database } from '../../src/common/database/database';
import { EventRetentionService } from '../../src/modules/rfq/event-retention.service';
import type { RpcClient } from './clients';
import { Environment, type TestApp } from './harness';
import { type RfqTrader, type Round, clientRef, expectRfqError, expirationIn, leg, listRound, resumeWs, rfqTrader, sessionToken, sleep } from './rfq-support';

/**
 * docs/spec/design.md section 13: every event of an account is stored with a gapless account_seq, and
 * `rfq.subscribe { since }` replays the stored ones then goes live, each once, in order.
 */

/** The account events a client received, in arrival order: [account_seq, event]. */
function received(client: RpcClient): Array<[number, string]> {
  return client.notifications.filter((n) => n.data.account_seq !== undefined).map((n) => [n.data.account_seq, n.data.event]);
}

async function receivedUpTo(client: RpcClient, last: number, timeoutMs = 20_000): Promise<number[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const seqs = received(client).map(([s]) => s);
    if (seqs.length > 0 && seqs[seqs.length - 1] >= last) return seqs;
    if (Date.now() > until) throw new Error(`received up to ${seqs[seqs.length - 1]}, expected ${last}`);
    await sleep(20);
  }
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

let env: Environment;
let app: TestApp;
let round: Round;
let maker: RfqTrader;
const opened: RpcClient[] = [];

const latestOf = async (accountId: number): Promise<number> => {
  const [row] = await app.app.get(Database).dataSource.query('SELECT last_seq FROM account_event_seqs WHERE account_id = $1', [accountId]);
  return Number(row?.last_seq ?? 0);
};
/** `n` RFQs of the taker declined by the maker: n `declined` events on the taker's account. */
const declines = async (taker: RfqTrader, n: number, client = taker.client) => {
  for (let i = 0; i < n; i++) {
    const rfq = await client.result('rfq.create', { client_ref: clientRef(), legs: [leg(round.symbol('150'), '1')] });
    await maker.client.result('rfq.maker.decline', { rfq_id: rfq.rfq_id, reason: 'size_limit' });
  }
};
const connect = async (t: RfqTrader) => {
  const client = await resumeWs(app, t.wallet, t.accountId, ['taker']);
  opened.push(client);
  return client;
};

beforeAll(async () => {
  env = await Environment.create({ RFQ_RATE_PER_SECOND: '100000', RFQ_RATE_BURST: '100000', MAX_OPEN_RFQS: '5000', RFQ_TTL_SECONDS: '600' });
  app = await env.start();
  round = await listRound(app, 'SOL', expirationIn(10));
  maker = await rfqTrader(app, ['quoter']);
});
afterAll(async () => {
  for (const c of opened) await c.close();
  await maker?.client.close();
  await app?.close();
  await env?.destroy();
});

describe('Event replay: account_seq, rfq.subscribe { since }: away and back', () => {
  it('events while the client is away are replayed in order, none missing, none twice, then live ones continue', async () => {
    const taker = await rfqTrader(app, ['taker']);
    const first = await connect(taker);
    expect(await first.result('rfq.subscribe', {})).toEqual({ channel: 'rfq', subscribed: true, account_seq: 0 });
    await declines(taker, 3);
    const seen = await receivedUpTo(first, 3);
    expect(seen).toEqual([1, 2, 3]);
    await first.close();

    await declines(taker, 5); // while away: 4..8
    const back = await connect(taker);
    expect(await back.result('rfq.subscribe', { since: 3 })).toEqual({ channel: 'rfq', subscribed: true, account_seq: 8 });
    expect(await receivedUpTo(back, 8)).toEqual(range(4, 8));
    await declines(taker, 2); // live: 9, 10
    expect(await receivedUpTo(back, 10)).toEqual(range(4, 10));
    expect(received(back).every(([, event]) => event === 'declined')).toBe(true);
    // The per-connection seq has no gap either: replayed and live notifications are numbered alike.
    expect(back.notifications.map((n) => n.data.seq)).toEqual(range(1, 7));
  });

  it('a replayed event is the same frame text as it was live, its per-connection seq aside', async () => {
    const taker = await rfqTrader(app, ['taker']);
    const live = await connect(taker);
    await live.result('rfq.subscribe', {});
    await declines(taker, 3);
    await receivedUpTo(live, 3);
    const replayed = await connect(taker);
    await replayed.result('rfq.subscribe', { since: 0 });
    await receivedUpTo(replayed, 3);
    const frames = (client: RpcClient) =>
      client.texts.filter((t) => t.includes('"method":"subscription"')).map((t) => t.replace(/"data":\{"seq":\d+,/, '"data":{'));
    expect(frames(replayed)).toHaveLength(3);
    expect(frames(replayed)).toEqual(frames(live));
  });
});

describe('Event replay: account_seq, rfq.subscribe { since }: volume and races', () => {
  it('1,000 stored events are replayed in order, then the stream is live', async () => {
    const taker = await rfqTrader(app, ['taker']);
    // Quick to make: 1,000 RFQs that expire in one sweep give 1,000 `expired` events.
    // In batches of 50: a connection has at most 64 requests in flight (docs/spec/design.md 10).
    const rfqs = [];
    for (let i = 0; i < 1000; i += 50) {
      rfqs.push(
        ...(await Promise.all(range(1, 50).map(() => taker.client.call('rfq.create', { client_ref: clientRef(), legs: [leg(round.symbol('150'), '1')] })))),
      );
    }
    expect(rfqs.every((r) => r.result?.state === 'pending')).toBe(true);
    await app.app.get(Database).dataSource.query(`UPDATE rfqs SET expires_at = 1 WHERE account_id = $1`, [taker.accountId]);
    const until = Date.now() + 30_000;
    while ((await latestOf(taker.accountId)) < 1000 && Date.now() < until) await sleep(100);
    expect(await latestOf(taker.accountId)).toBe(1000);

    const client = await connect(taker);
    const started = performance.now();
    expect((await client.result('rfq.subscribe', { since: 0 })).account_seq).toBe(1000);
    expect(await receivedUpTo(client, 1000)).toEqual(range(1, 1000));
    const ms = performance.now() - started;
    expect(received(client).every(([, event]) => event === 'expired')).toBe(true);
    await declines(taker, 1);
    expect(await receivedUpTo(client, 1001)).toEqual(range(1, 1001));
    console.log(`replayed 1,000 stored events in ${ms.toFixed(0)} ms`);
  });

  it('a replay racing live moves of the same account delivers each event exactly once, in order', async () => {
    const taker = await rfqTrader(app, ['taker']);
    await declines(taker, 300);
    const writer = await connect(taker);
    let stop = false;
    // Moves of the account keep committing, from two connections at once, while the replay runs.
    const load = Promise.all(
      [0, 1].map(async () => {
        while (!stop) await declines(taker, 1, writer);
      }),
    );
    await sleep(50);
    const reader = await connect(taker);
    const answer = await reader.result('rfq.subscribe', { since: 0 });
    expect(answer.account_seq).toBeGreaterThanOrEqual(300);
    await sleep(400);
    stop = true;
    await load;
    const last = await latestOf(taker.accountId);
    expect(last).toBeGreaterThan(answer.account_seq); // events did commit during and after the replay
    expect(await receivedUpTo(reader, last)).toEqual(range(1, last));
  });
});

describe('Event replay: account_seq, rfq.subscribe { since }: bounds, retention and sign-in', () => {
  it('since after the latest, or older than what is stored, is RFQ_VALUE_OUT_OF_RANGE and subscribes nothing', async () => {
    const taker = await rfqTrader(app, ['taker']);
    await declines(taker, 3);
    const client = await connect(taker);
    expectRfqError(await client.call('rfq.subscribe', { since: 4 }), 'RFQ_VALUE_OUT_OF_RANGE');
    expectRfqError(await client.call('rfq.subscribe', { since: -1 }), 'RFQ_VALUE_OUT_OF_RANGE');
    expectRfqError(await client.call('rfq.subscribe', { since: '1' }), 'RFQ_VALUE_OUT_OF_RANGE');
    // Retention: the first two are pruned, so `since: 0` can no longer be continued; `since: 2` can.
    await app.app.get(Database).dataSource.query(`DELETE FROM account_events WHERE account_id = $1 AND account_seq <= 2`, [taker.accountId]);
    const reply = await client.call('rfq.subscribe', { since: 0 });
    expectRfqError(reply, 'RFQ_VALUE_OUT_OF_RANGE');
    expect(reply.error.data.message).toMatch(/kept 7 days/);
    await declines(taker, 1);
    await sleep(200);
    expect(received(client)).toEqual([]);
    expect((await client.result('rfq.subscribe', { since: 2 })).account_seq).toBe(4);
    expect(await receivedUpTo(client, 4)).toEqual([3, 4]);
  });

  it('events older than 7 days are pruned by the retention sweep; newer ones stay', async () => {
    const taker = await rfqTrader(app, ['taker']);
    await declines(taker, 3);
    const db = app.app.get(Database).dataSource;
    await db.query(`UPDATE account_events SET at = at - 8 * 86400 WHERE account_id = $1 AND account_seq <= 2`, [taker.accountId]);
    expect(await app.app.get(EventRetentionService).prune()).toBeGreaterThanOrEqual(2);
    const left = await db.query(`SELECT account_seq FROM account_events WHERE account_id = $1 ORDER BY account_seq`, [taker.accountId]);
    expect(left.map((r: any) => Number(r.account_seq))).toEqual([3]);
  });

  it('signing in as another account on the same connection ends its subscriptions', async () => {
    const a = await rfqTrader(app, ['taker']);
    const b = await rfqTrader(app, ['taker']);
    const client = await connect(a);
    await client.result('rfq.subscribe', {});
    await declines(a, 1);
    expect(await receivedUpTo(client, 1)).toEqual([1]);
    await client.result('public/session_resume', { session_token: sessionToken(b.wallet.address, b.accountId, ['taker']) });
    await declines(a, 1);
    await declines(b, 1);
    await sleep(300);
    expect(received(client)).toEqual([[1, 'declined']]);
    expect((await client.result('rfq.subscribe', { since: 0 })).account_seq).toBe(1);
    expect(await receivedUpTo(client, 1)).toEqual([1, 1]); // b's first event, replayed
  });

  it('the broadcasts created and closed carry no account_seq', async () => {
    const taker = await rfqTrader(app, ['taker']);
    const q = await rfqTrader(app, ['quoter']);
    await q.client.result('rfq.maker.subscribe', {});
    const rfq = await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(round.symbol('150'), '1')] });
    const created = await q.client.next((n) => n.data.event === 'created' && n.data.rfq.rfq_id === rfq.rfq_id);
    expect(created.data.account_seq).toBeUndefined();
    await maker.client.result('rfq.maker.decline', { rfq_id: rfq.rfq_id, reason: 'size_limit' });
    const closed = await q.client.next((n) => n.data.event === 'closed' && n.data.rfq.rfq_id === rfq.rfq_id);
    expect(closed.data.account_seq).toBeUndefined();
  });
});

/** Two instances on one database and Redis: the client of a dead instance resumes on the other. */
(process.env.DATABASE_URL && process.env.REDIS_URL ? describe : describe.skip)('Event replay across instances', () => {
  let env: Environment;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    env = await Environment.create({ RFQ_RATE_PER_SECOND: '100000', RFQ_RATE_BURST: '100000', MAX_OPEN_RFQS: '5000' });
    a = await env.start();
    b = await env.start();
  });
  afterAll(async () => {
    await a?.close().catch(() => undefined);
    await b?.close();
    await env?.destroy();
  });

  it('an instance killed while a client is subscribed: the client resumes on another instance without a gap', async () => {
    const round = await listRound(b, 'SOL', expirationIn(10));
    const taker = await rfqTrader(b, ['taker']);
    const maker = await rfqTrader(b, ['quoter']);
    const onA = await resumeWs(a, taker.wallet, taker.accountId, ['taker']);
    await onA.result('rfq.subscribe', {});
    let stop = false;
    let made = 0;
    // The account's moves go on through instance B the whole time.
    const load = (async () => {
      while (!stop) {
        const rfq = await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(round.symbol('150'), '1')] });
        await maker.client.result('rfq.maker.decline', { rfq_id: rfq.rfq_id, reason: 'size_limit' });
        made += 1;
      }
    })();
    await receivedUpTo(onA, 5);
    // Kill A: its sockets are cut without a close handshake, then the app goes.
    onA.socket.terminate();
    await a.close();
    const last = received(onA)
      .map(([s]) => s)
      .pop()!;
    // Events committed meanwhile are missed by the dead connection: at least one, however slow the load's round trips.
    for (const until = Date.now() + 10_000; made <= last && Date.now() < until;) await sleep(20);
    expect(made).toBeGreaterThan(last);
    const onB = await resumeWs(b, taker.wallet, taker.accountId, ['taker']);
    await onB.result('rfq.subscribe', { since: last });
    await sleep(300);
    stop = true;
    await load;
    const latest = made; // one `declined` per round trip of the load
    expect(await receivedUpTo(onB, latest)).toEqual(range(last + 1, latest));
    expect(received(onA).map(([s]) => s)).toEqual(range(1, last));
    await onB.close();
    await taker.client.close();
    await maker.client.close();
  });
});
