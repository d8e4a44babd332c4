/**
 * Property test of the makers' limits (docs/spec/design.md sections 15 and 18) with competitive
 * RFQs, over the real API: a seeded random walk of competitive quotes (new, replaced, cancelled,
 * declined, accepted, short-lived ones expiring) and limit changes by one maker, beside seed quotes.
 * After every step rfq.maker.get_limits' count and notional equal a recomputation from the
 * database (seed quotes of quoted RFQs and live competitive quotes, not past their expires_at),
 * and right after every quote taken they are within the limits.
 * Seed: COMPETITION_PROPERTY_SEED; steps: 30 in `npm test`, 120 in `npm run test:long`.
 */
import { formatRfq, parseRfqSigned } from '@legwork/protocol';
import { Database } from '../../src/common/database/database';
import { Environment, type TestApp } from './harness';
import { type RfqTrader, type Round, clientRef, expirationIn, leg, listRound, rfqTrader, signedQuote, sleep, terms } from './rfq-support';
import { M, acceptParams, deposit, marketData, nextNonce, nowSeconds, waitForState } from './support/ledger';
import { repetitions } from './support/long';
import { prng } from './support/prng';

const SEED = Number(process.env.COMPETITION_PROPERTY_SEED ?? 20261128);
const STEPS = repetitions(30, 120);
const INDEX = 150n * M;

describe(`Maker limits property with competitive RFQs (seed ${SEED}, ${STEPS} steps)`, () => {
  let env: Environment;
  let app: TestApp;
  let round: Round;
  let taker: RfqTrader;
  let maker: RfqTrader;
  const rng = prng(SEED);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rng() * items.length)];
  let limits: Record<string, unknown> = {};
  const outcomes = { taken: 0, refused: 0, replaced: 0, cancelled: 0, filled: 0 };

  beforeAll(async () => {
    env = await Environment.create({
      MARKET_DATA_MAX_AGE_SECONDS: '3600',
      MAX_OPEN_RFQS: '1000',
      RFQ_RATE_PER_SECOND: '5000',
      RFQ_RATE_BURST: '5000',
      SWEEP_INTERVAL_MS: '500',
    });
    app = await env.start();
    round = await listRound(app, 'SOL', expirationIn(10));
    await marketData(app, 'SOL', formatRfq(INDEX));
    [taker, maker] = await Promise.all([rfqTrader(app, ['taker']), rfqTrader(app, ['quoter'])]);
    await deposit(app, taker.accountId, '10000000');
    await deposit(app, maker.accountId, '10000000');
  }, 120_000);
  afterAll(async () => {
    for (const t of [taker, maker]) await t?.client.close();
    await app?.close();
    await env?.destroy();
  });

  const sql = (text: string, params: unknown[] = []) => app.app.get(Database).dataSource.query(text, params);

  /** The maker's live quotes at `nowMs` (legs), independently of the server's code: seed quotes of quoted RFQs, and live competitive quotes. */
  const recompute = async (nowMs: number) => {
    const live: Array<{ legs: Array<{ quantity: string }> }> = await sql(
      `SELECT legs FROM rfqs WHERE maker_account_id = $1 AND state = 'quoted' AND quote_expires_at * 1000 > $2
       UNION ALL
       SELECT r.legs FROM competition_quotes q JOIN rfqs r ON r.id = q.rfq_id WHERE q.maker_account_id = $1 AND q.ending IS NULL AND q.expires_at * 1000 > $2`,
      [maker.accountId, nowMs],
    );
    let notional = 0n;
    for (const q of live)
      for (const l of q.legs) notional += (parseRfqSigned(l.quantity) < 0n ? -parseRfqSigned(l.quantity) : parseRfqSigned(l.quantity)) * INDEX;
    return { open_quotes: live.length, open_notional: formatRfq(notional / M) };
  };

  const usageMatches = async () => {
    const before = Date.now();
    const { usage } = await maker.client.result('rfq.maker.get_limits', {});
    const candidates = [await recompute(Math.floor(before / 1000) * 1000), await recompute(Math.floor(Date.now() / 1000) * 1000)];
    expect(candidates).toContainEqual({ open_quotes: usage.open_quotes, open_notional: usage.open_notional });
  };

  const quoteOn = async (rfq: any) => {
    const now = nowSeconds();
    const t = terms(nextNonce(), { bid: '1', ask: '3', issued_at: now, expires_at: now + (rng() < 0.3 ? 2 : 120) });
    const reply = await maker.client.call('rfq.maker.respond', signedQuote(maker.wallet, rfq, t, round.expiry).params);
    if (reply.error) {
      expect(reply.error.data.error).toBe('RFQ_OPEN_LIMIT');
      outcomes.refused += 1;
      return;
    }
    outcomes.taken += 1;
    const usage = await recompute(Date.now());
    if (typeof limits.max_open_quotes === 'number') expect(usage.open_quotes).toBeLessThanOrEqual(limits.max_open_quotes);
    if (typeof limits.max_open_notional === 'string') expect(parseRfqSigned(usage.open_notional)).toBeLessThanOrEqual(parseRfqSigned(limits.max_open_notional));
  };

  const create = (competitive: boolean) =>
    taker.client.result('rfq.create', {
      client_ref: clientRef(),
      legs: [leg(round.symbol(pick(['140', '150', '160'])), pick(['1', '-2', '0.5']))],
      ...(competitive ? { competition: pick([{}, { makers: [maker.wallet.address] }]) } : {}),
    });

  /** The maker's live competitive quotes and their RFQs. */
  const mine = (): Promise<Array<{ quote_id: string; rfq_id: string; expires_at: string }>> =>
    sql(`SELECT quote_id, rfq_id, expires_at::text FROM competition_quotes WHERE maker_account_id = $1 AND ending IS NULL AND expires_at > $2 ORDER BY id`, [
      maker.accountId,
      nowSeconds() + 1,
    ]);

  const step = async (r: number) => {
    const live = await mine();
    if (r < 0.35) await quoteOn(await create(rng() < 0.8));
    else if (r < 0.5 && live.length > 0) {
      const q = pick(live);
      await quoteOn((await sql(`SELECT id AS rfq_id, legs FROM rfqs WHERE id = $1`, [q.rfq_id]))[0]);
      outcomes.replaced += 1;
    } else if (r < 0.6 && live.length > 0) {
      await maker.client.result('rfq.maker.cancel_quote', { quote_id: pick(live).quote_id });
      outcomes.cancelled += 1;
    } else if (r < 0.67 && live.length > 0) {
      await maker.client.call('rfq.maker.decline', { rfq_id: pick(live).rfq_id, reason: 'size_limit' });
    } else if (r < 0.8 && live.length > 0) {
      const q = pick(live);
      const reply = await taker.client.call(
        'rfq.accept',
        acceptParams(
          taker.wallet,
          { rfqId: q.rfq_id, quoteId: q.quote_id, terms: { expires_at: Number(q.expires_at) } as never },
          pick(['buy', 'sell'] as const),
        ),
      );
      if (reply.result && (await waitForState(taker, q.rfq_id, ['filled', 'failed'])).state === 'filled') outcomes.filled += 1;
    } else if (r < 0.87) await sleep(2600);
    else {
      limits = {};
      if (rng() < 0.8) limits.max_open_quotes = 1 + Math.floor(rng() * 4);
      if (rng() < 0.5) limits.max_open_notional = formatRfq(BigInt(150 + Math.floor(rng() * 600)) * M);
      await maker.client.result('rfq.maker.set_limits', { limits });
    }
  };

  it('usage is the database’s after every step, and no taken quote passed a limit', async () => {
    for (let i = 0; i < STEPS; i++) {
      await step(rng());
      await usageMatches();
    }
    expect(outcomes.taken).toBeGreaterThan(0);
    expect(outcomes.replaced + outcomes.cancelled).toBeGreaterThan(0);
  }, 600_000);
});
