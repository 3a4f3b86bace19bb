import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, test } from 'node:test';
import { isBlockedAddress } from '../../src/lib/ssrf-guard.js';
import { docOf, site, startService } from '../helpers.js';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = existsSync(chromiumPath) ? false : `chromium is not installed at ${chromiumPath}`;
if (skip)
  console.warn(
    `\n!!! BROWSER TESTS SKIPPED: ${skip}. Run scripts/ensure-chromium.sh (apt-get install chromium).\n`,
  );

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('browser engine', { skip }, () => {
  test('renders a JavaScript-only page; http alone sees an empty shell', async (t) => {
    const s = await site(t);
    const svc = await startService(t);
    const browser = docOf(
      (await svc.post('/api/v1/scrape', { url: `${s.url}/app/csr`, engine: 'browser' })).json,
    );
    assert.match(browser.markdown!, /# Client App/);
    assert.match(browser.markdown!, /written into the page by JavaScript/);
    assert.equal(browser.title, 'Client App');
    assert.equal(browser.metadata.detectionReason, null, 'explicit engine: no detection');
    const http = docOf((await svc.post('/api/v1/scrape', { url: `${s.url}/app/csr`, engine: 'http' })).json);
    assert.doesNotMatch(http.markdown ?? '', /Client App/);
  });

  test('auto picks the browser for a client-rendered page and http for a static one, and says why', async (t) => {
    const s = await site(t);
    const svc = await startService(t);
    const csr = docOf((await svc.post('/api/v1/scrape', { url: `${s.url}/app/csr` })).json);
    assert.match(csr.markdown!, /written into the page by JavaScript/);
    assert.match(
      csr.metadata.detectionReason as string,
      /client-side rendered page \(empty app root #root.*\): re-rendered with the browser engine/,
    );
    const launchesBefore = svc.browserStats()!.launches;
    const activeBefore = svc.browserStats()!.active;
    const staticPage = docOf((await svc.post('/api/v1/scrape', { url: `${s.url}/blog/backpressure` })).json);
    assert.match(
      staticPage.metadata.detectionReason as string,
      /^static page \(\d+ words of text\): http engine$/,
    );
    assert.equal(svc.browserStats()!.launches, launchesBefore);
    assert.equal(svc.browserStats()!.active, activeBefore, 'no browser page was opened for the static page');
    const shot = docOf(
      (await svc.post('/api/v1/scrape', { url: `${s.url}/blog/backpressure`, screenshot: true })).json,
    );
    assert.match(shot.metadata.detectionReason as string, /browser required by screenshot/);
  });

  test('waitFor and waitForSelector wait for late content', async (t) => {
    const s = await site(t);
    const svc = await startService(t);
    const url = `${s.url}/app/delayed`;
    const early = docOf((await svc.post('/api/v1/scrape', { url, engine: 'browser' })).json);
    assert.doesNotMatch(early.markdown!, /late paragraph/);
    const waited = docOf((await svc.post('/api/v1/scrape', { url, engine: 'browser', waitFor: 3000 })).json);
    assert.match(waited.markdown!, /late paragraph arrived/);
    const selector = docOf((await svc.post('/api/v1/scrape', { url, waitForSelector: '.arrived' })).json);
    assert.match(selector.markdown!, /late paragraph arrived/);
    const missing = await svc.post('/api/v1/scrape', { url, waitForSelector: '.never', timeout: 1500 });
    assert.equal(missing.status, 408);
  });

  test('actions: click, type, wait, waitForSelector, scroll; a failing action names its index', async (t) => {
    const s = await site(t);
    const svc = await startService(t);
    const reveal = `${s.url}/app/reveal`;
    const clicked = docOf(
      (
        await svc.post('/api/v1/scrape', {
          url: reveal,
          actions: [
            { type: 'click', selector: '#more' },
            { type: 'waitForSelector', selector: '#details p' },
          ],
        })
      ).json,
    );
    assert.match(clicked.markdown!, /Secret details shown after the click/);
    const typed = docOf(
      (
        await svc.post('/api/v1/scrape', {
          url: reveal,
          actions: [
            { type: 'type', selector: '#q', text: 'ban' },
            { type: 'wait', milliseconds: 100 },
          ],
        })
      ).json,
    );
    assert.match(typed.markdown!, /- banana/);
    assert.doesNotMatch(typed.markdown!, /apple|cherry/);
    const feed = `${s.url}/app/infinite`;
    const before = docOf((await svc.post('/api/v1/scrape', { url: feed, engine: 'browser' })).json);
    const after = docOf(
      (
        await svc.post('/api/v1/scrape', {
          url: feed,
          actions: [{ type: 'scroll', direction: 'down', amount: 5000 }, { type: 'scroll' }],
        })
      ).json,
    );
    const count = (md: string): number => (md.match(/Feed item \d+/g) ?? []).length;
    assert.equal(count(before.markdown!), 30);
    assert.ok(count(after.markdown!) > 30, `scrolling loaded more (${count(after.markdown!)})`);
    const into = await svc.post('/api/v1/scrape', {
      url: reveal,
      actions: [{ type: 'scroll', selector: '#q' }],
    });
    assert.equal(into.status, 200);
    const failing = await svc.post('/api/v1/scrape', {
      url: reveal,
      timeout: 5000,
      actions: [
        { type: 'wait', milliseconds: 10 },
        { type: 'click', selector: '#does-not-exist' },
      ],
    });
    assert.ok([408, 422].includes(failing.status), String(failing.status));
    assert.match(failing.json.error as string, /actions\[1\] \(click\)/);
    const invalid = await svc.post('/api/v1/scrape', {
      url: reveal,
      actions: [{ type: 'type', selector: '#q' }],
    });
    assert.equal(invalid.status, 400);
    assert.match(invalid.json.error as string, /actions\[0\]: type needs a selector and text/);
  });

  test('screenshots: png and jpeg data URLs that decode as images', async (t) => {
    const s = await site(t);
    const svc = await startService(t);
    const png = docOf(
      (await svc.post('/api/v1/scrape', { url: `${s.url}/blog/backpressure`, formats: ['screenshot'] })).json,
    );
    assert.match(png.screenshot!, /^data:image\/png;base64,/);
    const pngBytes = Buffer.from(png.screenshot!.split(',')[1]!, 'base64');
    assert.deepEqual([...pngBytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
    assert.equal(png.markdown, undefined, 'only the requested formats');
    const jpeg = docOf(
      (
        await svc.post('/api/v1/scrape', {
          url: `${s.url}/blog/backpressure`,
          screenshot: true,
          screenshotFormat: 'jpeg',
        })
      ).json,
    );
    assert.match(jpeg.screenshot!, /^data:image\/jpeg;base64,/);
    const jpegBytes = Buffer.from(jpeg.screenshot!.split(',')[1]!, 'base64');
    assert.deepEqual([...jpegBytes.subarray(0, 3)], [0xff, 0xd8, 0xff]);
    assert.match(jpeg.markdown!, /When a producer/, 'screenshot: true adds to the default formats');
  });

  test('timeouts answer at once and never leave more live pages than the pool; all slots come back', async (t) => {
    const s = await site(t);
    const svc = await startService(t, { env: { BROWSER_MAX_PAGES: '2' } });
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        svc.post('/api/v1/scrape', { url: `${s.url}/app/never`, engine: 'browser', timeout: 700 }),
      ),
    );
    assert.ok(
      answers.every((a) => a.status === 408),
      answers.map((a) => a.status).join(),
    );
    assert.ok(Date.now() - started < 6000);
    let peak = 0;
    for (let i = 0; i < 60 && svc.browserStats()!.active > 0; i++) {
      peak = Math.max(peak, svc.browserStats()!.active);
      assert.ok(svc.browserStats()!.active <= 2);
      await sleep(100);
    }
    assert.equal(svc.browserStats()!.active, 0, 'every page was closed and its slot returned');
    assert.ok(peak <= 2);
  });

  test('concurrent requests share one browser', async (t) => {
    const s = await site(t);
    const svc = await startService(t);
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        svc.post('/api/v1/scrape', { url: `${s.url}/app/csr`, engine: 'browser' }),
      ),
    );
    assert.ok(results.every((r) => r.status === 200));
    assert.equal(svc.browserStats()!.launches, 1);
  });

  test('the SSRF guard covers what the page itself requests', async (t) => {
    const s = await site(t);
    const internal = await site(t, '127.0.0.2');
    const svc = await startService(t, {
      env: { ALLOW_PRIVATE_NETWORKS: 'false' },
      isBlockedAddress: (a) => a !== '127.0.0.1' && isBlockedAddress(a),
    });
    const embed = `${s.url}/app/private-image?src=${encodeURIComponent(`${internal.url}/image.png`)}`;
    const res = await svc.post('/api/v1/scrape', { url: embed, engine: 'browser' });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    const redirect = await svc.post('/api/v1/scrape', {
      url: `${s.url}/redirect-to?to=${encodeURIComponent(`${internal.url}/blog/backpressure`)}`,
      engine: 'browser',
    });
    assert.equal(redirect.status, 403);
    const direct = await svc.post('/api/v1/scrape', {
      url: `${internal.url}/blog/backpressure`,
      engine: 'browser',
    });
    assert.equal(direct.status, 403);
    assert.deepEqual(
      internal.requests,
      [],
      'the private server saw nothing: not the image, not the redirect',
    );
  });
});
