import { formatRfq, parseRfqSigned } from '@legwork/protocol';
import { Database } from '../../src/common/database/database';
import { AccountEventRepository } from '../../src/modules/rfq/account-event.repository';
import { formatRfqSql } from '../../src/modules/rfq/event-data.sql';
import type { RpcClient } from './clients';
import { Http } from './clients';
import { Environment, type TestApp } from './harness';
import { type RfqTrader, type Round, clientRef, expirationIn, leg, listRound, resumeWs, sleep } from './rfq-support';
import { describeBothDatabases } from './support/both-databases';
import { acceptAndFill, acceptWithFillHeld, marketData, pair, quoted, waitForState, withdraw } from './support/ledger';

/**
 * docs/rfq.md "Replay": the taker's events of a seed RFQ are rendered by PostgreSQL while a replay
 * reads them (src/modules/rfq/event-data.sql.ts), the others by rfq-view.ts. Either way a replayed
 * frame is the live frame, byte for byte, its per-connection seq aside.
 */

const frames = (client: RpcClient) =>
  client.texts.filter((t) => t.includes('"method":"subscription"')).map((t) => t.replace(/"data":\{"seq":\d+,/, '"data":{'));

async function framesUpTo(client: RpcClient, count: number): Promise<string[]> {
  const until = Date.now() + 20_000;
  while (frames(client).length < count) {
    if (Date.now() > until) throw new Error(`${frames(client).length} frames, expected ${count}`);
    await sleep(20);
  }
  return frames(client);
}

describe('Replay: the events PostgreSQL renders are the live frames', () => {
  let env: Environment;
  let app: TestApp;
  let sol: Round;
  const clients: RpcClient[] = [];

  const latestOf = async (accountId: number): Promise<number> => {
    const [row] = await app.app.get(Database).dataSource.query('SELECT last_seq FROM account_event_seqs WHERE account_id = $1', [accountId]);
    return Number(row?.last_seq ?? 0);
  };
  const live = async (t: RfqTrader) => {
    const client = await resumeWs(app, t.wallet, t.accountId, ['taker']);
    clients.push(client);
    await client.result('rfq.subscribe', {});
    return client;
  };
  /** Every event of the account replayed on a new connection: the live frames, in order, and each rendered by PostgreSQL. */
  const expectReplayedAsLive = async (t: RfqTrader, liveClient: RpcClient) => {
    const count = await latestOf(t.accountId);
    const seen = await framesUpTo(liveClient, count);
    const replay = await resumeWs(app, t.wallet, t.accountId, ['taker']);
    clients.push(replay);
    await replay.result('rfq.subscribe', { since: 0 });
    expect(await framesUpTo(replay, count)).toEqual(seen);
    const page = await app.app.get(AccountEventRepository).range(t.accountId, 0, count, 1000);
    expect(page.events.map((e) => 'rendered' in e)).toEqual(page.events.map(() => true));
    return seen;
  };

  beforeAll(async () => {
    env = await Environment.create({ MARKET_DATA_MAX_AGE_SECONDS: '3600', RFQ_RATE_PER_SECOND: '100000', RFQ_RATE_BURST: '100000' });
    app = await env.start();
    sol = await listRound(app, 'SOL', expirationIn(10));
    await marketData(app, 'SOL', '150', '0.8');
  }, 120_000);
  afterAll(async () => {
    for (const c of clients) await c.close();
    await app?.close();
    await env?.destroy();
  });

  it('quoted, accepted, filled (receipt and salt), reverted, declined, cancelled and expired RFQs of several legs and odd decimals', async () => {
    const { taker, maker } = await pair(app, '100000', '1000000');
    const liveClient = await live(taker);
    const bought = await quoted(taker, maker, sol.expiry, [leg(sol.symbol('150'), '1.5'), leg(sol.symbol('140', 'put'), '-2')], { bid: '1.5', ask: '2.25' });
    expect((await acceptAndFill(taker, bought, 'buy')).state).toBe('filled');
    const sold = await quoted(taker, maker, sol.expiry, [leg(sol.symbol('160'), '0.25')], { bid: '0.000001', ask: '1000.5' });
    expect((await acceptAndFill(taker, sold, 'sell')).state).toBe('filled');
    expect((await new Http(app.url).admin().post(`/v1/admin/rfq/${bought.rfqId}/revert`, {})).status).toBe(200);
    const declined = await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '10')] });
    await maker.client.result('rfq.maker.decline', { rfq_id: declined.rfq_id, reason: 'size_limit' });
    const cancelled = await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('140'), '3')] });
    await taker.client.result('rfq.cancel', { rfq_id: cancelled.rfq_id });
    // Two seconds, not one: a quote must still be live when its respond is checked, and the create
    // and respond before it can cross a second boundary (CI: "expires_at ... has passed").
    const now = Math.floor(Date.now() / 1000);
    const expiring = await quoted(taker, maker, sol.expiry, [leg(sol.symbol('150', 'put'), '7')], { issued_at: now, expires_at: now + 2 });
    await waitForState(taker, expiring.rfqId, ['expired'], 10_000);

    const seen = await expectReplayedAsLive(taker, liveClient);
    const data = seen.map((f) => JSON.parse(f).params.data);
    for (const event of ['quoted', 'accepted', 'submitting', 'filled', 'failed', 'declined', 'expired']) expect(data.map((d) => d.event)).toContain(event);
    // A cancel ends the RFQ `expired` with its time; a revert ends it `failed`, its fill kept and marked.
    expect(data.some((d) => d.event === 'expired' && d.rfq.cancelled_at !== null)).toBe(true);
    expect(data.find((d) => d.event === 'failed').rfq).toMatchObject({ failure: { error: 'RFQ_TX_FAILED' }, fill: { reverted: true } });
    // The filled events carry their receipts, the taker's salt inside.
    const fills = seen.map((f) => JSON.parse(f).params.data.rfq.fill).filter((fill) => fill?.receipt);
    expect(fills.length).toBeGreaterThanOrEqual(2);
    for (const fill of fills) expect(fill.receipt).toMatchObject({ kind: 0, taker_salt: expect.stringMatching(/^[0-9a-f]+$/) });
  });

  it('failed: the failure error and its message', async () => {
    const { taker, maker } = await pair(app, '10', '10000');
    const liveClient = await live(taker);
    const q = await quoted(taker, maker, sol.expiry, [leg(sol.symbol('150'), '1')], { bid: '8', ask: '9' });
    // The fill waits until the taker's money is out: it fails unfunded.
    const failed = await acceptWithFillHeld(app, taker, q, 'buy', async () => {
      expect((await withdraw(app, taker.accountId, '5')).status).toBe(200);
    });
    expect(failed).toMatchObject({ state: 'failed', failure: { error: 'RFQ_TAKER_UNFUNDED' } });
    const seen = await expectReplayedAsLive(taker, liveClient);
    expect(JSON.parse(seen.at(-1)!).params.data.rfq.failure).toEqual({ error: 'RFQ_TAKER_UNFUNDED', message: expect.any(String) });
  });
});

describeBothDatabases('formatRfqSql', (getDb) => {
  it('is formatRfq: signs, whole parts, fractions without trailing zeros, the ends of the RFQ range', async () => {
    const values = [0n, 1n, -1n, 10n, 999_999n, 1_000_000n, -1_000_000n, 1_500_000n, 2_250_000n, 1_000_500_000n, 123_456_789n, -123_456_789n];
    values.push(2n ** 63n - 1n, -(2n ** 63n - 1n), -(2n ** 63n));
    for (let i = 0; i < 200; i++) values.push(BigInt(Math.floor((Math.random() - 0.5) * 2 ** 53)) * BigInt(1 + (i % 7)) ** 3n);
    const rows = await getDb().rows<{ text: string }>(`SELECT ${formatRfqSql('v')} AS text FROM unnest($1::numeric[]) WITH ORDINALITY AS t(v, n) ORDER BY n`, [
      values.map(String),
    ]);
    expect(rows.map((r) => r.text)).toEqual(values.map(formatRfq));
  });

  it("a stored leg quantity without trailing zeros is the view's quantity", async () => {
    const quantities = ['1', '-2', '0.5', '1.5', '0.000001', '-0.25', '1000000', '12.345678', '1.10', '0'];
    const rows = await getDb().rows<{ text: string }>(
      `SELECT trim_scale(q::numeric)::text AS text FROM unnest($1::text[]) WITH ORDINALITY AS t(q, n) ORDER BY n`,
      [quantities],
    );
    expect(rows.map((r) => r.text)).toEqual(quantities.map((q) => formatRfq(parseRfqSigned(q))));
  });
});
