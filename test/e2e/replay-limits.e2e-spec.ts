import { Database } from '../../src/common/database/database';
import { AccountEventsService } from '../../src/modules/rfq/account-events.service';
import { Environment, type TestApp } from './harness';
import { type RfqTrader, type Round, clientRef, expectRfqError, expirationIn, leg, listRound, resumeWs, rfqTrader, sleep } from './rfq-support';

/**
 * docs/spec/design.md section 16, "Replay is bounded": one replay per channel per connection at a
 * time, and a replay stops when its connection closes.
 */
let env: Environment;
let app: TestApp;
let round: Round;
let maker: RfqTrader;
/** Page reads of the account event store (every replay reads through it), and how long each is held. */
let reads = 0;
let readDelayMs = 0;

beforeAll(async () => {
  env = await Environment.create({ RFQ_RATE_PER_SECOND: '100000', RFQ_RATE_BURST: '100000' });
  app = await env.start();
  round = await listRound(app, 'SOL', expirationIn(10));
  maker = await rfqTrader(app, ['quoter']);
  const events = app.app.get(AccountEventsService);
  const range = events.range.bind(events);
  jest.spyOn(events, 'range').mockImplementation(async (...args) => {
    reads += 1;
    if (readDelayMs > 0) await sleep(readDelayMs);
    return range(...args);
  });
}, 120_000);
afterAll(async () => {
  jest.restoreAllMocks();
  await maker?.client.close();
  await app?.close();
  await env?.destroy();
}, 60_000);

/** A taker with `n` stored events: one real `declined`, copied to account_seq 2..n (a week of history, quickly). */
async function takerWithEvents(n: number): Promise<RfqTrader> {
  const taker = await rfqTrader(app, ['taker']);
  const rfq = await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(round.symbol('150'), '1')] });
  await maker.client.result('rfq.maker.decline', { rfq_id: rfq.rfq_id, reason: 'size_limit' });
  const sql = app.app.get(Database);
  for (let i = 0; i < 50 && (await sql.rows('SELECT 1 FROM account_events WHERE account_id = $1', [taker.accountId])).length === 0; i++) await sleep(50);
  await sql.exec(
    `INSERT INTO account_events (account_id, account_seq, channel, event, rfq, at)
     SELECT e.account_id, g, e.channel, e.event, e.rfq, e.at FROM account_events e, generate_series(2, $2::int) g
      WHERE e.account_id = $1 AND e.account_seq = 1`,
    [taker.accountId, n],
  );
  await sql.exec('UPDATE account_event_seqs SET last_seq = $2 WHERE account_id = $1', [taker.accountId, n]);
  return taker;
}

describe('replay is bounded (design.md section 16)', () => {
  it('a second subscribe with since while a replay of the channel runs is RFQ_STATE_CONFLICT; after it, another may run', async () => {
    const taker = await takerWithEvents(3000);
    const client = await resumeWs(app, taker.wallet, taker.accountId, ['taker']);
    readDelayMs = 100;
    try {
      const [first, second] = await Promise.all([client.call('rfq.subscribe', { since: 0 }), sleep(20).then(() => client.call('rfq.subscribe', { since: 0 }))]);
      expect(first.result).toMatchObject({ subscribed: true, account_seq: 3000 });
      expectRfqError(second, 'RFQ_STATE_CONFLICT');
      expect(second.error.data.message).toMatch(/replay of channel rfq is running/);
      // Another connection of the same account is not affected, nor this one once its replay answered.
      const other = await resumeWs(app, taker.wallet, taker.accountId, ['taker']);
      expect((await other.call('rfq.subscribe', { since: 2990 })).result).toMatchObject({ account_seq: 3000 });
      expect((await client.call('rfq.subscribe', { since: 2990 })).result).toMatchObject({ account_seq: 3000 });
      await other.close();
    } finally {
      readDelayMs = 0;
      await client.close();
    }
  });

  it('a replay stops when its connection closes: no page is read after the close', async () => {
    const taker = await takerWithEvents(20_000);
    const client = await resumeWs(app, taker.wallet, taker.accountId, ['taker']);
    readDelayMs = 150;
    try {
      reads = 0;
      void client.call('rfq.subscribe', { since: 0 });
      const until = Date.now() + 10_000;
      while (client.notifications.length === 0 && Date.now() < until) await sleep(10);
      expect(client.notifications.length).toBeGreaterThan(0);
      await client.close();
      const atClose = reads;
      // 20,000 events are about 20 pages more: a replay that kept reading would ask for them now.
      await sleep(2000);
      expect(reads).toBe(atClose);
      expect(atClose).toBeLessThanOrEqual(4);
    } finally {
      readDelayMs = 0;
    }
  });
});
