/// <reference lib="dom" />
/**
 * What an operator meets before the console's own pages (docs/console.md), in a real headless Chromium
 * against the real app: the served bundle and its CSP, the ways in (a browser wallet, a Wallet
 * Standard wallet, a stored token the server no longer takes) and the JSON-RPC reference page
 * linked from /docs. The pages themselves, signed in, are console.e2e-spec.ts.
 */
import type { Browser, Page } from 'puppeteer-core';
import { Http, TestWallet } from './clients';
import { buildConsole, closeBrowser, hasChromium, launch, screenshot, seriousViolations } from './console/browser';
import { createAccount } from './factories';
import { ADMIN_TOKEN, Environment, type TestApp } from './harness';

const describeBrowser = hasChromium ? describe : describe.skip;
if (!hasChromium) console.warn('SKIPPED: the console browser tests need Debian chromium at /usr/bin/chromium (apt-get install -y chromium)');

describeBrowser('operator console at /console, in headless Chromium', () => {
  let env: Environment;
  let app: TestApp;
  let browser: Browser;
  let page: Page;

  const textOf = (selector: string) => page.$eval(selector, (el) => el.textContent ?? '');

  beforeAll(async () => {
    buildConsole();
    env = await Environment.create();
    app = await env.start();
    browser = await launch();
    page = await browser.newPage();
  }, 60_000);

  afterAll(async () => {
    await closeBrowser(browser);
    await app?.close();
    await env?.destroy();
  }, 120_000); // the app's close reports itself when slow (TestApp.close)

  it('serves the built console with a CSP of its own scripts, styles and origin only', async () => {
    const bare = await fetch(`${app.url}/console`, { redirect: 'manual' });
    expect([bare.status, bare.headers.get('location')]).toEqual([302, '/console/']);
    const response = await fetch(`${app.url}/console/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    // The headers every response carries (docs/spec/design.md 10) stay.
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    const html = await response.text();
    expect(html).not.toMatch(/https?:\/\//); // nothing loaded from outside the server
    expect((await fetch(`${app.url}/console/app.js`)).headers.get('content-security-policy')).toBe(csp);
  });

  it('signs in with a browser wallet (window.solana) of an admin account', async () => {
    const wallet = new TestWallet();
    await createAccount(app, ['admin'], wallet);
    const walletPage = await browser.newPage();
    try {
      await walletPage.exposeFunction('__legworkSign', (bytes: number[]) => [...wallet.sign(Uint8Array.from(bytes))]);
      await walletPage.evaluateOnNewDocument((address: string) => {
        (window as any).solana = {
          connect: async () => ({ publicKey: { toBase58: () => address } }),
          signMessage: async (message: Uint8Array) => ({ signature: Uint8Array.from(await (window as any).__legworkSign([...message])) }),
        };
      }, wallet.address);
      await walletPage.goto(`${app.url}/console/#/overview`);
      await walletPage.waitForSelector('[data-testid="wallet-signin"]');
      await walletPage.click('[data-testid="wallet-signin"]');
      await walletPage.waitForSelector('[data-testid="health"]', { timeout: 10_000 });
      const stored = await walletPage.evaluate(() => sessionStorage.getItem('legwork.console.token'));
      expect(stored).not.toBe(ADMIN_TOKEN);
      expect(stored?.split('.')).toHaveLength(3); // the session JWT of the wallet's sign-in
    } finally {
      await walletPage.close();
    }
  }, 30_000);

  it('signs in with a Wallet Standard wallet (standard:connect, solana:signMessage); a wallet without the admin role is refused', async () => {
    const admin = new TestWallet();
    await createAccount(app, ['admin'], admin);
    const taker = new TestWallet();
    await createAccount(app, ['taker'], taker);
    for (const [wallet, admitted] of [
      [taker, false],
      [admin, true],
    ] as const) {
      const walletPage = await browser.newPage();
      try {
        await walletPage.exposeFunction('__legworkSign', (bytes: number[]) => [...wallet.sign(Uint8Array.from(bytes))]);
        await walletPage.evaluateOnNewDocument((address: string) => {
          const account = { address, publicKey: new Uint8Array(32), chains: ['solana:mainnet'], features: ['solana:signMessage'] };
          const wallet = {
            version: '1.0.0',
            name: 'Test Wallet',
            icon: 'data:,',
            chains: ['solana:mainnet'],
            accounts: [account],
            features: {
              'standard:connect': { version: '1.0.0', connect: async () => ({ accounts: [account] }) },
              'solana:signMessage': {
                version: '1.0.0',
                signMessage: async (...inputs: Array<{ message: Uint8Array }>) =>
                  Promise.all(
                    inputs.map(async (i) => ({ signedMessage: i.message, signature: Uint8Array.from(await (window as any).__legworkSign([...i.message])) })),
                  ),
              },
            },
          };
          // A wallet that loads after the app: it announces itself.
          window.addEventListener('load', () =>
            window.dispatchEvent(new CustomEvent('wallet-standard:register-wallet', { detail: (api: any) => api.register(wallet) })),
          );
        }, wallet.address);
        await walletPage.goto(`${app.url}/console/`);
        await walletPage.waitForFunction(() =>
          [...document.querySelectorAll('[data-testid="wallet-signin"]')].some((b) => b.textContent === 'Sign in with Test Wallet'),
        );
        await walletPage.click('[data-testid="wallet-signin"]');
        if (admitted) {
          await walletPage.waitForSelector('[data-testid="health"]', { timeout: 10_000 });
        } else {
          await walletPage.waitForFunction(() => (document.querySelector('[role="alert"]')?.textContent ?? '').includes('is not an admin'), {
            timeout: 10_000,
          });
          expect(await walletPage.evaluate(() => sessionStorage.getItem('legwork.console.token'))).toBeNull();
        }
      } finally {
        await walletPage.close();
      }
    }
  }, 30_000);

  it('a token the server stops taking (expired, revoked) sends the console back to sign-in, saying why', async () => {
    const other = await browser.newPage();
    try {
      await other.goto(`${app.url}/console/`);
      await other.evaluate(() => sessionStorage.setItem('legwork.console.token', 'a-token-that-expired'));
      await other.reload(); // opens signed in, with the stored token
      await other.waitForFunction(() => (document.querySelector('[role="alert"]')?.textContent ?? '').includes('Signed out'), { timeout: 10_000 });
      expect(await other.$('input[name="admin_token"]')).not.toBeNull();
      expect(await other.evaluate(() => sessionStorage.getItem('legwork.console.token'))).toBeNull();
    } finally {
      await other.close();
    }
  }, 20_000);

  it('the JSON-RPC reference page: every method and channel of /asyncapi.json, linked from /docs', async () => {
    const asyncapi = (await new Http(app.url).get('/asyncapi.json')).body;
    const openapi = (await new Http(app.url).get('/openapi.json')).body;
    expect(openapi.info.description).toContain('/docs/json-rpc');
    const response = await page.goto(`${app.url}/docs/json-rpc`);
    expect(response!.status()).toBe(200);
    // Its own policy, over the /docs one (docs/spec/design.md 10): no script at all, its stylesheet only.
    expect(response!.headers()['content-security-policy']).toBe(
      "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    const methods = Object.values<any>(asyncapi.operations)
      .filter((o) => o['x-jsonrpc-method'])
      .map((o) => o['x-jsonrpc-method']);
    expect(methods.length).toBeGreaterThan(10);
    for (const method of methods) {
      const id = method.replace(/[^A-Za-z0-9]+/g, '-');
      const section = await page.$eval(`section#${id}`, (el) => ({
        text: el.textContent ?? '',
        tables: el.querySelectorAll('table').length,
        pre: el.querySelectorAll('pre').length,
      }));
      expect(section.text).toContain(method);
      for (const heading of ['Params', 'Result', 'Errors', 'Example exchange']) expect(section.text).toContain(heading);
      expect(section.pre).toBe(3); // request, result, error
      expect(section.text).toContain(`"method": "${method}"`);
    }
    const channels = Object.entries<any>(asyncapi.operations).filter(([, o]) => !o['x-jsonrpc-method']);
    expect(channels.length).toBeGreaterThanOrEqual(2);
    expect(await page.$$eval('section.channel', (s) => s.length)).toBe(channels.length);
    expect(await textOf('#channel-rfq_maker_events, #channel-rfq-maker-events')).toContain('created');
    // The example of rfq.create's request carries the schema's own example values.
    expect(await textOf('section#rfq-create')).toContain('client_ref');
    expect(await seriousViolations(page)).toEqual([]);
    await page.setViewport({ width: 1280, height: 2000 });
    await screenshot(page, 'json-rpc-reference', false); // the top of a long page
    await page.setViewport({ width: 1280, height: 900 });
  }, 30_000);
});
