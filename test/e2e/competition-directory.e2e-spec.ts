import { Environment, type TestApp } from './harness';
import { type RfqTrader, type Round, clientRef, expectRfqError, expirationIn, leg, listRound, on, rfqTrader, signedQuote, terms } from './rfq-support';
import { acceptParams, deposit, marketData, waitForState } from './support/ledger';

const ZERO = { rfqs: 0, quoted: 0, median_response_ms: null, cancelled: 0, replaced: 0, won: 0 };

/**
 * The makers directory (docs/spec/design.md 18 "Choosing a panel"): rfq.makers to takers, the
 * listed makers with their names and stats; rfq.maker.stats to a maker, its own. Run on each
 * database (embedded by default, PostgreSQL with DATABASE_URL).
 */
describe('the makers directory and its stats', () => {
  let env: Environment;
  let app: TestApp;
  let sol: Round;
  let taker: RfqTrader;
  let alpha: RfqTrader, beta: RfqTrader, gamma: RfqTrader;
  const nonces = new Map<number, number>();

  beforeAll(async () => {
    env = await Environment.create({ MARKET_DATA_MAX_AGE_SECONDS: '3600' });
    app = await env.start();
    sol = await listRound(app, 'SOL', expirationIn(10));
    await marketData(app, 'SOL', '150');
    taker = await rfqTrader(app, ['taker']);
    await deposit(app, taker.accountId, '100000');
    [alpha, beta, gamma] = await Promise.all([0, 1, 2].map(() => rfqTrader(app, ['quoter'])));
    for (const m of [alpha, beta, gamma]) {
      await deposit(app, m.accountId, '1000000');
      await m.client.result('rfq.maker.subscribe', {});
    }
  });
  afterAll(async () => {
    for (const t of [taker, alpha, beta, gamma]) await t?.client.close();
    await app?.close();
    await env?.destroy();
  });

  const quote = (m: RfqTrader, rfq: any, bid: string, ask: string, changes = {}) => {
    const n = (nonces.get(m.accountId) ?? 0) + 1;
    nonces.set(m.accountId, n);
    return signedQuote(m.wallet, rfq, terms(n, { bid, ask, ...changes }), sol.expiry);
  };
  const respond = (m: RfqTrader, q: { params: unknown }) => m.client.result('rfq.maker.respond', q.params);
  const create = (panel?: RfqTrader[]) =>
    taker.client.result('rfq.create', {
      client_ref: clientRef(),
      legs: [leg(sol.symbol('150'), '1')],
      competition: panel ? { makers: panel.map((m) => m.wallet.address) } : {},
    });

  it('lists the listed makers only, by wallet, with their names; unlisting takes a maker out', async () => {
    expect(await taker.client.result('rfq.makers', {})).toEqual({ makers: [] });
    await alpha.client.result('rfq.maker.set_profile', { listed: true, name: 'Alpha Desk' });
    await beta.client.result('rfq.maker.set_profile', { listed: true });
    await gamma.client.result('rfq.maker.set_profile', { name: 'Gamma' });
    const listed = [alpha, beta].sort((x, y) => (x.wallet.address < y.wallet.address ? -1 : 1));
    const names = new Map([
      [alpha.wallet.address, 'Alpha Desk'],
      [beta.wallet.address, null],
    ]);
    expect(await taker.client.result('rfq.makers', {})).toEqual({
      makers: listed.map((m) => ({ wallet: m.wallet.address, name: names.get(m.wallet.address), stats: ZERO })),
    });
    await beta.client.result('rfq.maker.set_profile', { listed: false });
    expect((await taker.client.result('rfq.makers', {})).makers.map((m: any) => m.wallet)).toEqual([alpha.wallet.address]);
    await beta.client.result('rfq.maker.set_profile', { listed: true });
  });

  it('access: a maker may not read the directory, a taker has no maker stats', async () => {
    expectRfqError(await alpha.client.call('rfq.makers', {}), 'RFQ_WRONG_ROLE');
    expectRfqError(await taker.client.call('rfq.maker.stats', {}), 'RFQ_WRONG_ROLE');
  });

  it('counts what reached each maker: quotes, replaces, cancels, declines, an accept and an expiry', async () => {
    const started = Date.now();
    // A panel of alpha and beta: alpha quotes and replaces, beta quotes and wins.
    const one = await create([alpha, beta]);
    await respond(alpha, quote(alpha, one, '1', '3'));
    const alphaAgain = quote(alpha, one, '1.1', '2.9');
    await respond(alpha, alphaAgain);
    const won = quote(beta, one, '1.2', '2.5');
    await respond(beta, won);
    await taker.client.result('rfq.accept', acceptParams(taker.wallet, { rfqId: one.rfq_id, quoteId: won.quoteId, terms: won.params }, 'buy'));
    await alpha.client.next(on('rfq_maker', 'traded_away', one.rfq_id));
    await waitForState(taker, one.rfq_id, ['filled', 'failed']);
    // No panel (every quoter): alpha quotes then withdraws it, beta declines, the taker cancels.
    const two = await create();
    const withdrawn = quote(alpha, two, '1', '2');
    await respond(alpha, withdrawn);
    await alpha.client.result('rfq.maker.cancel_quote', { quote_id: withdrawn.quoteId });
    await beta.client.result('rfq.maker.decline', { rfq_id: two.rfq_id, reason: 'size_limit' });
    await taker.client.result('rfq.cancel', { rfq_id: two.rfq_id });
    // Alpha alone declines: the RFQ is declined.
    const three = await create([alpha]);
    await alpha.client.result('rfq.maker.decline', { rfq_id: three.rfq_id, reason: 'stale_data' });
    // Beta and gamma: beta's quote ends at its own time (not a cancel).
    const four = await create([beta, gamma]);
    const now = Math.floor(Date.now() / 1000);
    await respond(beta, quote(beta, four, '1', '2', { issued_at: now, expires_at: now + 2 }));
    await beta.client.next(on('rfq_maker', 'expired', four.rfq_id), 8000);
    await taker.client.result('rfq.cancel', { rfq_id: four.rfq_id });
    // Gamma alone: alpha and beta never hear of it.
    await create([gamma]);
    const elapsed = Date.now() - started;

    const alphaStats = await alpha.client.result('rfq.maker.stats', {});
    expect(alphaStats).toEqual({ rfqs: 3, quoted: 2, median_response_ms: expect.any(Number), cancelled: 1, replaced: 1, won: 0 });
    expect(alphaStats.median_response_ms).toBeGreaterThanOrEqual(0);
    expect(alphaStats.median_response_ms).toBeLessThan(elapsed);
    const betaStats = await beta.client.result('rfq.maker.stats', {});
    expect(betaStats).toEqual({ rfqs: 3, quoted: 2, median_response_ms: expect.any(Number), cancelled: 0, replaced: 0, won: 1 });
    expect(await gamma.client.result('rfq.maker.stats', {})).toEqual({ ...ZERO, rfqs: 3 });

    // The directory shows the listed makers' stats as each sees its own; gamma (unlisted) is not in it.
    const directory = (await taker.client.result('rfq.makers', {})).makers;
    expect(Object.fromEntries(directory.map((m: any) => [m.wallet, m.stats]))).toEqual({
      [alpha.wallet.address]: alphaStats,
      [beta.wallet.address]: betaStats,
    });
  }, 30_000);

  it('a maker sees only its own stats: the method takes no account, and other params are refused', async () => {
    const alphaStats = await alpha.client.result('rfq.maker.stats', {});
    const betaStats = await beta.client.result('rfq.maker.stats', {});
    expect(alphaStats).not.toEqual(betaStats);
    const reply = await alpha.client.call('rfq.maker.stats', { wallet: beta.wallet.address });
    expect(reply.error).toBeDefined();
    expect(JSON.stringify(reply)).not.toContain(JSON.stringify(betaStats));
  });
});
