import { verifyTranscript } from '@legwork/protocol';
import { Database } from '../../src/common/database/database';
import { Http } from './clients';
import { Environment, type TestApp } from './harness';
import { type Rows, appRows, expectInvariants } from './invariants';
import { type RfqTrader, type Round, clientRef, expectRfqError, expirationIn, leg, listRound, resumeWs, rfqTrader, signedQuote, terms } from './rfq-support';
import { acceptParams, deposit, marketData, sleep, waitForState } from './support/ledger';
import { repetitions } from './support/long';
import { prng } from './support/prng';

/** 200 rounds with 10 makers in `npm run test:long`; 8 rounds with 5 in `npm test`. */
const ROUNDS = repetitions(8, 200);
const MAKERS = repetitions(5, 10);
/** 200 in `npm run test:long`, 20 in `npm test`. */
const PAIRS = repetitions(20, 200);
const SEED = Number(process.env.RACE_SEED ?? 20261128);

/**
 * Competitive RFQs under real concurrency (docs/spec/design.md 18), each call on its own
 * connection: several makers quoting (and replacing) one RFQ while the taker accepts; a replace
 * and a cancel_quote racing the accept of the same quote. Exactly one fill per RFQ, every other
 * quote traded away or refused, the makers' limits usage back to nothing, the ledger's
 * invariants, and every transcript verifying and listing exactly the quotes taken, in order.
 */
describe(`competitive RFQ races: ${MAKERS} makers × ${ROUNDS} rounds, replace and cancel racing accept × ${PAIRS}`, () => {
  let env: Environment;
  let app: TestApp;
  let rows: Rows;
  let sol: Round;
  let taker: RfqTrader;
  let makers: RfqTrader[];
  let keys: any[];
  const nonces = new Map<number, number>();
  const random = prng(SEED);

  beforeAll(async () => {
    env = await Environment.create({ MARKET_DATA_MAX_AGE_SECONDS: '3600', RFQ_RATE_PER_SECOND: '100000', RFQ_RATE_BURST: '100000', MAX_OPEN_RFQS: '1000' });
    app = await env.start();
    rows = appRows(app);
    sol = await listRound(app, 'SOL', expirationIn(10));
    await marketData(app, 'SOL', '150');
    keys = (await new Http(app.url).get('/v1/exchange/keys')).body.keys;
    taker = await rfqTrader(app, ['taker']);
    await deposit(app, taker.accountId, '10000000');
    makers = await Promise.all(Array.from({ length: MAKERS }, () => rfqTrader(app, ['quoter'])));
    for (const [i, m] of makers.entries()) {
      await deposit(app, m.accountId, '10000000');
      // Half the makers under limits on what is out: their responds serialize on their limits row.
      if (i % 2 === 0) await m.client.result('rfq.maker.set_limits', { limits: { max_open_quotes: 3, max_open_notional: '100000' } });
    }
  });
  afterAll(async () => {
    for (const t of [taker, ...(makers ?? [])]) await t?.client.close();
    await app?.close();
    await env?.destroy();
  });

  const sql = (text: string, params: unknown[] = []) => app.app.get(Database).dataSource.query(text, params);
  const quote = (m: RfqTrader, rfq: any, ask: string) => {
    const n = (nonces.get(m.accountId) ?? 0) + 1;
    nonces.set(m.accountId, n);
    const bid = (Number(ask) - 1).toFixed(2);
    return signedQuote(m.wallet, rfq, terms(n, { bid, ask }), sol.expiry);
  };
  const create = () => taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1')], competition: {} });

  /** The transcript verifies and lists exactly the quotes taken (`taken`, by quote id), in the order received, each with its end. */
  async function expectTranscript(rfqId: string, taken: string[], accepted: string | null) {
    const t = await taker.client.result('rfq.transcript', { rfq_id: rfqId });
    expect(verifyTranscript(t, keys)).toMatchObject({ ok: true });
    const listed = t.transcript.quotes;
    expect([...listed.map((q: any) => q.quote_id)].sort()).toEqual([...taken].sort());
    const received = listed.map((q: any) => q.received_at_ms);
    expect(received).toEqual([...received].sort((a: number, b: number) => a - b));
    for (const q of listed) expect(q.end === 'accepted').toBe(q.quote_id === accepted);
    expect(t.transcript.accepted?.quote_id ?? null).toBe(accepted);
    return listed;
  }

  /** Every maker's limits usage is back to nothing: no live quote anywhere. */
  async function expectNoUsage() {
    for (const m of makers) expect((await m.client.result('rfq.maker.get_limits', {})).usage).toMatchObject({ open_quotes: 0, open_notional: '0' });
  }

  it('makers quote and replace one RFQ while the taker accepts: one fill, the others traded away or refused', async () => {
    const acceptor = await resumeWs(app, taker.wallet, taker.accountId, ['taker']);
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const rfq = await create();
        const first = makers.map((m) => quote(m, rfq, (2 + random()).toFixed(2)));
        const firstReplies = await Promise.all(makers.map((m, i) => m.client.call('rfq.maker.respond', first[i].params)));
        const taken = first.filter((_, i) => firstReplies[i].result).map((q) => q.quoteId);
        const view = await taker.client.result('rfq.get', { rfq_id: rfq.rfq_id });
        const target = view.best.ask as string;
        const targetQuote = first.find((q) => q.quoteId === target)!;
        // Every maker replaces at once while the taker accepts the best ask it saw.
        const second = makers.map((m) => quote(m, rfq, (2 + random()).toFixed(2)));
        const [accept, ...replies] = await Promise.all([
          sleep(Math.floor(random() * 5)).then(() =>
            acceptor.call('rfq.accept', acceptParams(taker.wallet, { rfqId: rfq.rfq_id, quoteId: target, terms: targetQuote.params }, 'buy')),
          ),
          ...makers.map((m, i) => m.client.call('rfq.maker.respond', second[i].params)),
        ]);
        taken.push(...second.filter((_, i) => replies[i].result).map((q) => q.quoteId));
        for (const r of replies) if (r.error) expectRfqError(r, 'RFQ_STATE_CONFLICT');
        const final = await waitForState({ ...taker, client: acceptor }, rfq.rfq_id, accept.result ? ['filled', 'failed'] : ['quoted']);
        if (accept.result) {
          expect(accept.result).toEqual({ rfq_id: rfq.rfq_id, quote_id: target, side: 'buy', state: 'accepted', best: expect.any(Boolean) });
          expect(final).toMatchObject({ state: 'filled', quote: { quote_id: target }, quotes: [] });
          const listed = await expectTranscript(rfq.rfq_id, taken, target);
          for (const q of listed) expect(['accepted', 'traded_away', 'replaced']).toContain(q.end);
        } else {
          // The target's maker replaced it first: the accept found it ended.
          expectRfqError(accept, 'RFQ_QUOTE_EXPIRED');
          await taker.client.result('rfq.cancel', { rfq_id: rfq.rfq_id });
          await expectTranscript(rfq.rfq_id, taken, null);
        }
        expect(await sql(`SELECT count(*)::int AS n FROM fills WHERE rfq_id = $1`, [rfq.rfq_id])).toEqual([{ n: accept.result ? 1 : 0 }]);
      }
      await expectNoUsage();
      await expectInvariants(rows);
    } finally {
      await acceptor.close();
    }
  }, 900_000);

  /** One quote of `maker` on a fresh RFQ, then `race` against the taker's accept of it; what each saw. */
  async function raceOnOneQuote(maker: RfqTrader, race: (rfq: any, q: ReturnType<typeof quote>) => Promise<any>, acceptor: any) {
    const rfq = await create();
    const q = quote(maker, rfq, '2.5');
    await maker.client.result('rfq.maker.respond', q.params);
    const accept = acceptParams(taker.wallet, { rfqId: rfq.rfq_id, quoteId: q.quoteId, terms: q.params }, 'sell');
    const [accepted, raced] = await Promise.all([
      sleep(Math.floor(random() * 6)).then(() => acceptor.call('rfq.accept', accept)),
      sleep(Math.floor(random() * 6)).then(() => race(rfq, q)),
    ]);
    return { rfq, q, accepted, raced };
  }

  it('a replace racing the accept of the same quote: the accept fills the old quote and the replace fails, or the accept is RFQ_QUOTE_EXPIRED; never both', async () => {
    const acceptor = await resumeWs(app, taker.wallet, taker.accountId, ['taker']);
    const tally = { accepted: 0, replaced: 0 };
    try {
      for (let i = 0; i < PAIRS; i++) {
        const maker = makers[i % makers.length];
        let replacement = '';
        const { rfq, q, accepted, raced } = await raceOnOneQuote(
          maker,
          (r) => {
            const next = quote(maker, r, '2.4');
            replacement = next.quoteId;
            return maker.client.call('rfq.maker.respond', next.params);
          },
          acceptor,
        );
        expect([accepted.result, raced.result].filter(Boolean)).toHaveLength(1);
        if (accepted.result) {
          tally.accepted++;
          expectRfqError(raced, 'RFQ_STATE_CONFLICT');
          expect(await waitForState({ ...taker, client: acceptor }, rfq.rfq_id, ['filled'])).toMatchObject({ quote: { quote_id: q.quoteId } });
          await expectTranscript(rfq.rfq_id, [q.quoteId], q.quoteId);
        } else {
          tally.replaced++;
          expectRfqError(accepted, 'RFQ_QUOTE_EXPIRED');
          await taker.client.result('rfq.cancel', { rfq_id: rfq.rfq_id });
          const listed = await expectTranscript(rfq.rfq_id, [q.quoteId, replacement], null);
          expect(listed.map((x: any) => x.end)).toEqual(['replaced', 'expired']);
        }
      }
    } finally {
      await acceptor.close();
    }
    expect(tally.accepted + tally.replaced).toBe(PAIRS);
    await expectNoUsage();
    await expectInvariants(rows);
  }, 900_000);

  it('a cancel_quote racing the accept of the same quote: exactly one of them goes through', async () => {
    const acceptor = await resumeWs(app, taker.wallet, taker.accountId, ['taker']);
    try {
      for (let i = 0; i < PAIRS; i++) {
        const maker = makers[i % makers.length];
        const { rfq, q, accepted, raced } = await raceOnOneQuote(
          maker,
          (_r, mine) => maker.client.call('rfq.maker.cancel_quote', { quote_id: mine.quoteId }),
          acceptor,
        );
        expect([accepted.result, raced.result].filter(Boolean)).toHaveLength(1);
        if (accepted.result) {
          expectRfqError(raced, 'RFQ_STATE_CONFLICT');
          await waitForState({ ...taker, client: acceptor }, rfq.rfq_id, ['filled']);
          await expectTranscript(rfq.rfq_id, [q.quoteId], q.quoteId);
        } else {
          expect(raced.result).toEqual({ quote_id: q.quoteId, state: 'cancelled' });
          expectRfqError(accepted, 'RFQ_QUOTE_EXPIRED');
          expect(await taker.client.result('rfq.get', { rfq_id: rfq.rfq_id })).toMatchObject({ state: 'pending', quotes: [] });
          await taker.client.result('rfq.cancel', { rfq_id: rfq.rfq_id });
          await expectTranscript(rfq.rfq_id, [q.quoteId], null);
        }
      }
    } finally {
      await acceptor.close();
    }
    await expectNoUsage();
    await expectInvariants(rows);
  }, 900_000);
});
