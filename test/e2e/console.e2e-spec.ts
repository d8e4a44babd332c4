/// <reference lib="dom" />
/**
 * The operator console (docs/console.md) in a real headless Chromium against the real app
 * (PostgreSQL and Redis when DATABASE_URL / REDIS_URL are set): sign-in, rounds (pause, market
 * data), accounts (create, deposit, payoff chart), a fill made by SDK clients appearing live, a
 * revert, axe-core, and the rule that the console calls only documented routes. One browser for
 * the whole file; the steps run in order on one page. The served bundle, the wallet sign-ins and
 * the JSON-RPC reference page are console-entry.e2e-spec.ts.
 */
import type { Browser, Page } from 'puppeteer-core';
import { Database } from '../../src/common/database/database';
import type { LegworkClient } from '../../sdk/src';
import { ENDPOINTS } from '../../console/src/endpoints';
import { trimDecimal } from '../../console/src/money';
import { Http, TestWallet } from './clients';
import { buildConsole, closeBrowser, hasChromium, launch, screenshot, seriousViolations } from './console/browser';
import { sdkFill as fillBySdk } from './console/sdk-fill';
import { signInHttp } from './factories';
import { ADMIN_TOKEN, Environment, type TestApp } from './harness';
import { clientRef, expectRfqError, leg, listRound, rfqTrader, type Round, sessionToken } from './rfq-support';

const sessionFor = (wallet: string, accountId: number) => sessionToken(wallet, accountId, ['taker']);

const DAY = 86_400;
const now = () => Math.floor(Date.now() / 1000);
const describeBrowser = hasChromium ? describe : describe.skip;
if (!hasChromium) console.warn('SKIPPED: the console browser tests need Debian chromium at /usr/bin/chromium (apt-get install -y chromium)');

describeBrowser('operator console at /console, in headless Chromium', () => {
  let env: Environment;
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let sol: Round;
  let eth: Round;
  let btcExpiry: number;
  const clients: LegworkClient[] = [];
  const cspViolations: string[] = [];
  const axe: Record<string, string[]> = {};
  let takerAccountId: number;
  let filledRfqId: string;

  const goto = async (hash: string) => {
    await page.evaluate((h) => (location.hash = h), hash);
    await page.waitForSelector(`main[data-page="${hash.replace('#/', '')}"]`);
  };
  const textOf = (selector: string) => page.$eval(selector, (el) => el.textContent ?? '');
  const waitText = (selector: string, text: string, timeout = 10_000) =>
    page.waitForFunction((s, t) => [...document.querySelectorAll(s)].some((el) => (el.textContent ?? '').includes(t)), { timeout }, selector, text);
  const sql = (text: string, params: unknown[] = []) => app.app.get(Database).rows<Record<string, unknown>>(text, params);
  const confirmDialog = async () => {
    await page.waitForSelector('[role="dialog"] [data-testid="confirm"]');
    await page.click('[role="dialog"] [data-testid="confirm"]');
    await page.waitForSelector('[role="dialog"]', { hidden: true });
  };

  /** A fill made by SDK clients on the SOL round (console/sdk-fill.ts); their clients are closed after the file. */
  const sdkFill = (legs: Array<{ instrument: string; quantity: string }>, makerDeposit: string, onCreated?: (rfqId: string) => Promise<void>) =>
    fillBySdk(app, sol.expiry, clients, legs, makerDeposit, onCreated);

  beforeAll(async () => {
    buildConsole();
    env = await Environment.create();
    app = await env.start();
    const admin = new Http(app.url).admin();
    sol = await listRound(app, 'SOL', (Math.floor(now() / DAY) + 7) * DAY + 8 * 3600, ['140', '150', '160']);
    eth = await listRound(app, 'ETH', (Math.floor(now() / DAY) + 14) * DAY + 8 * 3600, ['2900', '3000']);
    btcExpiry = (Math.floor(now() / DAY) + 21) * DAY + 8 * 3600;
    await listRound(app, 'BTC', btcExpiry, ['90000']);
    for (const asset of ['SOL', 'ETH', 'BTC'])
      expect((await admin.post('/v1/admin/market-data', { asset, index_price: asset === 'SOL' ? '150' : '3000', iv: '0.8' })).status).toBe(200);
    browser = await launch();
    page = await browser.newPage();
    page.on('console', (message) => {
      if (/Content[- ]Security[- ]Policy/i.test(message.text())) cspViolations.push(message.text());
    });
  }, 60_000);

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await closeBrowser(browser);
    await app?.close();
    await env?.destroy();
  }, 120_000); // the app's close reports itself when slow (TestApp.close)

  it('signs in with the admin token (a wrong one is refused) and shows the overview', async () => {
    await page.goto(`${app.url}/console/`);
    await page.type('input[name="admin_token"]', 'not-the-token');
    await page.click('form button[type="submit"]');
    await waitText('[role="alert"]', '401');
    await page.$eval('input[name="admin_token"]', (el) => (el.value = ''));
    await page.type('input[name="admin_token"]', ADMIN_TOKEN);
    await page.click('form button[type="submit"]');
    await page.waitForSelector('main[data-page="overview"]');
    await page.waitForSelector('[data-testid="health"]');
    const health = await textOf('[data-testid="health"]');
    expect(health).toContain(process.env.DATABASE_URL ? 'up' : 'embedded');
    expect(health).toContain(process.env.REDIS_URL ? 'up' : 'in-process');
    await page.waitForSelector('[data-testid="rfq-states"] tr[data-state="pending"]');
    await page.waitForSelector('.chart canvas');
    axe.overview = await seriousViolations(page);
  }, 30_000);

  it('rounds: pauses a round with a confirmation, shows it paused, and rfq.create on it is refused', async () => {
    await goto('#/rounds');
    const id = `${eth.asset}-${eth.expiry}`;
    await page.waitForSelector(`[data-testid="state-${id}"]`);
    expect(await textOf(`[data-testid="state-${id}"]`)).toBe('trading');
    await page.click(`li[data-round="${id}"] .row button:not(.link):not(.danger)`);
    await confirmDialog();
    await waitText(`[data-testid="state-${id}"]`, 'paused');
    // The server agrees: an RFQ on the paused round is refused.
    const taker = await rfqTrader(app, ['taker']);
    const reply = await taker.client.call('rfq.create', { client_ref: clientRef(), legs: [leg(eth.symbol('3000'), '1')] });
    expectRfqError(reply, 'RFQ_INVALID_INSTRUMENT', true);
    await taker.client.close();
    // Strikes of the round open under it.
    await page.click(`li[data-round="${id}"] button.link`);
    await waitText(`li[data-round="${id}"] table.strikes`, `${eth.symbol('3000')} (paused)`);
  }, 30_000);

  it('rounds: stale market data is shown stale; posting market data resets the age', async () => {
    // BTC's price made an hour old in the database (what a stopped feed leaves behind).
    await sql(`UPDATE index_prices SET updated_at = now() - interval '1 hour' WHERE asset = 'BTC'`);
    await waitText('[data-testid="age-BTC"]', 'stale');
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="age-ETH"]')?.getAttribute('data-age')) >= 2, { timeout: 10_000 });
    await page.type('form[aria-label="Post market data"] input[name="asset"]', 'ETH');
    await page.type('form[aria-label="Post market data"] input[name="index_price"]', '3010.5');
    await page.click('form[aria-label="Post market data"] button[type="submit"]');
    await waitText('[data-testid="notice"]', 'Market data of ETH posted');
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="age-ETH"]')?.getAttribute('data-age')) <= 1, { timeout: 5000 });
    await waitText('tr[data-asset="ETH"]', '3010.5');
    axe.rounds = await seriousViolations(page);
    await screenshot(page, 'rounds');
  }, 30_000);

  it('rounds: settle asks first; with the index stale the server refuses and the console says why; with a fresh one the round shows settled', async () => {
    const id = `BTC-${btcExpiry}`;
    const settle = async () => {
      await page.click(`li[data-round="${id}"] button.danger`);
      // The dialog renders after the click's handler: wait for it rather than read at once.
      await waitText('[role="dialog"]', 'cannot be undone', 5000);
      await confirmDialog();
    };
    await settle();
    await waitText('[data-testid="notice"]', 'no fresh index price for BTC');
    expect(await textOf(`[data-testid="state-${id}"]`)).toBe('trading');
    await page.$eval('form[aria-label="Post market data"]', (form) => form.reset());
    await page.type('form[aria-label="Post market data"] input[name="asset"]', 'BTC');
    await page.type('form[aria-label="Post market data"] input[name="index_price"]', '91000');
    await page.click('form[aria-label="Post market data"] button[type="submit"]');
    await waitText('[data-testid="notice"]', 'Market data of BTC posted');
    await settle();
    await waitText(`[data-testid="state-${id}"]`, 'settled');
    const listed = (await new Http(app.url).get(`/v1/instruments?asset=BTC&include_settled=true`)).body.instruments;
    expect(listed.map((i: { settled: boolean; settlement_price: string }) => [i.settled, i.settlement_price])).toEqual([
      [true, '91000'],
      [true, '91000'],
    ]);
  }, 20_000);

  it('accounts: creates an account and deposits to it', async () => {
    await goto('#/accounts');
    const wallet = new TestWallet();
    await page.type('form[aria-label="Create an account"] input[name="wallet"]', wallet.address);
    await page.click('form[aria-label="Create an account"] input[name="role-quoter"]');
    await page.click('form[aria-label="Create an account"] button[type="submit"]');
    await waitText('[data-testid="notice"]', 'created');
    await page.waitForSelector('[data-testid="account"]');
    expect(await textOf('[data-testid="account"]')).toContain(wallet.address);
    await page.type('form[aria-label="Deposit"] input[name="amount"]', '1250.75');
    await page.click('form[aria-label="Deposit"] button[type="submit"]');
    await waitText('[data-testid="balance-total"]', '1250.75');
    // The server agrees.
    const found = await new Http(app.url).admin().get(`/v1/admin/accounts?wallet=${wallet.address}`);
    expect(found.body.accounts).toEqual([expect.objectContaining({ wallet: wallet.address, roles: ['taker', 'quoter'] })]);
    const account = await new Http(app.url).admin().get(`/v1/admin/accounts/${found.body.accounts[0].account_id}`);
    expect(account.body.balance.total).toBe('1250.75000000');

    // Found again by its wallet; a withdrawal; roles changed after a confirmation.
    await page.$eval('form[aria-label="Find an account"] input[name="q"]', (el) => (el.value = ''));
    await page.type('form[aria-label="Find an account"] input[name="q"]', wallet.address);
    await page.click('form[aria-label="Find an account"] button[type="submit"]');
    await waitText('[data-testid="account"]', wallet.address);
    await page.type('form[aria-label="Withdraw"] input[name="amount"]', '250.75');
    await page.click('form[aria-label="Withdraw"] button[type="submit"]');
    await waitText('[data-testid="balance-total"]', '1000');
    await page.click('form[aria-label="Roles"] input[name="set-taker"]'); // off
    await page.click('form[aria-label="Roles"] button[type="submit"]');
    await confirmDialog();
    await page.waitForFunction(
      (id) =>
        fetch(`/v1/admin/accounts/${id}`, { headers: { authorization: `Bearer ${sessionStorage.getItem('legwork.console.token')}` } })
          .then((r) => r.json())
          .then((a) => a.roles.join() === 'quoter'),
      { timeout: 5000 },
      found.body.accounts[0].account_id,
    );
    const after = await new Http(app.url).admin().get(`/v1/admin/accounts/${found.body.accounts[0].account_id}`);
    expect([after.body.roles, after.body.balance.total]).toEqual([['quoter'], '1000.00000000']);

    // Revoke sessions, after a confirmation: a session the wallet held before is refused from then on.
    const session = await signInHttp(app, wallet);
    expect((await session.http.get('/query/balances')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1100)); // revoked_at is in whole seconds: the token must be older
    await page.click('form[aria-label="Roles"] button.danger');
    await waitText('[role="dialog"]', 'Revoke the sessions', 5000);
    await confirmDialog();
    await waitText('[data-testid="notice"]', 'Revoke the sessions of account');
    expect(await textOf('[data-testid="notice"]')).toContain('done');
    expect((await session.http.get('/query/balances')).status).toBe(401);
  }, 30_000);

  it('rounds: lists a new round from the form', async () => {
    await goto('#/rounds');
    await page.type('form[aria-label="List instruments"] input[name="asset"]', 'AVAX');
    const date = new Date((Math.floor(now() / DAY) + 30) * DAY * 1000).toISOString().slice(0, 10);
    await page.$eval('form[aria-label="List instruments"] input[name="date"]', (el, d) => (el.value = d), date);
    await page.type('form[aria-label="List instruments"] input[name="spot"]', '20');
    await page.type('form[aria-label="List instruments"] input[name="strikes"]', '18, 20, 22');
    await page.click('form[aria-label="List instruments"] button[type="submit"]');
    await waitText('[data-testid="notice"]', 'Listed 6 instruments of AVAX');
    const expiry = Date.parse(`${date}T08:00:00Z`) / 1000;
    await waitText(`[data-testid="state-AVAX-${expiry}"]`, 'trading');
  }, 20_000);

  it('RFQs: a fill made by SDK clients appears live, with its events; accounts: the payoff chart of its positions', async () => {
    await goto('#/rfqs');
    await page.waitForSelector('[data-testid="rfq-table"]');
    const { rfq, taker, started } = await sdkFill([leg(sol.symbol('150'), '10'), leg(sol.symbol('160'), '-10')], '10000', async (rfqId) => {
      // The console shows it pending before any quote.
      await page.waitForSelector(`tr[data-rfq="${rfqId}"]`, { timeout: 5000 });
    });
    takerAccountId = taker.accountId;
    filledRfqId = rfq.rfq_id;
    await page.waitForSelector(`tr[data-rfq="${rfq.rfq_id}"][data-state="filled"]`, { timeout: 10_000 });
    console.log(`console: the fill showed in the RFQ table ${Date.now() - started} ms after rfq.accept was sent`);
    await page.click(`tr[data-rfq="${rfq.rfq_id}"] button.link`);
    await waitText('[data-testid="rfq-events"]', 'filled');
    const events = await textOf('[data-testid="rfq-events"]');
    expect(events.indexOf('quoted')).toBeLessThan(events.indexOf('filled'));
    axe.rfqs = await seriousViolations(page);
    await screenshot(page, 'rfqs');

    await goto('#/accounts');
    await page.type('form[aria-label="Find an account"] input[name="q"]', String(takerAccountId));
    await page.click('form[aria-label="Find an account"] button[type="submit"]');
    const payoff = `[data-testid="payoff-SOL-${sol.expiry}"]`;
    await page.waitForSelector(`${payoff} canvas`, { timeout: 10_000 });
    // A drawn line: the canvas has non-blank pixels.
    const inked = await page.$eval(`${payoff} canvas`, (canvas) => {
      const c = canvas;
      const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i] > 0) n++;
      return n;
    });
    expect(inked).toBeGreaterThan(500);
    await waitText('[data-testid="fills"]', 'buy');
    // The fill's receipt, checked in the browser (hash, ed25519 signature, published key, this fill).
    await waitText('[data-testid="fills"]', 'verified');
    expect(await page.$$('[data-testid="receipt-bad"]')).toHaveLength(0);
    axe.accounts = await seriousViolations(page);
    await screenshot(page, 'accounts');
  }, 60_000);

  it('RFQs: reverts a fill after a confirmation', async () => {
    await goto('#/rfqs');
    await page.waitForSelector(`tr[data-rfq="${filledRfqId}"] button.danger`);
    await page.click(`tr[data-rfq="${filledRfqId}"] button.danger`);
    await confirmDialog();
    await page.waitForSelector(`tr[data-rfq="${filledRfqId}"][data-state="failed"]`, { timeout: 5000 });
    expect(await textOf(`tr[data-rfq="${filledRfqId}"]`)).toContain('(reverted)');
  }, 20_000);

  it('journal: the head, and a verify in the browser that passes, then names the link a rewrite broke', async () => {
    await goto('#/risk');
    await page.waitForSelector('[data-testid="journal-head"]');
    expect(await textOf('[data-testid="journal-head"]')).toMatch(/^Head2/); // the fill and its revert
    await page.click('[data-testid="verify-journal"]');
    await waitText('[data-testid="journal-verdict"]', 'Verified: 2 receipts');
    // Rewrite history: the verify names the link that broke.
    const [row] = await sql(`SELECT prev_hash FROM receipts WHERE journal_seq = 2`);
    await sql(`UPDATE receipts SET prev_hash = $1 WHERE journal_seq = 2`, ['f'.repeat(64)]);
    try {
      await page.click('[data-testid="verify-journal"]');
      await waitText('[data-testid="journal-verdict"]', `Broken after 1 receipts: prev_hash ${'f'.repeat(64)} is not the hash`);
    } finally {
      await sql(`UPDATE receipts SET prev_hash = $1 WHERE journal_seq = 2`, [row.prev_hash]);
    }
  }, 20_000);

  it('the admin reads behind it: admin only, typed 400s for bad input, and the counts of what just happened', async () => {
    const anonymous = new Http(app.url);
    const admin = anonymous.admin();
    for (const path of ['/v1/admin/overview', '/v1/admin/rfqs', '/v1/admin/market-data', `/v1/admin/rfqs/${filledRfqId}/events`])
      expect((await anonymous.get(path)).status).toBe(401);
    const taker = await rfqTrader(app, ['taker']);
    expect((await new Http(app.url).as(sessionFor(taker.wallet.address, taker.accountId)).get('/v1/admin/overview')).status).toBe(403);
    await taker.client.close();
    for (const [path, message] of [
      ['/v1/admin/rfqs?state=open', 'state'],
      ['/v1/admin/rfqs?limit=0', 'limit'],
      ['/v1/admin/rfqs?limit=201', 'limit'],
      ['/v1/admin/rfqs?before=XYZ', 'before'],
      ['/v1/admin/rfqs?colour=red', 'colour'],
      ['/v1/admin/rfqs/not-an-id/events', 'rfq_id'],
      ['/v1/admin/accounts?wallet=0OIl', 'wallet'],
      ['/v1/admin/accounts', 'wallet'],
    ]) {
      const res = await admin.get(path);
      expect([path, res.status]).toEqual([path, 400]);
      expect(res.body.error).toContain(message);
    }
    expect((await admin.get(`/v1/admin/rfqs/${'0'.repeat(32)}/events`)).status).toBe(404);
    const overview = (await admin.get('/v1/admin/overview')).body;
    expect(overview.rfqs_by_state).toMatchObject({ failed: 1, filled: 0 }); // the fill reverted above
    expect(overview.fills_per_minute).toHaveLength(30);
    expect(overview.fills_per_minute.reduce((n: number, p: { fills: number }) => n + p.fills, 0)).toBe(1); // reverted fills still count as fills made
    expect(Object.keys(overview.queues).sort()).toEqual(['rfq-expiry', 'rfq-fill', 'settlement']);
    const page1 = (await admin.get('/v1/admin/rfqs?limit=1')).body.rfqs;
    expect(page1).toEqual([expect.objectContaining({ rfq_id: filledRfqId, state: 'failed', fill_reverted: true, accepted_side: 'buy' })]);
    expect((await admin.get(`/v1/admin/rfqs?before=${filledRfqId}`)).body.rfqs.map((r: { rfq_id: string }) => r.rfq_id)).not.toContain(filledRfqId);
    expect((await admin.get(`/v1/admin/rfqs?state=failed&account_id=${takerAccountId}`)).body.rfqs).toHaveLength(1);
    // The overview shows the same, live.
    await goto('#/overview');
    await waitText('[data-testid="fills-total"]', '1 fills');
    await waitText('[data-testid="rfq-states"] tr[data-state="failed"]', '1');
    await screenshot(page, 'overview');
  }, 20_000);

  it('risk: an index jump leaves a call writer short of collateral: the report lists it with the deficit', async () => {
    await goto('#/risk');
    await page.waitForSelector('[data-testid="risk-totals"]');
    expect(await textOf('[data-testid="deficit"]')).toBe('0');
    expect(await page.$$('[data-testid="risk-accounts"] tbody tr')).toHaveLength(0);
    // The maker writes 2 calls 150 at index 150 with little above the lock; the index then jumps to 400.
    const { rfq, maker } = await sdkFill([leg(sol.symbol('150'), '2')], '400');
    for (
      let i = 0;
      !(await new Http(app.url).admin().get(`/v1/admin/rfqs/${rfq.rfq_id}/events`)).body.events.some((e: { event: string }) => e.event === 'filled');
      i++
    ) {
      if (i > 100) throw new Error('the fill of the writer did not land');
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Http(app.url).admin().post('/v1/admin/market-data', { asset: 'SOL', index_price: '400', iv: '0.8' });
    const report = (await new Http(app.url).admin().get('/v1/admin/risk')).body;
    expect(report.accounts).toEqual([expect.objectContaining({ account_id: maker.accountId })]);
    await page.waitForSelector(`[data-testid="risk-accounts"] tr[data-account="${maker.accountId}"]`, { timeout: 5000 });
    expect(await textOf('[data-testid="deficit"]')).toBe(trimDecimal(report.totals.deficit));
    expect(report.totals.deficit).toMatch(/^-/);
    // The row opens the account, with its negative available.
    await page.click(`[data-testid="risk-accounts"] tr[data-account="${maker.accountId}"] a`);
    await page.waitForSelector('main[data-page="accounts"] [data-testid="account"]');
    await waitText('[data-testid="account"]', trimDecimal(report.accounts[0].available));
    await goto('#/risk');
    await page.waitForSelector('[data-testid="risk-totals"]');
    axe.risk = await seriousViolations(page);
    await screenshot(page, 'risk');
  }, 30_000);

  it('has no serious or critical axe-core violations on any page, and no CSP violation', () => {
    expect(Object.keys(axe).sort()).toEqual(['accounts', 'overview', 'rfqs', 'risk', 'rounds']);
    expect(axe).toEqual({ overview: [], rounds: [], accounts: [], rfqs: [], risk: [] });
    expect(cspViolations).toEqual([]);
  });

  it('calls only documented routes: every endpoint it knows, and every call it made, is in /openapi.json', async () => {
    const openapi = (await new Http(app.url).get('/openapi.json')).body;
    const documented = (method: string, path: string) => Boolean(openapi.paths[path]?.[method.toLowerCase()]);
    const known = Object.values(ENDPOINTS).map(([method, path]) => `${method} ${path}`);
    expect(known.filter((call) => !documented(...(call.split(' ') as [string, string])))).toEqual([]);
    const made: string[] = await page.evaluate(() => [...(window as any).__consoleCalls]);
    expect(made.length).toBeGreaterThan(10);
    expect(made.filter((call) => !known.includes(call))).toEqual([]);
  });
});
