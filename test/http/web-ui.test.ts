import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { site, startService } from '../helpers.js';

/**
 * The operators' web app in a real browser: the playground scrapes a loopback page, a crawl started from the
 * UI completes, another is cancelled, the health view reads the service; every view at 375 px and in dark
 * mode, every control named. Screenshots of each view are kept in test/artifacts/ (and, with
 * UPDATE_SCREENSHOTS=1, copied to docs/screenshots/ for the README).
 */

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const built = existsSync(join(import.meta.dirname, '..', '..', 'dist', 'web', 'index.html'));
const skip = !existsSync(chromiumPath)
  ? `chromium is not installed at ${chromiumPath}`
  : !built
    ? 'the web app is not built (npm run build:web)'
    : false;
const ARTIFACTS = join(import.meta.dirname, '..', 'artifacts');
const DOCS = join(import.meta.dirname, '..', '..', 'docs', 'screenshots');
const KEY = 'ui-test-key';
/** Generous: no timing is asserted, a loaded machine only waits longer. */
const LONG = 90_000;

let browser: Browser;

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const file = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file });
  if (process.env.UPDATE_SCREENSHOTS === '1') {
    mkdirSync(DOCS, { recursive: true });
    copyFileSync(file, join(DOCS, `${name}.png`));
  }
}

/** Every button, input, select and textarea on the page has an accessible name. */
async function assertNamedControls(page: Page, view: string): Promise<void> {
  const unnamed = await page.locator('button, input, select, textarea').evaluateAll((controls) =>
    controls
      .filter((el) => {
        const e = el as HTMLInputElement;
        if (e.type === 'hidden' || e.closest('[hidden]')) return false;
        const labelled = e.getAttribute('aria-labelledby');
        return !(
          e.getAttribute('aria-label') ||
          (labelled && document.getElementById(labelled)?.textContent?.trim()) ||
          (e.labels && e.labels.length > 0 && e.labels[0]!.textContent!.trim()) ||
          (e.tagName === 'BUTTON' && e.textContent!.trim())
        );
      })
      .map((el) => el.outerHTML.slice(0, 120)),
  );
  assert.deepEqual(unnamed, [], `unnamed controls in ${view}`);
}

/** A site whose every page links to 30 new ones and answers after 300 ms: a crawl that runs long enough. */
async function endlessSite(t: TestContext): Promise<string> {
  const server = createServer((req, res) => {
    const n = Number((req.url ?? '/').split('/').pop()) || 0;
    const links = Array.from(
      { length: 30 },
      (_, i) => `<a href="/p/${n * 30 + i + 1}">page ${n * 30 + i + 1}</a>`,
    );
    setTimeout(
      () =>
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<title>Page ${n}</title><main><h1>Page ${n}</h1><p>Text of page ${n}.</p>${links.join(' ')}</main>`,
          ),
      300,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/p/0`;
}

async function openApp(url: string, key = KEY): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(LONG);
  await page.goto(url);
  // The operator sets the key as a first step; it stays in this tab's session storage.
  await page.getByRole('button', { name: 'API key settings' }).click();
  await page.getByRole('textbox', { name: 'API key' }).fill(key);
  await page.getByRole('button', { name: 'Use key' }).click();
  await page.getByRole('textbox', { name: 'API key' }).waitFor({ state: 'hidden' });
  return page;
}

describe('operators web app', { skip }, () => {
  before(async () => {
    browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
  });
  after(async () => {
    await browser?.close();
  });

  test('playground: scrape a loopback page, see its Markdown rendered and raw, and the curl without the key', async (t) => {
    const s = await site(t);
    const svc = await startService(t, { env: { API_KEYS: KEY } });
    const page = await openApp(`${svc.url}/#/playground`);
    await page.getByLabel('URL').fill(`${s.url}/blog/backpressure`);
    await page.getByRole('button', { name: 'Scrape' }).click();
    await page
      .getByTestId('rendered')
      .getByText('When a producer writes data faster', { exact: false })
      .first()
      .waitFor();
    await shot(page, 'playground');
    await assertNamedControls(page, 'playground');
    await page.getByRole('tab', { name: 'Markdown' }).click();
    assert.match((await page.getByTestId('raw').textContent()) ?? '', /When a producer writes data faster/);
    await page.getByRole('tab', { name: 'curl' }).click();
    const curl = (await page.getByTestId('curl').textContent()) ?? '';
    assert.match(curl, /\/blog\/backpressure/);
    assert.match(curl, /\$PAGEWRIGHT_API_KEY/);
    assert.ok(!curl.includes(KEY), 'the key itself never appears');
    assert.ok(!page.url().includes(KEY), 'nor in the URL');
    await page.context().close();
  });

  test('jobs: a crawl started from the UI completes; another is cancelled from its page; health reads the service', async (t) => {
    const s = await site(t);
    const endless = await endlessSite(t);
    const svc = await startService(t, { env: { API_KEYS: KEY, CRAWL_MIN_DELAY_MS: '0' } });
    const page = await openApp(`${svc.url}/#/jobs`);
    await page.getByLabel('Start URL').fill(`${s.url}/`);
    await page.getByLabel('Pages at most').fill('5');
    await page.getByRole('button', { name: 'Start crawl' }).click();
    await page.locator('[data-state="completed"]').first().waitFor();
    await shot(page, 'jobs');
    await assertNamedControls(page, 'jobs');
    await page
      .getByRole('link', { name: /^crawl / })
      .first()
      .click();
    await page.getByRole('heading', { name: /^Documents \(\d+/ }).waitFor();
    assert.ok((await page.locator('ul.plain li').count()) >= 1, 'the documents are listed');
    await page
      .getByRole('button', { name: /^Show the Markdown of / })
      .first()
      .click();
    await page.locator('section[aria-label="Document preview"] .rendered').waitFor();
    await shot(page, 'job');
    await assertNamedControls(page, 'job');

    await page.goto(`${svc.url}/#/jobs`);
    await page.getByLabel('Start URL').fill(endless);
    await page.getByLabel('Pages at most').fill('5000');
    await page.getByRole('button', { name: 'Start crawl' }).click();
    await page.getByRole('link', { name: new RegExp(`crawl ${endless.replace(/[/.]/g, '\\$&')}`) }).click();
    await page.getByRole('button', { name: 'Cancel job' }).click();
    await page.locator('[data-state="cancelled"]').waitFor();

    // Without a key the app asks for one (the server's 401), and takes it.
    await page.evaluate(() => sessionStorage.clear());
    await page.goto(`${svc.url}/#/health`);
    await page.locator('#key-message', { hasText: 'An API key is required' }).waitFor();
    await page.getByRole('textbox', { name: 'API key' }).fill(KEY);
    await page.getByRole('button', { name: 'Use key' }).click();
    await page.getByText('Healthy', { exact: false }).waitFor();
    assert.match((await page.locator('main').textContent()) ?? '', /embedded[\s\S]*Threads/);
    await shot(page, 'health');
    await assertNamedControls(page, 'health');

    // At 375 px and in dark mode: nothing wider than the screen, every control still named.
    await page.setViewportSize({ width: 375, height: 800 });
    await page.emulateMedia({ colorScheme: 'dark' });
    for (const view of ['playground', 'jobs', 'health']) {
      await page.goto(`${svc.url}/#/${view}`);
      await page.locator('h1').waitFor();
      await page.waitForTimeout(300);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 375, `${view} is ${width} px wide at 375 px`);
      await assertNamedControls(page, `${view} at 375 px`);
    }
    await page.goto(`${svc.url}/#/jobs`);
    await page.locator('[data-state="completed"]').first().waitFor();
    await shot(page, 'mobile-dark');
    await page.context().close();
  });

  test("jobs: an operator's key lists every tenant's jobs with their tenant and filters by one; a tenant's its own", async (t) => {
    const s = await site(t);
    const svc = await startService(t, { env: { API_KEYS: 'a:ka,b:kb', ADMIN_API_KEYS: KEY } });
    const start = async (key: string): Promise<string> => {
      const res = await fetch(`${svc.url}/v2/batch/scrape`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ urls: [`${s.url}/`] }),
      });
      return ((await res.json()) as { id: string }).id;
    };
    const [a, b] = await Promise.all([start('ka'), start('kb')]);
    const jobIds = (page: Page) =>
      page.locator('tr[data-job]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-job')));
    const page = await openApp(`${svc.url}/#/jobs`);
    await page.locator(`tr[data-job="${a}"] [data-tenant="a"]`).waitFor();
    await page.locator(`tr[data-job="${b}"] [data-tenant="b"]`).waitFor();
    await assertNamedControls(page, "an operator's jobs");
    await page.getByLabel('Tenant', { exact: true }).fill('a');
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await page.locator(`tr[data-job="${b}"]`).waitFor({ state: 'detached' });
    assert.deepEqual(await jobIds(page), [a]);
    await page.context().close();

    const theirs = await openApp(`${svc.url}/#/jobs`, 'kb');
    await theirs.locator(`tr[data-job="${b}"]`).waitFor();
    assert.deepEqual(await jobIds(theirs), [b], "a tenant's key lists its own jobs only");
    assert.equal(await theirs.getByLabel('Tenant', { exact: true }).isVisible(), false, 'no tenant filter');
    assert.equal(await theirs.locator('th', { hasText: 'Tenant' }).count(), 0, 'no tenant column');
    await theirs.context().close();
  });
});
