import { Database } from '../../src/common/database/database';
import type { RpcClient } from './clients';
import { Environment, type TestApp } from './harness';
import { type Rows, appRows, expectInvariants } from './invariants';
import { type RfqTrader, type Round, clientRef, expectRfqError, expirationIn, leg, listRound, resumeWs, rfqTrader, signedQuote, terms } from './rfq-support';
import { acceptParams, deposit, marketData, sleep, waitForState } from './support/ledger';
import { repetitions } from './support/long';
import { prng } from './support/prng';

/** 200 in `npm run test:long`, 50 in `npm test`. */
const ITERATIONS = repetitions(50, 200);
/** Iterations run this many at a time, each worker on its own connections and makers (a maker's nonces rise in order). */
const WORKERS = 10;
/**
 * Each call leaves after its own random delay (ms), the cancel's drawn over the accept's measured
 * round trip: sent at the same instant, the cancel (one statement) always beats the accept (checks
 * and reads first), and the race would test one order only.
 */
const SPREAD_MS = 20;
const SEED = Number(process.env.RACE_SEED ?? 20261126);

interface Outcome {
  rfqId: string;
  /** The RFQ was pending when the race began (respond, accept and cancel together), else quoted (cancel, accept and a second respond). */
  startedPending: boolean;
  cancel: any;
  accept: any;
  respond: any;
  final: any;
}

/**
 * The taker's cancel racing its own accept and a maker's respond on one RFQ, with real concurrency
 * (each call on its own connection): the conditional moves decide, each RFQ ends in exactly one
 * state, and the ledger holds exactly the fills of the accepts that won.
 */
describe(`rfq.cancel racing rfq.accept and rfq.maker.respond, ${ITERATIONS} times`, () => {
  let env: Environment;
  let app: TestApp;
  let rows: Rows;
  let sol: Round;
  let taker: RfqTrader;
  const closers: RpcClient[] = [];

  beforeAll(async () => {
    env = await Environment.create({ MARKET_DATA_MAX_AGE_SECONDS: '3600', RFQ_RATE_PER_SECOND: '100000', RFQ_RATE_BURST: '100000' });
    app = await env.start();
    rows = appRows(app);
    sol = await listRound(app, 'SOL', expirationIn(10));
    await marketData(app, 'SOL', '150');
    taker = await rfqTrader(app, ['taker']);
    closers.push(taker.client);
    await deposit(app, taker.accountId, '100000');
  });
  afterAll(async () => {
    for (const c of closers) await c.close();
    await app?.close();
    await env?.destroy();
  });

  const sql = (text: string, params: unknown[] = []) => app.app.get(Database).dataSource.query(text, params);

  /** One worker: its own taker connections (cancel, accept) and two makers, running its share of iterations one after another. */
  async function worker(index: number, count: number): Promise<Outcome[]> {
    const canceller = await resumeWs(app, taker.wallet, taker.accountId, ['taker']);
    const acceptor = await resumeWs(app, taker.wallet, taker.accountId, ['taker']);
    const [first, second] = await Promise.all([rfqTrader(app, ['quoter']), rfqTrader(app, ['quoter'])]);
    closers.push(canceller, acceptor, first.client, second.client);
    await Promise.all([deposit(app, first.accountId, '1000000'), deposit(app, second.accountId, '1000000')]);
    let nonce = 0;
    const random = prng(SEED + index);
    const after = <T>(delayMs: number, call: () => Promise<T>): Promise<T> => sleep(delayMs).then(call);
    const upTo = (ms: number) => Math.floor(random() * ms);
    // Round trips of the accept and the respond as this worker sees them (moving averages).
    const latency = { accept: 50, respond: 50 };
    const timed = async (kind: keyof typeof latency, call: () => Promise<any>) => {
      const sent = Date.now();
      const reply = await call();
      latency[kind] = 0.8 * latency[kind] + 0.2 * (Date.now() - sent);
      return reply;
    };
    const outcomes: Outcome[] = [];
    for (let i = 0; i < count; i++) {
      const startedPending = (index + i) % 2 === 0;
      const rfq = await canceller.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1'), leg(sol.symbol('160'), '-1')] });
      const quote = signedQuote(first.wallet, rfq, terms(++nonce), sol.expiry);
      if (!startedPending) await first.client.result('rfq.maker.respond', quote.params);
      const accept = acceptParams(taker.wallet, { rfqId: rfq.rfq_id, quoteId: quote.quoteId, terms: quote.params }, 'buy');
      const again = signedQuote(second.wallet, rfq, terms(++nonce), sol.expiry).params;
      // The respond leaves first; on a pending RFQ the accept can only win once the respond has
      // landed, so it leaves within the respond's round trip after it; the cancel anywhere within
      // twice the time the others take.
      const respondAt = upTo(SPREAD_MS);
      const acceptAt = startedPending ? respondAt + upTo(2 * latency.respond) : upTo(SPREAD_MS);
      const cancelAt = upTo(2 * (latency.accept + (startedPending ? latency.respond : 0)));
      const [cancel, accepted, respond] = await Promise.all([
        after(cancelAt, () => canceller.call('rfq.cancel', { rfq_id: rfq.rfq_id })),
        after(acceptAt, () => timed('accept', () => acceptor.call('rfq.accept', accept))),
        after(respondAt, () =>
          timed('respond', () => (startedPending ? first.client.call('rfq.maker.respond', quote.params) : second.client.call('rfq.maker.respond', again))),
        ),
      ]);
      const final = await waitForState({ ...taker, client: canceller }, rfq.rfq_id, ['filled', 'expired', 'failed']);
      outcomes.push({ rfqId: rfq.rfq_id, startedPending, cancel, accept: accepted, respond, final });
    }
    return outcomes;
  }

  it('each RFQ ends in exactly one state; the fills, balances and positions are those of the accepts that won', async () => {
    const started = Date.now();
    const shares = Array.from({ length: WORKERS }, (_, w) => Math.floor(ITERATIONS / WORKERS) + (w < ITERATIONS % WORKERS ? 1 : 0));
    const outcomes = (await Promise.all(shares.map((n, w) => worker(w, n)))).flat();
    expect(outcomes).toHaveLength(ITERATIONS);

    const tally = { cancelled: 0, filled: 0, cancelledQuoted: 0 };
    for (const o of outcomes) {
      // Exactly one of the taker's two calls went through: the cancel fails only on an RFQ the accept moved.
      expect([o.cancel.result, o.accept.result].filter(Boolean)).toHaveLength(1);
      if (o.cancel.result) {
        tally.cancelled++;
        expect(o.final).toMatchObject({ state: 'expired', cancelled_at: o.cancel.result.cancelled_at, fill: null, accepted_side: null });
        expect(o.cancel.result).toEqual({ rfq_id: o.rfqId, state: 'expired', cancelled_at: expect.any(Number) });
        // The accept lost: no quote yet (pending), or the RFQ had left quoted.
        expect(['RFQ_NOT_FOUND', 'RFQ_STATE_CONFLICT']).toContain(o.accept.error.data.error);
        if (o.final.quote) tally.cancelledQuoted++;
        // A quote is there exactly when the respond that made it went through (pending start) or the RFQ started quoted.
        expect(o.final.quote !== null).toBe(!o.startedPending || Boolean(o.respond.result));
      } else {
        tally.filled++;
        expect(o.accept.result).toEqual({ rfq_id: o.rfqId, quote_id: expect.any(String), side: 'buy', state: 'accepted' });
        expectRfqError(o.cancel, 'RFQ_STATE_CONFLICT');
        expect(o.final).toMatchObject({ state: 'filled', cancelled_at: null, accepted_side: 'buy' });
      }
      // The second respond on a quoted RFQ never wins; on a pending one the respond wins unless the cancel came first.
      if (!o.startedPending) expectRfqError(o.respond, 'RFQ_STATE_CONFLICT');
      else if (o.respond.error) expect(o.cancel.result).toBeDefined();
    }

    // The database agrees with what the clients saw: one terminal move per RFQ, one fill per won accept.
    const ids = outcomes.map((o) => o.rfqId);
    const ends = await sql(
      `SELECT rfq_id, count(*)::int AS n FROM rfq_events WHERE rfq_id = ANY($1::text[]) AND state IN ('filled', 'expired', 'declined', 'failed') GROUP BY rfq_id`,
      [ids],
    );
    expect(ends).toHaveLength(ITERATIONS);
    for (const e of ends) expect(e.n).toBe(1);
    const filledIds = outcomes.filter((o) => o.accept.result).map((o) => o.rfqId);
    const fills = await sql(`SELECT rfq_id FROM fills WHERE rfq_id = ANY($1::text[]) AND NOT reverted ORDER BY rfq_id`, [ids]);
    expect(fills.map((f: any) => f.rfq_id)).toEqual([...filledIds].sort());
    const positions = await sql(`SELECT instrument, quantity::text FROM positions WHERE account_id = $1 ORDER BY instrument`, [taker.accountId]);
    const each = BigInt(filledIds.length) * 1_000_000n;
    expect(positions.filter((p: any) => p.quantity !== '0')).toEqual(
      filledIds.length === 0
        ? []
        : [
            { instrument: sol.symbol('150'), quantity: each.toString() },
            { instrument: sol.symbol('160'), quantity: (-each).toString() },
          ],
    );
    expect(await sql(`SELECT open_rfqs FROM accounts WHERE id = $1`, [taker.accountId])).toEqual([{ open_rfqs: 0 }]);
    await expectInvariants(rows);
    // Both outcomes happen, or the race was not one.
    expect(tally.cancelled).toBeGreaterThan(0);
    expect(tally.filled).toBeGreaterThan(0);
    console.log(
      `cancel races: ${ITERATIONS} RFQs, ${tally.cancelled} cancelled (${tally.cancelledQuoted} with a quote), ${tally.filled} filled, ${Date.now() - started} ms`,
    );
  }, 240_000);
});
