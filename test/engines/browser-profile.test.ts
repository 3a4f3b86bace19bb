import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, test } from 'node:test';
import { startService } from '../helpers.js';
import { SESSION_VALUE, loginResolver, startLoginSite } from '../fixtures/sites/login-site.js';
import { call, json, over, poll } from '../jobs/http.js';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = existsSync(chromiumPath) ? false : `chromium is not installed at ${chromiumPath}`;
if (skip) console.log(`\n!!! BROWSER PROFILE TESTS SKIPPED: ${skip}. Run scripts/ensure-chromium.sh.\n`);

const titles = (pages: { metadata: { title?: string } }[]): string[] =>
  pages.map((p) => p.metadata.title ?? '').sort();
const PRIVATE = ['Private A', 'Private B', 'Private C'];

describe('profiles in the browser', { skip }, () => {
  test('a form login with actions is saved; crawls on both engines start from it (cookies and local storage)', async (t) => {
    const site = await startLoginSite();
    t.after(() => site.close());
    const logLines: string[] = [];
    const svc = await startService(t, {
      env: { CHROMIUM_PATH: chromiumPath, CRAWL_MIN_DELAY_MS: '0' },
      resolver: loginResolver,
      logLines,
    });
    const replies: unknown[] = [];
    const login = json(
      await svc.post('/api/v1/scrape', {
        url: `${site.url}/login`,
        engine: 'browser',
        actions: [
          { type: 'click', selector: '#user' },
          { type: 'write', text: 'ada' },
          { type: 'click', selector: '#password' },
          { type: 'write', text: 'secret' },
          { type: 'click', selector: '#go' },
          { type: 'waitForSelector', selector: '#pref' },
        ],
        profile: { name: 'acme', saveChanges: true },
      }),
    );
    replies.push(login);
    assert.match((login.data as { markdown: string }).markdown, /Members-only report a/);
    const stored = json(await call(`${svc.url}/api/v1/profiles/acme`)).profile as { domains: string[] };
    assert.deepEqual(stored.domains, ['127.0.0.1']);

    for (const engine of ['http', 'browser']) {
      const crawl = json(
        await svc.post('/api/v1/crawl', {
          url: `${site.url}/private/a`,
          engine,
          allowBackwardLinks: true,
          profile: { name: 'acme' },
        }),
      );
      replies.push(crawl);
      const pages = crawl.data as { markdown: string; metadata: { title: string } }[];
      assert.deepEqual(titles(pages), PRIVATE, `native crawl, ${engine} engine`);
      // Only the browser runs the page's script, which shows the local storage the login page left.
      if (engine === 'browser') for (const p of pages) assert.match(p.markdown, /Preference: compact-view/);
    }

    // Firecrawl v2: plain options take the http engine, `waitFor` the browser.
    for (const scrapeOptions of [{}, { waitFor: 1 }]) {
      const started = json(
        await call(`${svc.url}/v2/crawl`, 'POST', {
          url: `${site.url}/private/a`,
          sitemap: 'skip',
          crawlEntireDomain: true,
          scrapeOptions: { ...scrapeOptions, profile: { name: 'acme' } },
        }),
      );
      const done = json(await poll(started.url as string, over));
      replies.push(done);
      assert.equal(done.status, 'completed');
      assert.deepEqual(titles(done.data as never), PRIVATE, `v2 crawl ${JSON.stringify(scrapeOptions)}`);
    }
    assert.ok(!JSON.stringify(replies).includes(SESSION_VALUE), 'no document carries the cookie');
    assert.ok(!logLines.join('\n').includes(SESSION_VALUE), 'no log line carries the cookie');
  });
});
