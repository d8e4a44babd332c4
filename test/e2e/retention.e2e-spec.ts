import { verifyJournalSegment, verifyReceipt } from '../../sdk/src/index';
import { Database } from '../../src/common/database/database';
import { RfqHistoryService } from '../../src/modules/rfq/rfq-history.service';
import { Http } from './clients';
import { Environment, METRICS_AUTH, type TestApp } from './harness';
import { type RfqTrader, type Round, clientRef, expectRfqError, expirationIn, leg, listRound, rfqTrader, signedQuote, terms } from './rfq-support';
import { acceptAndFill, acceptParams, fillsOf, marketData, nextNonce, nowSeconds, pair, quoted, sleep, waitForState } from './support/ledger';
import { longIt } from './support/long';

/**
 * A year of history (docs/spec/design.md 17): RFQ_HISTORY_DAYS after an RFQ ended, one without a fill
 * is deleted with its rfq_events and accept, one with a fill keeps its row, fill, legs and
 * receipts (the journal still verifies) and loses its rfq_events; /metrics shows the tables'
 * sizes and the retention lag; and deleting a large backlog does not slow the trading path (a
 * latency ratio: `npm run test:long` only).
 */

/** RFQ_HISTORY_DAYS of the first instance: four seconds. */
const HISTORY_SECONDS = 4;
/**
 * Ended RFQs inserted at once for the second instance's sweep: one to two minutes of draining at
 * its pace, which rests twenty times each statement's time, so a slower machine drains longer
 * (5,000 took 170 to 255 s on a machine at half its usual speed, the CI's time budget short of it).
 */
const BACKLOG = 2_500;
/** Seconds from the backlog's insertion to its falling due: time to insert it and for the baseline (about 10 s on 2 cores). */
const BACKLOG_DUE_IN = 30;
/** Backlog RFQs inserted per statement (with their events and accepts). */
const BACKLOG_CHUNK = 5_000;
/** Lifecycles measured without the sweep (and as many as fit while it runs). */
const SAMPLES = 300;
/**
 * Baseline lifecycles after the backlog drained, about 40 s. The drain's window is about three
 * minutes, and this machine's own hiccups land in it every time; a baseline of 2,000 (9 s) caught
 * them or not, and its p99 moved between 8.6 and 14.5 ms from run to run while the drain's stayed
 * at 13.4 to 16.9 ms (traced in 2 s buckets: the quiet p99 from 8.1 to 13.8 ms). With the 300
 * before, the baseline's p99 is the 104th worst of 10,300.
 */
const AFTER_SAMPLES = 10_000;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

/** The value of a sample of the Prometheus text, by name and labels as printed. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

/**
 * Inserts BACKLOG ended RFQs of `accountId`, set-based, BACKLOG_CHUNK per statement, ended at `endedAt`
 * (plus 0-4 s): declined and expired RFQs, and failed accepts (an accept row, no fill), each with two events.
 */
async function insertBacklog(db: Database, accountId: number, expiry: number, endedAt: number): Promise<void> {
  for (let lo = 1; lo <= BACKLOG; lo += BACKLOG_CHUNK) {
    await db.exec(
      `WITH b AS (SELECT g, 'b' || lpad(to_hex(g), 31, '0') AS id, CASE g % 3 WHEN 0 THEN 'declined' WHEN 1 THEN 'expired' ELSE 'failed' END AS state,
                       CASE WHEN g % 3 = 2 THEN 'e' || lpad(to_hex(g), 63, '0') END AS quote_id, $3::bigint + g % 5 AS ended_at
                  FROM generate_series($4::int, $5::int) g),
          rfq AS (INSERT INTO rfqs (id, account_id, client_ref, legs, asset, expiry, state, created_at, updated_at, expires_at, max_quote_expires_at,
                                    quote_id, maker_account_id, maker_wallet, quote_nonce, bid, ask, issued_at, quote_expires_at, maker_signature, quote_received_at_ms, ended_at)
                  SELECT id, $1, 'backlog-' || g, '[]'::jsonb, 'SOL', $2, state, $3, $3, $3 + 60, $3 + 60,
                         quote_id, CASE WHEN quote_id IS NOT NULL THEN $1::bigint END, CASE WHEN quote_id IS NOT NULL THEN 'w' END,
                         CASE WHEN quote_id IS NOT NULL THEN g::numeric END, CASE WHEN quote_id IS NOT NULL THEN 1 END, CASE WHEN quote_id IS NOT NULL THEN 2 END,
                         CASE WHEN quote_id IS NOT NULL THEN $3::bigint END, CASE WHEN quote_id IS NOT NULL THEN $3::bigint + 60 END,
                         CASE WHEN quote_id IS NOT NULL THEN 's' END, CASE WHEN quote_id IS NOT NULL THEN $3::bigint * 1000 END, ended_at
                    FROM b),
          events AS (INSERT INTO rfq_events (rfq_id, event, state, at) SELECT id, e, e, ended_at FROM b, unnest(ARRAY['created', 'ended']) e)
     INSERT INTO accepts (rfq_id, quote_id, side, fee, max_fee, taker_signature, expires_at, accepted_at)
     SELECT id, quote_id, 'buy', 0, 0, 's', ended_at, ended_at FROM b WHERE quote_id IS NOT NULL`,
      [accountId, expiry, endedAt, lo, Math.min(BACKLOG, lo + BACKLOG_CHUNK - 1)],
    );
  }
}

describe('RFQ history retention', () => {
  let env: Environment;
  let app: TestApp;
  let sol: Round;
  const traders: RfqTrader[] = [];

  const metrics = async () => (await fetch(`${app.url}/metrics`, { headers: METRICS_AUTH })).text();
  const db = () => app.app.get(Database);
  const count = async (sql: string, params: unknown[] = []) => Number((await db().one<{ n: string }>(sql, params))!.n);
  /** Polls /metrics (cached 5 s) until `check` holds. */
  const metricsUntil = async (check: (text: string) => boolean, timeoutMs = 15_000): Promise<string> => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const text = await metrics();
      if (check(text)) return text;
      if (Date.now() > until)
        throw new Error(
          `metrics never matched:\n${text
            .split('\n')
            .filter((l) => l.startsWith('legwork_'))
            .join('\n')}`,
        );
      await sleep(250);
    }
  };

  /** /metrics after a drain: the lag back to 0, every growing table's size, the rfqs gauge at its count once analysed. */
  const expectGrowthMetrics = async () => {
    const text = await metricsUntil((t) => sample(t, 'legwork_retention_lag_seconds') === 0);
    for (const table of ['rfqs', 'rfq_events', 'account_events', 'fills', 'fill_legs', 'receipts', 'positions'])
      expect(sample(text, 'legwork_table_rows', `{table="${table}"}`)).toEqual(expect.any(Number));
    // The gauge is the planner's estimate: after ANALYZE, the table's count.
    await db().exec('ANALYZE rfqs');
    const rows = await count('SELECT count(*) AS n FROM rfqs');
    await metricsUntil((t) => sample(t, 'legwork_table_rows', '{table="rfqs"}') === rows);
  };

  beforeAll(async () => {
    env = await Environment.create({
      MARKET_DATA_MAX_AGE_SECONDS: '3600',
      RFQ_RATE_PER_SECOND: '100000',
      RFQ_RATE_BURST: '100000',
      MAX_OPEN_RFQS: '100000',
    });
    app = await env.start({ RFQ_HISTORY_DAYS: String(HISTORY_SECONDS / 86_400) });
    sol = await listRound(app, 'SOL', expirationIn(10));
    await marketData(app, 'SOL', '150', '0.8');
  }, 120_000);
  afterAll(async () => {
    for (const t of traders) await t.client.close();
    await app?.close();
    await env?.destroy();
  });

  it('after RFQ_HISTORY_DAYS an unfilled RFQ is gone (RFQ_NOT_FOUND); a filled one keeps its fill and receipts, the journal verifies', async () => {
    const { taker, maker } = await pair(app, '1000', '10000');
    traders.push(taker, maker);
    const legs = [leg(sol.symbol('150'), '1')];
    const created = () => taker.client.result('rfq.create', { client_ref: clientRef(), legs });

    // A scaled-down day: fills, declines, cancels, quotes that expire, and one RFQ still open.
    const filled: string[] = [];
    const ended: string[] = [];
    for (let i = 0; i < 3; i++) {
      const q = await quoted(taker, maker, sol.expiry, legs);
      expect((await acceptAndFill(taker, q, i % 2 ? 'sell' : 'buy')).state).toBe('filled');
      filled.push(q.rfqId);
      const declined = await created();
      await maker.client.result('rfq.maker.decline', { rfq_id: declined.rfq_id, reason: 'size_limit' });
      const cancelled = await created();
      await taker.client.result('rfq.cancel', { rfq_id: cancelled.rfq_id });
      ended.push(declined.rfq_id, cancelled.rfq_id);
    }
    const now = nowSeconds();
    const expiring = await quoted(taker, maker, sol.expiry, legs, { issued_at: now, expires_at: now + 2 });
    expect((await waitForState(taker, expiring.rfqId, ['expired'])).state).toBe('expired');
    ended.push(expiring.rfqId);
    const open = await created();
    // Ended, but not yet RFQ_HISTORY_DAYS ago: still there.
    expect(await taker.client.result('rfq.get', { rfq_id: ended[0] })).toMatchObject({ state: 'declined' });
    expect(await count(`SELECT count(*) AS n FROM rfq_events WHERE rfq_id = ANY($1::char(32)[])`, [[...filled, ...ended]])).toBeGreaterThan(0);
    const fillsBefore = await fillsOf(app, taker.accountId);
    const journalBefore = (await new Http(app.url).get('/v1/exchange/journal?after=0&limit=1000')).body;
    expect(journalBefore.rows).toHaveLength(3);

    await sleep((HISTORY_SECONDS + 1.5) * 1000);
    // Two passes: the first may be the periodic one already under way, with an older cutoff.
    await app.app.get(RfqHistoryService).sweep();
    await app.app.get(RfqHistoryService).sweep();

    for (const id of ended) expectRfqError(await taker.client.call('rfq.get', { rfq_id: id }), 'RFQ_NOT_FOUND');
    expect(await count(`SELECT count(*) AS n FROM rfqs WHERE id = ANY($1::char(32)[])`, [ended])).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM rfq_events WHERE rfq_id = ANY($1::char(32)[])`, [[...filled, ...ended]])).toBe(0);
    // The filled RFQs stay, with their fills, legs and receipts; the journal still verifies.
    for (const id of filled) expect(await taker.client.result('rfq.get', { rfq_id: id })).toMatchObject({ state: 'filled' });
    expect(await count(`SELECT count(*) AS n FROM fill_legs l JOIN fills f ON f.id = l.fill_id WHERE f.rfq_id = ANY($1::char(32)[])`, [filled])).toBe(3);
    expect(await count(`SELECT count(*) AS n FROM accepts WHERE rfq_id = ANY($1::char(32)[])`, [ended])).toBe(0);
    const fillsAfter = await fillsOf(app, taker.accountId);
    expect(fillsAfter).toEqual(fillsBefore);
    const keys = (await new Http(app.url).get('/v1/exchange/keys')).body.keys;
    for (const row of fillsAfter) expect(verifyReceipt(row.receipt, { keys, fill: row }).rfqId).toBe(row.rfq_id);
    const journal = (await new Http(app.url).get('/v1/exchange/journal?after=0&limit=1000')).body;
    expect(journal).toEqual(journalBefore);
    expect(verifyJournalSegment(journal.rows)).toEqual({ ok: true, head: journal.head });
    // The open RFQ is not history.
    expect(await taker.client.result('rfq.get', { rfq_id: open.rfq_id })).toMatchObject({ state: 'pending' });
    expect(await count(`SELECT count(*) AS n FROM rfq_events WHERE rfq_id = $1`, [open.rfq_id])).toBe(1);

    // A later pass finds nothing to do: the kept RFQs left the sweep's index.
    expect(await app.app.get(RfqHistoryService).prune()).toEqual({ deleted: 0, kept: 0, events: 0 });
    await metricsUntil((text) => sample(text, 'legwork_retention_lag_seconds') === 0);
  }, 120_000);

  it('a competitive RFQ without a fill goes with its quotes, declines, panel and transcript; a filled one keeps them', async () => {
    const { taker, maker } = await pair(app, '1000', '10000');
    const other = await rfqTrader(app, ['quoter']);
    traders.push(taker, maker, other);
    const legs = [leg(sol.symbol('150'), '1')];
    const panel = { makers: [maker.wallet.address, other.wallet.address] };
    // A quote from one panel maker and a decline from the other.
    const competitive = async () => {
      const rfq = await taker.client.result('rfq.create', { client_ref: clientRef(), legs, competition: panel });
      const q = signedQuote(maker.wallet, rfq, terms(nextNonce()), sol.expiry);
      await maker.client.result('rfq.maker.respond', q.params);
      await other.client.result('rfq.maker.decline', { rfq_id: rfq.rfq_id, reason: 'size_limit' });
      return { rfqId: rfq.rfq_id as string, quoteId: q.quoteId, terms: q.params };
    };
    const withdrawn = await competitive();
    await taker.client.result('rfq.cancel', { rfq_id: withdrawn.rfqId });
    const taken = await competitive();
    await taker.client.result('rfq.accept', acceptParams(taker.wallet, taken, 'buy'));
    expect((await waitForState(taker, taken.rfqId, ['filled'])).state).toBe('filled');
    // None of these tables has a foreign key to rfqs (migration 1763800000410): the sweep deletes them by name.
    const rowsOf = async (id: string) => {
      const n = await Promise.all(
        ['accepts', 'competition_quotes', 'competition_declines', 'competition_panels', 'competition_transcripts'].map((table) =>
          count(`SELECT count(*) AS n FROM ${table} WHERE rfq_id = $1`, [id]),
        ),
      );
      return { accepts: n[0], quotes: n[1], declines: n[2], panels: n[3], transcripts: n[4] };
    };
    const before = { accepts: 0, quotes: 1, declines: 1, panels: 2, transcripts: 1 };
    expect(await rowsOf(withdrawn.rfqId)).toEqual(before);
    expect(await rowsOf(taken.rfqId)).toEqual({ ...before, accepts: 1 });

    await sleep((HISTORY_SECONDS + 1.5) * 1000);
    await app.app.get(RfqHistoryService).sweep();
    await app.app.get(RfqHistoryService).sweep();

    expectRfqError(await taker.client.call('rfq.get', { rfq_id: withdrawn.rfqId }), 'RFQ_NOT_FOUND');
    expect(await rowsOf(withdrawn.rfqId)).toEqual({ accepts: 0, quotes: 0, declines: 0, panels: 0, transcripts: 0 });
    expect(await rowsOf(taken.rfqId)).toEqual({ ...before, accepts: 1 });
    expect((await taker.client.result('rfq.transcript', { rfq_id: taken.rfqId })).transcript).toBeDefined();
  }, 60_000);

  // A latency ratio: only `npm run test:long` runs it, in a jest process of its own.
  longIt(
    'a backlog of ended RFQs drains in short statements: lag to 0, and the trading p99 stays within 1.5x',
    async () => {
      // The same database, now keeping a day of history: the traffic of the test is not due.
      await app.close();
      app = await env.start({ RFQ_HISTORY_DAYS: '1' });
      const taker = await rfqTrader(app, ['taker']);
      traders.push(taker);
      const legs = [leg(sol.symbol('150'), '1')];
      const lifecycle = async (): Promise<number> => {
        const started = performance.now();
        const rfq = await taker.client.result('rfq.create', { client_ref: clientRef(), legs });
        await taker.client.result('rfq.get', { rfq_id: rfq.rfq_id });
        await taker.client.result('rfq.cancel', { rfq_id: rfq.rfq_id });
        return performance.now() - started;
      };
      // A backlog that falls due BACKLOG_DUE_IN seconds from now (a day after it ended).
      const endedAt = nowSeconds() - 86_400 + BACKLOG_DUE_IN;
      await insertBacklog(db(), taker.accountId, sol.expiry, endedAt);
      await db().exec('CHECKPOINT'); // each window starts on one: PostgreSQL's timed one (5 min) would land in the longer window
      // The trading path before the backlog is due: the sweep finds nothing.
      for (let i = 0; i < 30; i++) await lifecycle(); // warm-up
      const without: number[] = [];
      for (let i = 0; i < SAMPLES; i++) without.push(await lifecycle());
      const history = app.app.get(RfqHistoryService);
      expect((await history.growth()).lagSeconds).toBe(0);
      expect(nowSeconds()).toBeLessThan(endedAt + 86_400); // the baseline ran before anything was due
      while (nowSeconds() <= endedAt + 4 + 86_400) await sleep(200);
      expect((await history.growth()).lagSeconds).toBeGreaterThan(0);
      await db().exec('CHECKPOINT');

      // The trading path while the sweep drains the backlog.
      let sweeping = true;
      const drainStarted = performance.now();
      const swept = history.sweep().finally(() => (sweeping = false));
      const during: number[] = [];
      while (sweeping) during.push(await lifecycle());
      await swept;
      const drainSeconds = (performance.now() - drainStarted) / 1000;
      expect(during.length).toBeGreaterThanOrEqual(100);

      // Quiet again after the drain (as in the flood test): the baseline is both quiet phases, not
      // only 300 samples of one minute, whose p99 moved from 12 to 36 ms between runs.
      for (let i = 0; i < AFTER_SAMPLES; i++) without.push(await lifecycle());

      for (const [table, id] of [
        ['rfqs', 'id'],
        ['rfq_events', 'rfq_id'],
        ['accepts', 'rfq_id'],
      ])
        expect(await count(`SELECT count(*) AS n FROM ${table} WHERE ${id} LIKE 'b%'`)).toBe(0);
      const p99Without = percentile(without, 99);
      const p99During = percentile(during, 99);
      console.log(
        `rfq.create+get+cancel p99: ${p99Without.toFixed(1)} ms without the sweep (${without.length} samples), ` +
          `${p99During.toFixed(1)} ms while it deleted ${BACKLOG} RFQs with ${2 * BACKLOG} events (${during.length} samples, ${drainSeconds.toFixed(0)} s); ` +
          `p50 ${percentile(without, 50).toFixed(1)} / ${percentile(during, 50).toFixed(1)} ms`,
      );
      expect(p99During).toBeLessThanOrEqual(1.5 * p99Without);
      await expectGrowthMetrics();
    },
    600_000,
  );
});
