/// <reference lib="dom" />
/**
 * The console's Audit and Maker limits pages (docs/console.md) in headless Chromium against the
 * real app. Audit: a command made through the console itself and one through an admin session
 * appear newest first with their actor; the chain is verified in the browser, and a row changed in
 * the database turns the badge into "broken at seq N". Maker limits: the server side is another
 * module's, so the page is driven by stubbed answers (Chromium's request interception): what it
 * shows (own limits, the ceiling, the stricter of the two, usage, protection) and the PUT body it
 * sends.
 */
import type { Browser, HTTPRequest, Page } from 'puppeteer-core';
import { Database } from '../../src/common/database/database';
import { Http, TestWallet } from './clients';
import { buildConsole, closeBrowser, hasChromium, launch, screenshot, seriousViolations } from './console/browser';
import { createAccount, signInHttp } from './factories';
import { ADMIN_TOKEN, Environment, type TestApp } from './harness';

const describeBrowser = hasChromium ? describe : describe.skip;
if (!hasChromium) console.warn('SKIPPED: the console browser tests need Debian chromium at /usr/bin/chromium (apt-get install -y chromium)');

const MAKER = 77;
/** A maker-limits answer as the contract describes it (docs/spec/design.md section 15). */
const stub = (adminLimits: object) => ({
  account_id: MAKER,
  limits: { max_open_quotes: 40, max_open_notional: '500000', max_open_delta: { SOL: '100', ETH: '5' }, price_band_bps: 300 },
  admin_limits: adminLimits,
  usage: { open_quotes: 12, open_notional: '123456.5', open_delta: { SOL: '42.25' }, open_vega: { SOL: '310' } },
  protection: { frozen: true, until: 1_900_000_000, window: { fills: 9, notional: '80000', delta: { SOL: '12' } } },
});

describeBrowser('console: the Audit and Maker limits pages, in headless Chromium', () => {
  let env: Environment;
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  const cspViolations: string[] = [];
  const axe: Record<string, string[]> = {};

  const goto = async (hash: string) => {
    await page.evaluate((h) => (location.hash = h), hash);
    await page.waitForSelector(`main[data-page="${hash.replace('#/', '').split('/')[0]}"]`);
  };
  const textOf = (selector: string) => page.$eval(selector, (el) => el.textContent ?? '');
  const waitText = (selector: string, text: string, timeout = 10_000) =>
    page.waitForFunction((s, t) => [...document.querySelectorAll(s)].some((el) => (el.textContent ?? '').includes(t)), { timeout }, selector, text);

  beforeAll(async () => {
    buildConsole();
    env = await Environment.create();
    app = await env.start();
    browser = await launch();
    page = await browser.newPage();
    page.on('console', (message) => {
      if (/Content[- ]Security[- ]Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    await page.goto(`${app.url}/console/`);
    await page.type('input[name="admin_token"]', ADMIN_TOKEN);
    await page.click('form button[type="submit"]');
    await page.waitForSelector('main[data-page="overview"]');
  }, 60_000);

  afterAll(async () => {
    await closeBrowser(browser);
    await app?.close();
    await env?.destroy();
  }, 120_000); // the app's close reports itself when slow (TestApp.close)

  it('audit: a command made in the console and one through an admin session, newest first, with their actors; the chain verified up to the head', async () => {
    // Through the console: create an account on the Accounts page.
    await goto('#/accounts');
    const wallet = new TestWallet();
    await page.type('form[aria-label="Create an account"] input[name="wallet"]', wallet.address);
    await page.click('form[aria-label="Create an account"] button[type="submit"]');
    await waitText('[data-testid="notice"]', 'created');
    // Through an admin session: one command that works and one that fails.
    const { wallet: adminWallet, accountId: adminId } = await createAccount(app, ['admin']);
    const session = new Http(app.url).as((await signInHttp(app, adminWallet)).token).from('198.51.100.7');
    expect((await session.post('/v1/admin/accounts/999999/deposit', { amount: '1', reference: 'missing' })).status).toBe(404);
    const head = (await new Http(app.url).admin().get('/v1/admin/audit?limit=1')).body.head.audit_seq;
    expect(head).toBe(3); // console create, the admin account's create, the failed deposit

    await goto('#/audit');
    await waitText('[data-testid="audit-verdict"]', `Verified up to head #${head}`);
    const rows = await page.$$eval('[data-testid="audit-table"] tbody tr', (trs) =>
      trs.map((tr) => [tr.getAttribute('data-seq'), tr.getAttribute('data-status')]),
    );
    expect(rows).toEqual([
      ['3', '404'],
      ['2', '201'],
      ['1', '201'],
    ]);
    const newest = await textOf('[data-testid="audit-table"] tr[data-seq="3"]');
    expect(newest).toContain(`session of account ${adminId}`);
    expect(newest).toContain('198.51.100.7');
    expect(newest).toContain('deposit');
    expect(await textOf('[data-testid="audit-table"] tr[data-seq="1"]')).toContain('admin token');
    expect(await textOf('[data-testid="audit-table"] tr[data-seq="1"]')).toContain(wallet.address);
    axe.audit = await seriousViolations(page);
    await screenshot(page, 'audit');
  }, 30_000);

  it('audit: a row changed in the database turns the badge into "broken at seq N" when verified again', async () => {
    const sql = (text: string, params: unknown[] = []) => app.app.get(Database).rows<Record<string, unknown>>(text, params);
    await sql(`UPDATE audit_log SET status = 200 WHERE audit_seq = 3`);
    try {
      await page.click('[data-testid="verify-audit"]');
      await waitText('[data-testid="audit-verdict"]', 'Broken at seq 3');
      expect(await page.$eval('[data-testid="audit-verdict"]', (el) => el.getAttribute('data-ok'))).toBe('false');
    } finally {
      await sql(`UPDATE audit_log SET status = 404 WHERE audit_seq = 3`);
    }
    // A new visit verifies on its own.
    await goto('#/overview');
    await goto('#/audit');
    await waitText('[data-testid="audit-verdict"]', 'Verified up to head #3');
  }, 30_000);

  it('maker limits: shows own limits, the ceiling, the stricter in force, usage and protection; saves the ceiling with the PUT body of the contract', async () => {
    let current: object = { max_open_quotes: 20, max_open_delta: { SOL: '150' }, protection: { window_seconds: 60, max_fills: 10, frozen_seconds: 300 } };
    const puts: unknown[] = [];
    const onRequest = (request: HTTPRequest) => {
      if (!request.url().endsWith(`/v1/admin/accounts/${MAKER}/maker-limits`)) return void request.continue();
      if (request.method() === 'PUT') {
        const body = JSON.parse(request.postData() ?? '{}');
        puts.push(body);
        current = body.limits;
      }
      void request.respond({ status: 200, contentType: 'application/json', body: JSON.stringify(stub(current)) });
    };
    await page.setRequestInterception(true);
    page.on('request', onRequest);
    try {
      await goto(`#/maker-limits/${MAKER}`);
      await page.waitForSelector('[data-testid="maker-limits"]');
      const cells = async (name: string) => page.$$eval(`tr[data-limit="${name}"] td`, (tds) => tds.map((td) => td.textContent));
      expect(await cells('max_open_quotes')).toEqual(['40', '20', '20']);
      expect(await cells('max_open_delta')).toEqual(['SOL=100, ETH=5', 'SOL=150', 'ETH=5, SOL=100']);
      expect(await cells('max_open_notional')).toEqual(['500000', '—', '500000']);
      expect(await cells('protection.window_seconds')).toEqual(['—', '60', '—']);
      expect(await textOf('[data-testid="maker-protection"]')).toContain('Frozen until 2030-03-17');
      expect(await textOf('[data-testid="maker-usage"]')).toContain('123456.5');
      axe['maker-limits'] = await seriousViolations(page);
      await screenshot(page, 'maker-limits');

      // A bad field is refused in the page, naming it; nothing is sent.
      const field = (name: string) => `[data-testid="ceiling-form"] input[name="${name}"]`;
      await page.$eval(field('max_open_delta'), (el) => ((el as HTMLInputElement).value = 'SOL=lots'));
      await page.click('[data-testid="ceiling-form"] button[type="submit"]');
      await waitText('[data-testid="ceiling-form"] [role="alert"]', 'Open delta per asset');
      expect(puts).toEqual([]);

      await page.$eval(field('max_open_delta'), (el) => ((el as HTMLInputElement).value = 'SOL=80, ETH=2.5'));
      await page.$eval(field('max_open_quotes'), (el) => ((el as HTMLInputElement).value = '0'));
      await page.$eval(field('price_band_bps'), (el) => ((el as HTMLInputElement).value = '250'));
      await page.click('[data-testid="ceiling-form"] button[type="submit"]');
      await page.waitForSelector('[role="dialog"] [data-testid="confirm"]');
      await page.click('[role="dialog"] [data-testid="confirm"]');
      await waitText('[data-testid="notice"]', 'done');
      expect(puts).toEqual([
        {
          limits: {
            max_open_quotes: 0,
            max_open_delta: { SOL: '80', ETH: '2.5' },
            price_band_bps: 250,
            protection: { window_seconds: 60, max_fills: 10, frozen_seconds: 300 },
          },
        },
      ]);
      await page.waitForFunction(() => document.querySelector('tr[data-limit="max_open_quotes"] td:last-child')?.textContent === '0');
    } finally {
      page.off('request', onRequest);
      await page.setRequestInterception(false);
    }
  }, 30_000);

  it('has no serious or critical axe-core violations on either page, and no CSP violation', () => {
    expect(axe).toEqual({ audit: [], 'maker-limits': [] });
    expect(cspViolations).toEqual([]);
  });
});
