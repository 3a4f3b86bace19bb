import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import { startService } from '../helpers.js';
import { PAGES, startChallengeSite } from '../fixtures/sites/challenge-site.js';
import type { ChallengeMode, ChallengeSite } from '../fixtures/sites/challenge-site.js';
import { call, json, over, poll } from '../jobs/http.js';
import type { Json } from '../jobs/http.js';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = existsSync(chromiumPath) ? false : `chromium is not installed at ${chromiumPath}`;
if (skip) console.log(`\n!!! CHALLENGE TESTS SKIPPED: ${skip}. Run scripts/ensure-chromium.sh.\n`);

interface Page {
  markdown: string;
  metadata: { title: string; statusCode: number; detectionReason: string | null; url: string };
}

async function setup(t: TestContext, mode: ChallengeMode = 'clears') {
  const site = await startChallengeSite(mode);
  t.after(() => site.close());
  const svc = await startService(t, { env: { CHROMIUM_PATH: chromiumPath, CRAWL_MIN_DELAY_MS: '0' } });
  return { site, svc };
}

const solved = (site: ChallengeSite): string =>
  `${site.solves} solves, ${site.challenges} challenge pages, ${site.served} pages served (${site.rendered} rendered)`;

describe('anti-bot challenges', { skip }, () => {
  test('a scrape behind the interstitial returns the real page, passed in the browser (engine auto)', async (t) => {
    const { site, svc } = await setup(t);
    const reply = json(await svc.post('/api/v1/scrape', { url: `${site.url}/p/3`, timeout: 20_000 }));
    const doc = reply.data as Page;
    assert.equal(doc.metadata.title, 'Guarded page 3');
    assert.equal(doc.metadata.statusCode, 200);
    assert.match(doc.markdown, /harbours, tides and the ships/);
    assert.doesNotMatch(doc.markdown, /Checking your browser/);
    assert.match(
      String(doc.metadata.detectionReason),
      /anti-bot challenge \(cf-mitigated: challenge\): passed in the browser engine/,
    );
    assert.equal(site.solves, 1, solved(site));
  });

  test('engine "http" answers the challenge as TARGET_CHALLENGE, never as content', async (t) => {
    const { site, svc } = await setup(t);
    const reply = await svc.post('/api/v1/scrape', { url: `${site.url}/`, engine: 'http' });
    assert.equal(reply.status, 403, JSON.stringify(reply.json));
    assert.equal(reply.json.code, 'TARGET_CHALLENGE');
    assert.match(String(reply.json.error), /anti-bot challenge \(cf-mitigated: challenge\): engine "http"/);
    assert.equal(reply.json.data, undefined);
    assert.equal(site.solves, 0);
  });

  test(`a ${PAGES}-page crawl returns every page after one solve; its clearance is saved with the profile`, async (t) => {
    const { site, svc } = await setup(t);
    const started = Date.now();
    const crawl = json(
      await svc.post('/api/v1/crawl', {
        url: `${site.url}/`,
        limit: 50,
        timeout: 20_000,
        profile: { name: 'guarded', saveChanges: true },
      }),
    );
    const pages = crawl.data as Page[];
    assert.deepEqual(crawl.errors, []);
    assert.deepEqual(pages.map((p) => p.metadata.url).sort(), [...site.pages].sort());
    for (const p of pages) {
      assert.match(p.metadata.title, /^Guarded page \d+$/);
      assert.doesNotMatch(p.markdown, /Checking your browser/);
    }
    assert.ok(site.solves >= 1 && site.solves <= 3, solved(site));
    // Pages the browser did not render came over http with the clearance.
    assert.ok(site.rendered <= 3, solved(site));
    assert.ok(site.served - site.rendered >= PAGES - 3, solved(site));
    t.diagnostic(`crawl: ${solved(site)}, ${Date.now() - started} ms`);

    // The profile carries the clearance: a later scrape over http alone passes without a solve.
    const solves = site.solves;
    const again = json(
      await svc.post('/api/v1/scrape', {
        url: `${site.url}/p/7`,
        engine: 'http',
        profile: { name: 'guarded' },
      }),
    );
    assert.equal((again.data as Page).metadata.title, 'Guarded page 7');
    assert.equal(site.solves, solves);
  });

  test('a Firecrawl v2 batch of every page at once waits for one solve per host', async (t) => {
    const { site, svc } = await setup(t);
    const started = json(await call(`${svc.url}/v2/batch/scrape`, 'POST', { urls: site.pages }));
    const done = json(await poll(started.url as string, over));
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const data = done.data as { metadata: Json }[];
    assert.equal(data.length, PAGES);
    for (const d of data) assert.match(String(d.metadata.title), /^Guarded page \d+$/);
    assert.ok(site.solves >= 1 && site.solves <= 3, solved(site));
    assert.ok(site.rendered <= 3, solved(site));
    t.diagnostic(`batch: ${solved(site)}`);
  });

  test('a challenge that never clears is TARGET_CHALLENGE: a scrape answers it, a crawl lists it', async (t) => {
    const { site, svc } = await setup(t, 'captcha');
    const reply = await svc.post('/api/v1/scrape', { url: `${site.url}/`, timeout: 8000 });
    assert.equal(reply.status, 403, JSON.stringify(reply.json));
    assert.equal(reply.json.code, 'TARGET_CHALLENGE');
    assert.match(String(reply.json.error), /did not get past within the page's deadline/);
    // The answer came before the deadline ran out: a deadline that ran out answers 408, whatever the page did.
    assert.notEqual(reply.status, 408, 'answered within the deadline');

    const crawl = json(await svc.post('/api/v1/crawl', { url: `${site.url}/`, timeout: 5000 }));
    assert.deepEqual(crawl.data, []);
    const errors = crawl.errors as { url: string; code: string }[];
    assert.deepEqual(
      errors.map((e) => [e.url, e.code]),
      [[`${site.url}/`, 'TARGET_CHALLENGE']],
    );
    assert.equal(site.solves, 0);

    const batch = json(
      await call(`${svc.url}/v2/batch/scrape`, 'POST', { urls: site.pages.slice(0, 4), timeout: 5000 }),
    );
    const done = json(await poll(batch.url as string, over));
    assert.deepEqual(done.data, []);
    const failed = json(await call(`${svc.url}/v2/batch/scrape/${String(batch.id)}/errors`));
    const codes = (failed.errors as { code: string }[]).map((e) => e.code);
    assert.deepEqual(codes, ['TARGET_CHALLENGE', 'TARGET_CHALLENGE', 'TARGET_CHALLENGE', 'TARGET_CHALLENGE']);
  });
});
