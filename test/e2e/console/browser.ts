import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

/** Debian's chromium (apt-get install -y chromium; .ci/run installs it). Nothing is downloaded at test time. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

const ROOT = join(__dirname, '..', '..', '..');

/**
 * Builds the console bundle as `npm run build` does (esbuild, well under a second), unless `npm test`
 * built it before its jest workers started (LEGWORK_PREBUILT=1): two files rebuilding it at once
 * would serve each other half-written files.
 */
export function buildConsole(): void {
  if (process.env.LEGWORK_PREBUILT === '1') return;
  execFileSync(process.execPath, [join(ROOT, 'console', 'build.mjs')], { stdio: 'inherit' });
}

export async function launch(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--hide-scrollbars',
    ],
    defaultViewport: { width: 1280, height: 900 },
  });
}

/**
 * Takes a full-page PNG and checks it is a picture of something; with CONSOLE_SCREENSHOTS=1 it
 * is also written to docs/console/<name>.png (the images docs/console.md shows).
 */
export async function screenshot(page: Page, name: string, fullPage = true): Promise<Buffer> {
  const bytes = Buffer.from(await page.screenshot({ fullPage, type: 'png' }));
  expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(bytes.length).toBeGreaterThan(10_000);
  if (process.env.CONSOLE_SCREENSHOTS === '1') {
    const dir = join(ROOT, 'docs', 'console');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${name}.png`), bytes);
  }
  return bytes;
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page as it is (WCAG 2.1 A and AA rules). */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern.
  await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(
    `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => ({ target: n.target })) })))`,
  )) as Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }>;
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * Closes the browser, or kills its process when closing takes longer than `ms`: under CI load
 * puppeteer's close has hung past jest's 30 s hook timeout (a fresh-clone CI run failed
 * console-entry's afterAll so), and a test's teardown must not fail the suite it just passed.
 */
export async function closeBrowser(browser: Browser | undefined, ms = 10_000): Promise<void> {
  if (!browser) return;
  let timer: NodeJS.Timeout | undefined;
  const closed = await Promise.race([
    browser.close().then(
      () => true,
      () => false,
    ),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]);
  clearTimeout(timer);
  if (!closed) browser.process()?.kill('SIGKILL');
}
