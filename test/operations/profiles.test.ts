import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import { startService } from '../helpers.js';
import type { Service } from '../helpers.js';
import { SESSION_VALUE, loginResolver, startLoginSite } from '../fixtures/sites/login-site.js';
import type { LoginSite } from '../fixtures/sites/login-site.js';
import { call, json, over, poll } from '../jobs/http.js';
import type { Json } from '../jobs/http.js';

/** Logged-in crawling with profiles on the http engine: login, crawls, Firecrawl's routes, the profile routes. */

interface Setup {
  site: LoginSite;
  svc: Service;
  dataDir: string;
  logLines: string[];
}

async function setup(t: TestContext, env: Record<string, string> = {}): Promise<Setup> {
  const site = await startLoginSite();
  t.after(() => site.close());
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pagewright-profiles-'));
  const logLines: string[] = [];
  const svc = await startService(t, {
    env: { DATA_DIR: dataDir, CRAWL_MIN_DELAY_MS: '0', ...env },
    resolver: loginResolver,
    logLines,
  });
  // Registered after the service's own: runs after it closed the file.
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  return { site, svc, dataDir, logLines };
}

/** Logs in over http: the login URL answers Set-Cookie on a redirect hop; saveChanges keeps the jar as 'acme'. */
async function httpLogin(s: Setup, name = 'acme'): Promise<Json> {
  const reply = await s.svc.post('/api/v1/scrape', {
    url: `${s.site.url}/login?user=ada`,
    engine: 'http',
    profile: { name, saveChanges: true },
  });
  return json(reply);
}

const titles = (pages: { metadata: { title?: string } }[]): string[] =>
  pages.map((p) => p.metadata.title ?? '').sort();

describe('profiles on the http engine', () => {
  test('a login through Set-Cookie is saved; native crawl, Firecrawl v2 crawl and batch reach the private pages', async (t) => {
    const s = await setup(t, { PROFILE_SECRET: 'a long operator secret' });
    const replies: unknown[] = [];
    const login = await httpLogin(s);
    replies.push(login);
    const doc = login.data as { markdown: string; metadata: { url: string } };
    assert.equal(doc.metadata.url, `${s.site.url}/private/a`, 'the redirect hop set the cookie');
    assert.match(doc.markdown, /Members-only report a/);

    // Without the profile the private pages are the login form.
    const anonymous = json(
      await s.svc.post('/api/v1/crawl', { url: `${s.site.url}/private/a`, engine: 'http' }),
    );
    assert.deepEqual(titles(anonymous.data as never), ['Sign in']);

    const native = json(
      await s.svc.post('/api/v1/crawl', {
        url: `${s.site.url}/private/a`,
        engine: 'http',
        allowBackwardLinks: true,
        profile: { name: 'acme' },
      }),
    );
    replies.push(native);
    assert.deepEqual(titles(native.data as never), ['Private A', 'Private B', 'Private C']);

    const started = json(
      await call(`${s.svc.url}/v2/crawl`, 'POST', {
        url: `${s.site.url}/private/a`,
        sitemap: 'skip',
        crawlEntireDomain: true,
        scrapeOptions: { profile: { name: 'acme' } },
      }),
    );
    const crawled = json(await poll(started.url as string, over));
    replies.push(crawled);
    assert.equal(crawled.status, 'completed');
    assert.deepEqual(titles(crawled.data as never), ['Private A', 'Private B', 'Private C']);

    const batch = json(
      await call(`${s.svc.url}/v2/batch/scrape`, 'POST', {
        urls: [`${s.site.url}/private/b`, `${s.site.url}/private/c`],
        profile: { name: 'acme' },
      }),
    );
    const batched = json(await poll(batch.url as string, over));
    replies.push(batched);
    assert.deepEqual(titles(batched.data as never), ['Private B', 'Private C']);

    const v2 = json(
      await call(`${s.svc.url}/v2/scrape`, 'POST', {
        url: `${s.site.url}/private/c`,
        profile: { name: 'acme' },
      }),
    );
    replies.push(v2);
    assert.equal((v2.data as { metadata: { title: string } }).metadata.title, 'Private C');

    // The cookie is in no answer, no log line, and not in the stored bytes (sealed with PROFILE_SECRET).
    assert.ok(!JSON.stringify(replies).includes(SESSION_VALUE), 'no document carries the cookie');
    assert.ok(s.logLines.length > 0);
    assert.ok(!s.logLines.join('\n').includes(SESSION_VALUE), 'no log line carries the cookie');
    const files = readdirSync(s.dataDir).filter((f) => f.startsWith('pagewright.db'));
    assert.ok(files.length > 0);
    for (const file of files) {
      const bytes = readFileSync(path.join(s.dataDir, file));
      assert.ok(!bytes.includes(SESSION_VALUE), `${file} holds the cookie in clear`);
    }
    const metrics = await (await fetch(`${s.svc.url}/metrics`)).text();
    assert.ok(!metrics.includes(SESSION_VALUE));
  });

  test("cookies never cross their domain: 127.0.0.1's session is not sent to localhost", async (t) => {
    const s = await setup(t);
    await httpLogin(s);
    const other = `http://localhost:${s.site.port}`;
    const reply = json(
      await s.svc.post('/api/v1/scrape', {
        url: `${other}/private/b`,
        engine: 'http',
        profile: { name: 'acme' },
      }),
    );
    assert.equal((reply.data as { metadata: { title: string } }).metadata.title, 'Sign in');
    const toLocalhost = s.site.seen.filter((r) => r.host === 'localhost');
    assert.ok(toLocalhost.length >= 2, 'the page and its redirect to /login');
    for (const r of toLocalhost) assert.equal(r.cookie, undefined, `${r.path} got a cookie`);
    // A crawl starting on localhost and reaching 127.0.0.1 sends the session only there.
    const profiles = json(await call(`${s.svc.url}/api/v1/profiles/acme`));
    assert.deepEqual((profiles.profile as { domains: string[] }).domains, ['127.0.0.1']);
  });

  test('profile is checked: name characters and length, unknown fields, a missing profile, search refuses it', async (t) => {
    const s = await setup(t);
    const url = `${s.site.url}/private/a`;
    for (const profile of [
      { name: 'bad name!' },
      { name: 'x'.repeat(65) },
      { name: '' },
      { name: 'a', other: 1 },
    ]) {
      for (const route of ['/api/v1/scrape', '/v2/scrape', '/v1/scrape']) {
        const r = await call(`${s.svc.url}${route}`, 'POST', { url, profile });
        assert.equal(r.status, 400, `${route} ${JSON.stringify(profile)}`);
        assert.match(String(r.json.error), /profile/, String(r.json.error));
      }
    }
    const crawl = await call(`${s.svc.url}/v2/crawl`, 'POST', {
      url,
      scrapeOptions: { profile: { name: 'a/b' } },
    });
    assert.equal(crawl.status, 400);
    assert.match(String(crawl.json.error), /scrapeOptions.*profile/);
    const missing = await call(`${s.svc.url}/api/v1/scrape`, 'POST', { url, profile: { name: 'nobody' } });
    assert.equal(missing.status, 404);
    assert.equal(missing.json.code, 'NOT_FOUND');
    assert.match(String(missing.json.error), /profile.*'nobody'/);
    const search = await call(`${s.svc.url}/v2/search`, 'POST', {
      query: 'x',
      scrapeOptions: { formats: ['markdown'], profile: { name: 'acme' } },
    });
    assert.equal(search.status, 400);
    assert.match(String(search.json.error), /scrapeOptions\.profile/);
  });

  test('GET /api/v1/profiles, GET and DELETE /api/v1/profiles/:name, behind API_KEYS', async (t) => {
    const s = await setup(t, { API_KEYS: 'k1' });
    const auth = { authorization: 'Bearer k1' };
    const get = async (p: string, method = 'GET', headers: Record<string, string> = auth) => {
      const res = await fetch(`${s.svc.url}${p}`, { method, headers });
      return { status: res.status, json: (await res.json()) as Json };
    };
    assert.equal((await get('/api/v1/profiles', 'GET', {})).status, 401);
    assert.equal((await get('/api/v1/profiles/acme', 'DELETE', {})).status, 401);
    const login = await fetch(`${s.svc.url}/api/v1/scrape`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        url: `${s.site.url}/login?user=ada`,
        engine: 'http',
        profile: { name: 'acme', saveChanges: true },
      }),
    });
    assert.equal(login.status, 200);
    const list = json(await get('/api/v1/profiles'));
    const [acme] = list.profiles as Json[];
    assert.equal((list.profiles as Json[]).length, 1);
    assert.deepEqual(
      { name: acme!.name, cookies: acme!.cookies, domains: acme!.domains },
      { name: 'acme', cookies: 2, domains: ['127.0.0.1'] },
    );
    for (const field of ['createdAt', 'updatedAt', 'expiresAt'])
      assert.ok(!Number.isNaN(Date.parse(String(acme![field]))));
    const days = (Date.parse(String(acme!.expiresAt)) - Date.parse(String(acme!.updatedAt))) / 86_400_000;
    assert.equal(days, 30, 'PROFILE_TTL_DAYS default');
    assert.ok(!JSON.stringify(list).includes(SESSION_VALUE));
    assert.deepEqual(json(await get('/api/v1/profiles/acme')).profile, acme);
    const missing = await get('/api/v1/profiles/nobody');
    assert.deepEqual([missing.status, missing.json.code], [404, 'NOT_FOUND']);
    assert.equal((await get('/api/v1/profiles/bad%20name')).status, 400);
    assert.deepEqual(json(await get('/api/v1/profiles/acme', 'DELETE')), { success: true });
    assert.equal((await get('/api/v1/profiles/acme', 'DELETE')).status, 404);
    assert.deepEqual(json(await get('/api/v1/profiles')).profiles, []);
    const spec = json(await get('/api/docs/openapi.json'));
    const paths = spec.paths as Record<string, Json>;
    assert.ok(paths['/api/v1/profiles']?.get && paths['/api/v1/profiles/{name}']?.delete, 'in the OpenAPI');
  });
});
