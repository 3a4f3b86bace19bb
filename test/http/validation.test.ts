import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { site, startService } from '../helpers.js';

describe('request validation: 400 naming the field, never a 500', () => {
  test('each bad scrape input is a 400 whose message names the field', async (t) => {
    const s = await site(t);
    const svc = await startService(t);
    const url = `${s.url}/blog/backpressure`;
    const cases: [unknown, RegExp][] = [
      [{}, /missing required field 'url'/],
      [{ url: '' }, /url/],
      [{ url: 'not a url' }, /url must be an absolute http or https URL/],
      [{ url: 'ftp://example.com/file' }, /url scheme 'ftp:' is not supported/],
      [{ url: 'file:///etc/passwd' }, /url scheme 'file:'/],
      [{ url: 'javascript:alert(1)' }, /url scheme 'javascript:'/],
      [{ url: 'http://user:pass@example.com/' }, /url must not contain credentials/],
      [{ url, timeout: 0 }, /timeout must be >= 1/],
      [{ url, timeout: 300001 }, /timeout must be <= 300000/],
      [{ url, timeout: '1000' }, /timeout must be integer/],
      [{ url, timeout: 1.5 }, /timeout must be integer/],
      [{ url: 42 }, /url must be string/],
      [{ url, formats: 'markdown' }, /formats must be array/],
      [
        { url, formats: ['pdf'] },
        /formats\[0\] must be one of: markdown, html, rawHtml, links, images, screenshot/,
      ],
      [{ url, engine: 'chrome' }, /engine must be one of: auto, http, browser/],
      [{ url, onlyMainContent: 'yes' }, /onlyMainContent must be boolean/],
      [{ url, headers: { 'X-A': 1 } }, /headers\.X-A must be string/],
      [{ url, screenshotFormat: 'gif' }, /screenshotFormat must be one of: png, jpeg/],
      [{ url, actions: [{ type: 'hover' }] }, /actions\[0\]\.type must be one of/],
      [
        { url, actions: [{ type: 'click', selector: 'a', extra: 1 }] },
        /unknown field 'extra' in actions\[0\]/,
      ],
      [{ url, waitFor: -1 }, /waitFor must be >= 0/],
      [{ url, includeTags: [''] }, /includeTags\[0\]/],
      [{ url, onlyMaincontent: true }, /unknown field 'onlyMaincontent'/],
      [{ url, proxy: 'http://127.0.0.1:3128' }, /proxy/], // a tier, never a proxy address
      [[url], /body must be object/],
    ];
    for (const [body, message] of cases) {
      const { status, json } = await svc.post('/api/v1/scrape', body);
      assert.equal(status, 400, JSON.stringify(body));
      assert.equal(json.success, false);
      assert.equal(json.code, 'BAD_REQUEST');
      assert.match(json.error as string, message, JSON.stringify(body));
    }
    assert.deepEqual(s.requests, [], 'no bad request reached the target');
  });

  test('malformed JSON, wrong content type and oversized bodies', async (t) => {
    const svc = await startService(t, { env: { MAX_REQUEST_BODY_BYTES: '2048' } });
    const malformed = await svc.post('/api/v1/scrape', '{"url": ');
    assert.equal(malformed.status, 400);
    assert.match(malformed.json.error as string, /not valid JSON/);
    const empty = await fetch(`${svc.url}/api/v1/scrape`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(empty.status, 400);
    const wrongType = await fetch(`${svc.url}/api/v1/scrape`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'url=x',
    });
    assert.equal(wrongType.status, 415);
    assert.match(((await wrongType.json()) as { error: string }).error, /application\/json/);
    const huge = await svc.post('/api/v1/scrape', { url: `http://example.com/${'a'.repeat(4000)}` });
    assert.equal(huge.status, 413);
    assert.equal(huge.json.code, 'BODY_TOO_LARGE');
  });

  test('Firecrawl SDK bodies: origin and integration are accepted, Bearer header ignored', async (t) => {
    const s = await site(t);
    const svc = await startService(t);
    const res = await fetch(`${svc.url}/api/v1/scrape`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer fc-anything' },
      body: JSON.stringify({
        url: `${s.url}/shop`,
        formats: ['markdown'],
        origin: 'js-sdk@1.29.3',
        integration: 'x',
      }),
    });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { success: boolean }).success, true);
  });

  test('every operation accepts the SDK client tags (origin, integration)', async (t) => {
    const s = await site(t);
    const svc = await startService(t, {
      env: { SEARCH_PROVIDER: 'searxng', SEARXNG_URL: `${s.url}/nowhere` },
    });
    const tags = { origin: 'js-sdk@4.3.0', integration: 'x' };
    const bodies: [string, Record<string, unknown>][] = [
      ['/api/v1/scrape', { url: `${s.url}/shop` }],
      ['/api/v1/crawl', { url: `${s.url}/shop`, limit: 1 }],
      ['/api/v1/map', { url: `${s.url}/shop`, limit: 1 }],
      ['/api/v1/extract', { urls: [`${s.url}/shop`], selectors: { title: 'h1' } }],
      ['/api/v1/llmstxt', { url: `${s.url}/shop`, maxUrls: 1 }],
      ['/api/v1/search', { query: 'anything' }],
    ];
    for (const [path, body] of bodies) {
      const { status, json } = await svc.post(path, { ...body, ...tags });
      assert.notEqual(status, 400, `${path}: ${JSON.stringify(json).slice(0, 200)}`);
      assert.doesNotMatch(JSON.stringify(json), /unknown field/);
    }
  });

  test('unknown routes and methods are JSON 404s', async (t) => {
    const svc = await startService(t);
    const res = await svc.post('/api/v1/nope', {});
    assert.equal(res.status, 404);
    assert.equal(res.json.success, false);
    assert.match(res.json.error as string, /POST \/api\/v1\/nope/);
  });

  test('browser-only options with engine http are a 400 naming them; without a browser, a 503', async (t) => {
    const s = await site(t);
    const svc = await startService(t, { env: { CHROMIUM_PATH: '/nonexistent/chromium' } });
    const url = `${s.url}/blog/backpressure`;
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ screenshot: true }, /screenshot needs the browser engine/],
      [{ formats: ['screenshot'] }, /screenshot needs the browser engine/],
      [{ waitFor: 100 }, /waitFor needs the browser engine/],
      [{ waitForSelector: '#x' }, /waitForSelector needs the browser engine/],
      [{ actions: [{ type: 'click', selector: 'a' }] }, /actions needs the browser engine/],
    ];
    for (const [extra, message] of cases) {
      const res = await svc.post('/api/v1/scrape', { url, engine: 'http', ...extra });
      assert.equal(res.status, 400, JSON.stringify(extra));
      assert.equal(res.json.code, 'UNSUPPORTED_FEATURE');
      assert.match(res.json.error as string, message);
    }
    const browser = await svc.post('/api/v1/scrape', { url, engine: 'browser' });
    assert.equal(browser.status, 503);
    assert.match(browser.json.error as string, /browser engine/);
    const auto = await svc.post('/api/v1/scrape', { url, screenshot: true });
    assert.equal(auto.status, 503);
    assert.deepEqual(s.requests, []);
  });
});
