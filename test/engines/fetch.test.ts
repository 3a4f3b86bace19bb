import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { page } from '../fixtures/site.js';
import { docOf, site, startService } from '../helpers.js';

describe('fetching: encodings, redirects, compression, limits, non-HTML', () => {
  test('non-UTF-8 pages decode by the WHATWG rules (header, meta prescan, BOM, windows-1252 fallback)', async (t) => {
    const s = await site(t);
    const svc = await startService(t);
    const cases: [string, string, RegExp][] = [
      ['/cp1251', 'Новости науки', /Учёные обнаружили новый вид глубоководных рыб/],
      ['/sjis', '東京の天気', /今日は晴れのち曇り、最高気温は二十三度です。/],
      ['/gbk', '北京欢迎你', /这是一个使用国标扩展编码的中文网页。/],
      ['/latin1', 'Café crème', /Déjà vu – naïve façade €5/],
      ['/utf8-bom', 'Новости науки', /Тихом океане/],
      ['/utf8-undeclared', 'Новости науки', /Тихом океане/],
      ['/late-meta', 'Новости науки', /Тихом океане/],
    ];
    for (const [path, title, body] of cases) {
      const doc = docOf((await svc.post('/api/v1/scrape', { url: s.url + path })).json);
      assert.equal(doc.title, title, path);
      assert.match(doc.markdown!, body, path);
    }
  });

  test('redirect chains are followed and reported; loops stop with TOO_MANY_REDIRECTS', async (t) => {
    const s = await site(t);
    const svc = await startService(t, { env: { MAX_REDIRECTS: '5' } });
    const ok = docOf((await svc.post('/api/v1/scrape', { url: `${s.url}/redirect/4`, formats: [] })).json);
    assert.equal(ok.metadata.url, `${s.url}/blog/backpressure`);
    assert.equal(ok.metadata.sourceUrl, `${s.url}/redirect/4`);
    const tooLong = await svc.post('/api/v1/scrape', { url: `${s.url}/redirect/6` });
    assert.equal(tooLong.status, 502);
    assert.equal(tooLong.json.code, 'TOO_MANY_REDIRECTS');
    const loop = await svc.post('/api/v1/scrape', { url: `${s.url}/loop/a` });
    assert.equal(loop.status, 502);
    assert.match(loop.json.error as string, /redirects/);
  });

  test('gzip and brotli bodies are decoded; a gzip bomb hits the decoded-size cap', async (t) => {
    const s = await site(t);
    const svc = await startService(t, { env: { MAX_DECOMPRESSED_BYTES: String(8 * 1024 * 1024) } });
    for (const path of ['/gzip/blog', '/br/blog']) {
      const doc = docOf((await svc.post('/api/v1/scrape', { url: s.url + path })).json);
      assert.match(doc.markdown!, /When a producer writes data faster/, path);
    }
    const bomb = await svc.post('/api/v1/scrape', { url: `${s.url}/gzip-bomb` });
    assert.equal(bomb.status, 502);
    assert.equal(bomb.json.code, 'TARGET_TOO_LARGE');
  });

  test('response-size cap: a page larger than MAX_RESPONSE_BYTES fails clearly, a smaller one passes', async (t) => {
    const s = await site(t);
    const svc = await startService(t, { env: { MAX_RESPONSE_BYTES: String(200_000) } });
    const big = await svc.post('/api/v1/scrape', { url: `${s.url}/huge?bytes=400000` });
    assert.equal(big.status, 502);
    assert.equal(big.json.code, 'TARGET_TOO_LARGE');
    assert.match(big.json.error as string, /200000-byte limit/);
    const small = await svc.post('/api/v1/scrape', { url: `${s.url}/huge?bytes=100000`, formats: [] });
    assert.equal(small.status, 200);
    assert.ok((docOf(small.json).metadata.wordCount as number) > 10000);
  });

  test('timeout is the total budget: a slow page fails with TIMEOUT and the fetch is aborted', async (t) => {
    const s = await site(t);
    const svc = await startService(t);
    const started = Date.now();
    const slow = await svc.post('/api/v1/scrape', { url: `${s.url}/slow?ms=5000`, timeout: 300 });
    assert.equal(slow.status, 408);
    assert.equal(slow.json.code, 'TIMEOUT');
    assert.match(slow.json.error as string, /300 ms/);
    assert.ok(Date.now() - started < 4000, 'answered before the page would have');
    const stalled = await svc.post('/api/v1/scrape', { url: `${s.url}/stall`, timeout: 300 });
    assert.equal(stalled.status, 408);
    const fast = await svc.post('/api/v1/scrape', { url: `${s.url}/slow?ms=50`, timeout: 5000, formats: [] });
    assert.equal(fast.status, 200);
  });

  test('target 4xx/5xx still return a document with metadata.statusCode', async (t) => {
    const s = await site(t);
    const svc = await startService(t);
    for (const code of [404, 500]) {
      const { status, json } = await svc.post('/api/v1/scrape', { url: `${s.url}/status/${code}` });
      assert.equal(status, 200);
      assert.equal(docOf(json).metadata.statusCode, code);
      assert.match(docOf(json).markdown!, new RegExp(`\\(${code}\\)`));
    }
  });

  test('non-HTML: JSON and XML fenced, text and Markdown as-is, binary refused', async (t) => {
    const s = await site(t);
    const svc = await startService(t);
    const json = docOf(
      (await svc.post('/api/v1/scrape', { url: `${s.url}/data.json`, formats: ['markdown', 'links'] })).json,
    );
    assert.equal(
      json.markdown,
      '```json\n{\n  "name": "widget",\n  "tags": [\n    "a",\n    "b"\n  ],\n  "price": 9.5\n}\n```',
    );
    assert.equal(json.metadata.contentType, 'application/json');
    assert.equal(json.metadata.contentScriptRatio, null);
    assert.deepEqual(json.links, []);
    const xml = docOf((await svc.post('/api/v1/scrape', { url: `${s.url}/feed.xml` })).json);
    assert.match(xml.markdown!, /^```xml\n<\?xml version="1\.0"\?><rss>/);
    const text = docOf(
      (await svc.post('/api/v1/scrape', { url: `${s.url}/plain.txt`, formats: ['markdown', 'rawHtml'] }))
        .json,
    );
    assert.equal(text.markdown, 'Plain text file.\nSecond line with *stars*.');
    assert.equal(text.rawHtml, 'Plain text file.\nSecond line with *stars*.\n');
    const md = docOf((await svc.post('/api/v1/scrape', { url: `${s.url}/readme.md` })).json);
    assert.equal(md.markdown, '# Readme\n\nSome **markdown** text.');
    const sniffed = docOf((await svc.post('/api/v1/scrape', { url: `${s.url}/no-content-type` })).json);
    assert.match(sniffed.markdown!, /^# Understanding Backpressure/m);
    const png = await svc.post('/api/v1/scrape', { url: `${s.url}/image.png` });
    assert.equal(png.status, 422);
    assert.equal(png.json.code, 'UNSUPPORTED_CONTENT');
    assert.match(png.json.error as string, /image\/png/);
  });

  test('unreachable targets give 502 TARGET_UNREACHABLE', async (t) => {
    const s = await site(t);
    const port = new URL(s.url).port;
    await s.close();
    const svc = await startService(t);
    const { status, json } = await svc.post('/api/v1/scrape', { url: `http://127.0.0.1:${port}/` });
    assert.equal(status, 502);
    assert.equal(json.code, 'TARGET_UNREACHABLE');
    assert.match(json.error as string, /connection refused/);
  });

  test('skipTlsVerification: a self-signed certificate fails by default and passes when set', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const server = createServer(
      { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
      (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page('article.html')),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const svc = await startService(t);
    const refused = await svc.post('/api/v1/scrape', { url });
    assert.equal(refused.status, 502);
    assert.match(refused.json.error as string, /TLS|certificate/i);
    const accepted = await svc.post('/api/v1/scrape', { url, skipTlsVerification: true });
    assert.equal(accepted.status, 200);
    assert.match(docOf(accepted.json).markdown!, /When a producer writes data faster/);
  });
});
