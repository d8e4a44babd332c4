/// <reference lib="dom" />
/**
 * The console's competition pages (docs/console.md) in headless Chromium against the real app: a
 * competitive RFQ's live quotes with the best bid and ask marked while it runs, then its signed
 * transcript (every quote with its end, the accepted one, the exchange signature verified in the
 * browser); a maker's profile saved through the Makers page. The desk acts with the taker's and the
 * maker's own sessions over the trading WebSocket.
 */
import type { Browser, Page } from 'puppeteer-core';
import { Http } from './clients';
import { buildConsole, closeBrowser, hasChromium, launch, screenshot, seriousViolations } from './console/browser';
import { ADMIN_TOKEN, Environment, type TestApp } from './harness';
import { type RfqTrader, type Round, clientRef, expirationIn, leg, listRound, rfqTrader, sessionToken, signedQuote, terms } from './rfq-support';
import { acceptParams, deposit, marketData, waitForState } from './support/ledger';
import { checkTranscript } from '../../console/src/competition';

const describeBrowser = hasChromium ? describe : describe.skip;
if (!hasChromium) console.warn('SKIPPED: the console browser tests need Debian chromium at /usr/bin/chromium (apt-get install -y chromium)');

describeBrowser('console: competitive RFQs and the makers pages, in headless Chromium', () => {
  let env: Environment;
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let sol: Round;
  let taker: RfqTrader;
  let makers: RfqTrader[];
  let nonce = 0;

  const waitText = (selector: string, text: string, timeout = 15_000) =>
    page.waitForFunction((s, t) => [...document.querySelectorAll(s)].some((el) => (el.textContent ?? '').includes(t)), { timeout }, selector, text);
  const deskSignIn = async (token: string) => {
    await page.waitForSelector('form[aria-label="Desk session"]');
    await page.type('form[aria-label="Desk session"] input[name="session_token"]', token);
    await page.click('form[aria-label="Desk session"] button[type="submit"]');
    await page.waitForSelector('[data-testid="desk-who"], #desk-h ~ [role="alert"]');
    const refused = await page.$eval('main', (el) => el.querySelector('#desk-h ~ [role="alert"]')?.textContent ?? null);
    if (refused) throw new Error(refused);
  };
  const quote = (m: RfqTrader, rfq: any, bid: string, ask: string) => signedQuote(m.wallet, rfq, terms(++nonce, { bid, ask }), sol.expiry);

  /** A competitive RFQ of the three makers: a1, b, c quoted, then a1 replaced by a2 (the best ask; b the best bid). */
  const competitiveRfq = async () => {
    const rfq = await taker.client.result('rfq.create', {
      client_ref: clientRef(),
      legs: [leg(sol.symbol('150'), '1')],
      competition: { makers: makers.map((m) => m.wallet.address) },
    });
    const a1 = quote(makers[0], rfq, '1', '3');
    const b = quote(makers[1], rfq, '1.2', '2.5');
    const c = quote(makers[2], rfq, '0.5', '2.6');
    for (const [m, q] of [
      [makers[0], a1],
      [makers[1], b],
      [makers[2], c],
    ] as const)
      await m.client.result('rfq.maker.respond', q.params);
    const a2 = quote(makers[0], rfq, '1.1', '2.4');
    await makers[0].client.result('rfq.maker.respond', a2.params);

    return { rfq, a1, b, c, a2 };
  };

  beforeAll(async () => {
    buildConsole();
    env = await Environment.create({ MARKET_DATA_MAX_AGE_SECONDS: '3600' });
    app = await env.start();
    sol = await listRound(app, 'SOL', expirationIn(10));
    await marketData(app, 'SOL', '150');
    taker = await rfqTrader(app, ['taker']);
    await deposit(app, taker.accountId, '100000');
    await taker.client.result('rfq.subscribe', {});
    makers = await Promise.all([0, 1, 2].map(() => rfqTrader(app, ['quoter'])));
    for (const m of makers) await deposit(app, m.accountId, '1000000');
    browser = await launch();
    page = await browser.newPage();
    await page.goto(`${app.url}/console/`);
    await page.type('input[name="admin_token"]', ADMIN_TOKEN);
    await page.click('form button[type="submit"]');
    await page.waitForSelector('main[data-page="overview"]');
  }, 90_000);

  afterAll(async () => {
    await closeBrowser(browser);
    for (const t of [taker, ...(makers ?? [])]) await t?.client.close();
    await app?.close();
    await env?.destroy();
  }, 120_000); // the app's close reports itself when slow (TestApp.close)

  it('the RFQ page: live quotes with the best bid and ask marked, then the transcript with every end and a verified signature', async () => {
    const { rfq, a1, b, c, a2 } = await competitiveRfq();
    await page.evaluate((h) => (location.hash = h), `#/competition/${rfq.rfq_id}`);
    await deskSignIn(sessionToken(taker.wallet.address, taker.accountId, ['taker']));
    await page.waitForSelector(`[data-testid="competitive-rfqs"] tr[data-rfq="${rfq.rfq_id}"]`);
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="live-quotes"] tbody tr').length === n, { timeout: 15_000 }, 3);
    const live = await page.$$eval('[data-testid="live-quotes"] tbody tr', (trs) =>
      trs.map((tr) => [tr.getAttribute('data-quote'), tr.getAttribute('data-best')]),
    );
    // In the order received (the replaced quote gone, its replacement last); best bid b, best ask a2.
    expect(live).toEqual([
      [b.quoteId, 'best bid'],
      [c.quoteId, ''],
      [a2.quoteId, 'best ask'],
    ]);
    expect(await page.$eval('[data-testid="rfq-state"]', (el) => el.getAttribute('data-state'))).toBe('quoted');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'competition-live');

    await taker.client.result('rfq.accept', acceptParams(taker.wallet, { rfqId: rfq.rfq_id, quoteId: a2.quoteId, terms: a2.params }, 'buy'));
    await waitForState(taker, rfq.rfq_id, ['filled']);
    await waitText('[data-testid="transcript-verdict"]', 'Signature verifies');
    expect(await page.$eval('[data-testid="transcript-verdict"]', (el) => el.getAttribute('data-ok'))).toBe('true');
    const ends = await page.$$eval('[data-testid="transcript-quotes"] tbody tr', (trs) =>
      trs.map((tr) => [tr.getAttribute('data-quote'), tr.getAttribute('data-end')]),
    );
    expect(ends).toEqual([
      [a1.quoteId, 'replaced'],
      [b.quoteId, 'traded_away'],
      [c.quoteId, 'traded_away'],
      [a2.quoteId, 'accepted'],
    ]);
    expect(await page.$eval('[data-testid="transcript-accepted"]', (el) => el.textContent)).toBe(
      `Accepted ${a2.quoteId.slice(0, 12)}… buy @ 2.4 (the best price)`,
    );
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'competition-transcript');

    // The check the page runs, on the same transcript changed, or under another key: it does not verify.
    const signed = await taker.client.result('rfq.transcript', { rfq_id: rfq.rfq_id });
    const keys = (await new Http(app.url).get('/v1/exchange/keys')).body.keys;
    expect(checkTranscript(signed, keys)).toBeNull();
    const lowered = { ...signed, transcript: { ...signed.transcript, accepted: { ...signed.transcript.accepted, price: '2.3' } } };
    expect(checkTranscript(lowered, keys)).toMatch(/^payload: /);
    const otherKey = [{ ...keys[0], public_key: makers[0].wallet.address }];
    expect(checkTranscript(signed, otherKey)).toMatch(/^key_id: /);
  }, 90_000);

  it("the Makers page: a maker's profile (listed, name) saved with rfq.maker.set_profile", async () => {
    await page.evaluate(() => (location.hash = '#/makers'));
    await page.waitForSelector('main[data-page="makers"]');
    // The page reads who the stored desk session is before it shows it: wait for that, then leave it.
    await page.waitForSelector('[data-testid="desk-who"] button');
    await page.click('[data-testid="desk-who"] button');
    await deskSignIn(sessionToken(makers[1].wallet.address, makers[1].accountId, ['quoter']));
    await page.waitForSelector('form[data-testid="maker-profile"][data-listed="false"]');
    await page.click('form[data-testid="maker-profile"] input[name="listed"]');
    await page.type('form[data-testid="maker-profile"] input[name="name"]', 'Blue Desk');
    await page.click('form[data-testid="maker-profile"] button[type="submit"]');
    await waitText('[data-testid="profile-message"]', 'Profile saved');
    await page.waitForSelector('form[data-testid="maker-profile"][data-listed="true"]');
    expect(await makers[1].client.result('rfq.maker.set_profile', {})).toEqual({ listed: true, name: 'Blue Desk', cancel_on_disconnect: false });
    await screenshot(page, 'makers');
  }, 60_000);
});
