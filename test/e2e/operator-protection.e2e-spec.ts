import { Http } from './clients';
import { Environment, type TestApp } from './harness';
import { type RfqTrader, type Round, clientRef, expectRfqError, expirationIn, leg, listRound, rfqTrader, signedQuote, terms } from './rfq-support';
import { acceptParams, deposit, marketData, nextNonce, waitForState } from './support/ledger';

/**
 * docs/spec/design.md section 20, "The operator's protection binds": the admin ceiling's
 * `protection` is a floor of strictness the maker cannot loosen, a freeze it implies ends only by
 * time or the operator's reset route, and every trip and reset is an audit row.
 */
describe("the operator's protection binds (design.md section 20)", () => {
  let env: Environment;
  let app: TestApp;
  let admin: Http;
  let sol: Round;
  const closers: RfqTrader[] = [];

  beforeAll(async () => {
    env = await Environment.create({ MARKET_DATA_MAX_AGE_SECONDS: '3600', MAX_OPEN_RFQS: '1000', RFQ_RATE_PER_SECOND: '5000', RFQ_RATE_BURST: '5000' });
    app = await env.start();
    admin = new Http(app.url).admin();
    sol = await listRound(app, 'SOL', expirationIn(10));
    await marketData(app, 'SOL', '150', '0.8');
  }, 120_000);
  afterAll(async () => {
    for (const t of closers) await t.client.close();
    await app?.close();
    await env?.destroy();
  });

  /** A maker and a taker with money, the maker quoting, the taker filling. */
  async function pair(): Promise<{ m: RfqTrader; t: RfqTrader }> {
    const [m, t] = await Promise.all([rfqTrader(app, ['quoter']), rfqTrader(app, ['taker'])]);
    closers.push(m, t);
    await deposit(app, t.accountId, '100000');
    await deposit(app, m.accountId, '100000');
    return { m, t };
  }
  const quoteOne = async ({ m, t }: { m: RfqTrader; t: RfqTrader }) => {
    const rfq = await t.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1')] });
    const q = signedQuote(m.wallet, rfq, terms(nextNonce()), sol.expiry);
    return { rfq, q, reply: await m.client.call('rfq.maker.respond', q.params) };
  };
  const fill = async (p: { m: RfqTrader; t: RfqTrader }) => {
    const { rfq, q, reply } = await quoteOne(p);
    expect(reply.error).toBeUndefined();
    await p.t.client.result('rfq.accept', acceptParams(p.t.wallet, { rfqId: rfq.rfq_id, quoteId: q.quoteId, terms: q.params }, 'buy'));
    expect(await waitForState(p.t, rfq.rfq_id, ['filled', 'failed'])).toMatchObject({ state: 'filled' });
  };
  const frozen = async (m: RfqTrader) => {
    let view: any;
    for (let i = 0; i < 50 && !view?.protection.frozen; i++) view = await m.client.result('rfq.maker.get_limits', {});
    return view;
  };
  const auditRows = async (accountId: number) =>
    ((await admin.get('/v1/admin/audit?limit=100')).body.rows as any[]).filter(
      (r) => r.target?.account_id === String(accountId) && r.action.startsWith('maker-protection'),
    );

  it('the attack: the admin sets { max_fills: 1, frozen_seconds: 600 }, two fills freeze the maker; its reset and its own frozen_seconds 0 do not unfreeze it', async () => {
    const p = await pair();
    const put = await admin.put(`/v1/admin/accounts/${p.m.accountId}/maker-limits`, {
      limits: { protection: { window_seconds: 60, max_fills: 1, frozen_seconds: 600 } },
    });
    expect(put.status).toBe(200);
    // The maker's own protection "until reset" (frozen_seconds 0) does not make the operator's freeze its own to end.
    await p.m.client.result('rfq.maker.set_limits', { limits: { protection: { window_seconds: 1, max_fills: 100, frozen_seconds: 0 } } });
    await fill(p);
    await fill(p);
    const view = await frozen(p.m);
    expect(view.protection.frozen).toBe(true);

    const reset = await p.m.client.call('rfq.maker.reset_protection', {});
    expectRfqError(reset, 'RFQ_OPEN_LIMIT', false);
    expect(reset.error.data.reason).toBe('maker_protection');
    expect(reset.error.data.message).toMatch(/operator's protection/);
    const refused = await quoteOne(p);
    // Frozen with no end time (the maker's own frozen_seconds 0 is stricter): only the operator's reset
    // ends it, so retrying cannot help (design.md 19).
    expectRfqError(refused.reply, 'RFQ_OPEN_LIMIT', false);
    expect(refused.reply.error.data).toMatchObject({ reason: 'maker_protection' });
    expect(refused.reply.error.data.message).toMatch(/^maker protection: frozen/);

    // Loosening its own limits changes nothing either: the operator's fields are a floor.
    await p.m.client.result('rfq.maker.set_limits', { limits: {} });
    expectRfqError((await quoteOne(p)).reply, 'RFQ_OPEN_LIMIT', false); // still frozen with no end time: only the operator's reset ends it
    expect((await p.m.client.result('rfq.maker.get_limits', {})).protection.frozen).toBe(true);

    // The operator's reset ends it; the maker quotes again.
    const adminReset = await admin.post(`/v1/admin/accounts/${p.m.accountId}/reset-protection`);
    expect(adminReset.status).toBe(200);
    expect(adminReset.body).toMatchObject({ account_id: p.m.accountId, protection: { frozen: false, until: null } });
    expect((await quoteOne(p)).reply.error).toBeUndefined();

    // Every trip and every reset (the refused one too) is an audit row: actor, reason, the window's figures.
    const rows = await auditRows(p.m.accountId);
    const [byAdmin, refusedReset, trip] = rows;
    expect(trip).toMatchObject({
      action: 'maker-protection-trip',
      actor: { via: 'exchange', account_id: null },
      params: { reason: 'max_fills 1: 2 fills in 60 s', until: null, window: { fills: 2, notional: '300', delta: { SOL: expect.any(String) } } },
      status: 200,
    });
    expect(refusedReset).toMatchObject({
      action: 'maker-protection-reset',
      actor: { via: 'session', account_id: p.m.accountId },
      params: { refused: expect.stringMatching(/operator's protection/), trip_reason: 'max_fills 1: 2 fills in 60 s' },
      status: 409,
    });
    expect(byAdmin).toMatchObject({
      action: 'maker-protection-reset',
      actor: { via: 'admin_token' },
      params: { was_frozen: true, trip_reason: 'max_fills 1: 2 fills in 60 s', window: { fills: 0, notional: '0' } },
      status: 200,
    });
    // The admin command itself is recorded too, as every admin command.
    const commands = (await admin.get('/v1/admin/audit?action=reset-protection')).body.rows;
    expect(commands[0]).toMatchObject({ action: 'reset-protection', target: { account_id: String(p.m.accountId) }, status: 200 });
  }, 60_000);

  it("the admin's frozen_seconds 0 freezes until the operator's reset; the maker's reset is refused", async () => {
    const p = await pair();
    await admin.put(`/v1/admin/accounts/${p.m.accountId}/maker-limits`, { limits: { protection: { window_seconds: 60, max_fills: 0, frozen_seconds: 0 } } });
    await fill(p);
    expect((await frozen(p.m)).protection).toMatchObject({ frozen: true, until: null });
    const reset = await p.m.client.call('rfq.maker.reset_protection', {});
    expectRfqError(reset, 'RFQ_OPEN_LIMIT', false);
    expect(reset.error.data).toMatchObject({ reason: 'maker_protection', message: expect.stringMatching(/until the operator resets it/) });
    expect((await admin.post(`/v1/admin/accounts/${p.m.accountId}/reset-protection`)).status).toBe(200);
    expect((await quoteOne(p)).reply.error).toBeUndefined();
  }, 60_000);

  it("without an admin protection, section 15 holds: the maker's reset ends a freeze only when frozen_seconds is 0", async () => {
    const timed = await pair();
    await timed.m.client.result('rfq.maker.set_limits', { limits: { protection: { window_seconds: 60, max_fills: 0, frozen_seconds: 600 } } });
    await fill(timed);
    expect((await frozen(timed.m)).protection.frozen).toBe(true);
    const refused = await timed.m.client.call('rfq.maker.reset_protection', {});
    expectRfqError(refused, 'RFQ_OPEN_LIMIT', true);
    expect(refused.error.data).toMatchObject({ reason: 'maker_protection', message: expect.stringMatching(/ends by time/) });

    const untilReset = await pair();
    await untilReset.m.client.result('rfq.maker.set_limits', { limits: { protection: { window_seconds: 60, max_fills: 0, frozen_seconds: 0 } } });
    await fill(untilReset);
    expect((await frozen(untilReset.m)).protection).toMatchObject({ frozen: true, until: null });
    expect((await untilReset.m.client.result('rfq.maker.reset_protection', {})).protection.frozen).toBe(false);
    expect((await quoteOne(untilReset)).reply.error).toBeUndefined();
    const [reset] = await auditRows(untilReset.m.accountId);
    expect(reset).toMatchObject({ action: 'maker-protection-reset', actor: { via: 'session', account_id: untilReset.m.accountId }, status: 200 });
  }, 60_000);

  it('the reset route: admin only, 404 for an unknown account', async () => {
    const p = await pair();
    expect((await new Http(app.url).post(`/v1/admin/accounts/${p.m.accountId}/reset-protection`)).status).toBe(401);
    expect((await admin.post('/v1/admin/accounts/999999/reset-protection')).status).toBe(404);
  });
});
