import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { docOf, site, startService } from '../helpers.js';

describe('POST /api/v1/scrape (http engine)', () => {
  test('defaults: markdown only, metadata always, top-level title/description/url', async (t) => {
    const s = await site(t);
    const svc = await startService(t);
    const { status, json } = await svc.post('/api/v1/scrape', { url: `${s.url}/blog/backpressure` });
    assert.equal(status, 200);
    assert.equal(json.success, true);
    const doc = docOf(json);
    assert.deepEqual(Object.keys(doc).sort(), ['description', 'markdown', 'metadata', 'title', 'url']);
    assert.equal(doc.title, doc.metadata.title);
    assert.equal(doc.description, doc.metadata.description);
    assert.equal(doc.url, doc.metadata.url);
    // onlyMainContent defaults to false: navigation and footer stay.
    assert.match(doc.markdown!, /\[Home\]\(http:\/\/127\.0\.0\.1:\d+\/\)/);
    assert.match(doc.markdown!, /All rights reserved/);
  });

  test('every metadata field of the page document', async (t) => {
    const s = await site(t);
    const svc = await startService(t);
    const { json } = await svc.post('/api/v1/scrape', { url: `${s.url}/redirect/2`, engine: 'http' });
    const m = docOf(json).metadata;
    assert.deepEqual(m, {
      title: 'Understanding Backpressure in Node.js Streams | The Runtime Blog',
      description:
        'A practical guide to backpressure: why it happens, how Node.js streams signal it, and how to respect it in your own code.',
      language: 'en-GB',
      keywords: 'node.js, streams, backpressure, performance',
      robots: 'index, follow',
      ogTitle: 'Understanding Backpressure in Node.js Streams',
      ogDescription: 'Why writable streams say no, and what to do about it.',
      ogUrl: `${s.url}/blog/backpressure`,
      ogImage: `${s.url}/static/img/backpressure-cover.jpg`,
      url: `${s.url}/blog/backpressure`,
      sourceUrl: `${s.url}/redirect/2`,
      statusCode: 200,
      contentType: 'text/html',
      canonicalUrl: `${s.url}/blog/backpressure`,
      wordCount: m.wordCount,
      readingTime: Math.ceil((m.wordCount as number) / 200),
      excerpt: m.excerpt,
      detectedFrameworks: null,
      detectionReason: null,
      contentScriptRatio: m.contentScriptRatio,
      pageType: 'other', // beyond the native API's fields: no schema.org type or og:type on this fixture
    });
    assert.ok(
      (m.wordCount as number) > 250 && (m.wordCount as number) < 500,
      `wordCount ${String(m.wordCount)}`,
    );
    assert.match(m.excerpt as string, /^When a producer writes data faster/);
    assert.ok((m.contentScriptRatio as number) > 0.5 && (m.contentScriptRatio as number) <= 1);
  });

  test('metadata defaults on a bare page: empty description, nulls, detected language', async (t) => {
    const s = await site(t);
    const svc = await startService(t);
    const m = docOf((await svc.post('/api/v1/scrape', { url: `${s.url}/no-lang` })).json).metadata;
    assert.equal(m.description, '');
    assert.equal(m.language, 'en');
    for (const key of [
      'keywords',
      'robots',
      'ogTitle',
      'ogDescription',
      'ogUrl',
      'ogImage',
      'canonicalUrl',
    ]) {
      assert.equal(m[key], null, key);
    }
    assert.match(m.detectionReason as string, /http engine/);
    const header = docOf((await svc.post('/api/v1/scrape', { url: `${s.url}/content-language` })).json);
    assert.equal(header.metadata.language, 'fr-CA');
  });

  test('client-side framework shells are fingerprinted', async (t) => {
    const s = await site(t);
    const svc = await startService(t);
    const m = docOf(
      (await svc.post('/api/v1/scrape', { url: `${s.url}/empty`, engine: 'http' })).json,
    ).metadata;
    assert.equal(m.wordCount, 0);
    assert.equal(m.excerpt, null);
    assert.equal(m.readingTime, 0);
  });

  test('all formats: html cleaned with absolute URLs, rawHtml as served, links and images as absolute URLs', async (t) => {
    const s = await site(t);
    const svc = await startService(t);
    const { json } = await svc.post('/api/v1/scrape', {
      url: `${s.url}/blog/backpressure`,
      formats: ['markdown', 'html', 'rawHtml', 'links', 'images'],
    });
    const doc = docOf(json);
    assert.doesNotMatch(doc.html!, /<script|<style|analytics loaded|dataLayer/);
    assert.match(doc.html!, new RegExp(`<a href="${s.url}/docs/streams">`));
    assert.match(doc.html!, new RegExp(`src="${s.url}/static/img/pipeline-diagram.png"`));
    assert.doesNotMatch(doc.html!, /data:image\/png;base64/);
    assert.match(doc.rawHtml!, /<script>window\.dataLayer/);
    assert.ok(doc.links!.includes(`${s.url}/docs/streams`));
    assert.ok(doc.links!.includes('https://nodejs.org/api/stream.html'));
    assert.ok(
      doc.links!.every((l) => /^https?:\/\//.test(l)),
      'only http(s) links',
    );
    assert.equal(new Set(doc.links).size, doc.links!.length, 'links deduplicated');
    assert.deepEqual(doc.images, [`${s.url}/static/img/pipeline-diagram.png`]);
  });

  test('markdown: headings, GFM table, fenced code with language, nested lists, entities, no script text', async (t) => {
    const s = await site(t);
    const svc = await startService(t);
    const md = docOf(
      (await svc.post('/api/v1/scrape', { url: `${s.url}/blog/backpressure` })).json,
    ).markdown!;
    assert.match(md, /^# Understanding Backpressure in Node\.js Streams$/m);
    assert.match(md, /^## How writable streams say no$/m);
    assert.match(
      md,
      /```javascript\nconst ok = writable\.write\(chunk\);\nif \(!ok\) \{\n {2}\/\/ The buffer/,
    );
    assert.match(
      md,
      /\| Approach \| Handles backpressure \| Propagates errors \|\n\| --- \| --- \| --- \|\n\| `pipe\(\)` \| Yes \| No \|/,
    );
    assert.match(
      md,
      /^2\. When you must write by hand, \*\*always\*\* check the return value:\n {3}- On `false`, wait for `'drain'`\.$/m,
    );
    assert.match(md, /^> “Backpressure is not an error\./m);
    assert.match(md, /mistakes & how to spot/);
    assert.match(md, /in € and £; temperatures in °C/);
    assert.match(md, new RegExp(`\\[streams reference\\]\\(${s.url}/docs/streams\\)`));
    // A link's own brackets would close its text early for many Markdown readers: a citation "[1]" reads 1.
    assert.match(md, new RegExp(`\\[1\\]\\(${s.url}/docs/streams#notes\\)`));
    assert.match(
      md,
      new RegExp(
        `!\\[A producer, a buffer and a consumer connected by arrows\\]\\(${s.url}/static/img/pipeline-diagram\\.png\\)`,
      ),
    );
    assert.doesNotMatch(md, /analytics loaded|dataLayer|\.hero\{|<\/?[a-z]+[ >]/);
  });

  test('removeBase64Images: stripped by default, kept when false', async (t) => {
    const s = await site(t);
    const svc = await startService(t);
    const url = `${s.url}/blog/backpressure`;
    const stripped = docOf((await svc.post('/api/v1/scrape', { url, formats: ['markdown', 'images'] })).json);
    assert.doesNotMatch(stripped.markdown!, /data:image/);
    assert.ok(stripped.images!.every((i) => !i.startsWith('data:')));
    const kept = docOf(
      (await svc.post('/api/v1/scrape', { url, formats: ['markdown', 'images'], removeBase64Images: false }))
        .json,
    );
    assert.match(kept.markdown!, /!\[inline pixel\]\(data:image\/png;base64,/);
    assert.ok(kept.images!.some((i) => i.startsWith('data:image/png;base64,')));
  });

  test('lazy images resolve from data-src; <base href> governs relative URLs', async (t) => {
    const s = await site(t);
    const svc = await startService(t);
    const shop = docOf(
      (await svc.post('/api/v1/scrape', { url: `${s.url}/shop`, formats: ['markdown', 'images'] })).json,
    );
    assert.ok(shop.images!.includes(`${s.url}/img/p/trail-lite.jpg`));
    assert.match(shop.markdown!, /\| EU \| UK \| US \|/);
    const docs = docOf(
      (await svc.post('/api/v1/scrape', { url: `${s.url}/docs/v2/configuration`, formats: ['links'] })).json,
    );
    assert.ok(docs.links!.includes(`${s.url}/docs/v2/getting-started`));
    assert.ok(docs.links!.includes(`${s.url}/changelog`));
  });

  test('includeTags and excludeTags select before conversion', async (t) => {
    const s = await site(t);
    const svc = await startService(t);
    const url = `${s.url}/blog/backpressure`;
    const only = docOf(
      (await svc.post('/api/v1/scrape', { url, includeTags: ['table.comparison', 'h1'] })).json,
    );
    assert.equal(only.markdown!.split('\n')[0], '# Understanding Backpressure in Node.js Streams');
    assert.match(only.markdown!, /\| Approach \|/);
    assert.doesNotMatch(only.markdown!, /When a producer/);
    const without = docOf(
      (await svc.post('/api/v1/scrape', { url, excludeTags: ['nav', 'footer', '.cookie-banner', 'pre'] }))
        .json,
    );
    assert.doesNotMatch(without.markdown!, /\[Home\]|All rights reserved|cookies|const ok/);
    assert.match(without.markdown!, /When a producer/);
    const bad = await svc.post('/api/v1/scrape', { url, includeTags: ['div[['] });
    assert.equal(bad.status, 400);
    assert.match(bad.json.error as string, /includeTags\[0\]/);
  });

  test('onlyMainContent keeps the article and drops navigation, sharing, related posts and footer', async (t) => {
    const s = await site(t);
    const svc = await startService(t);
    const md = docOf(
      (await svc.post('/api/v1/scrape', { url: `${s.url}/blog/backpressure`, onlyMainContent: true })).json,
    ).markdown!;
    assert.match(md, /When a producer writes data faster/);
    assert.match(md, /```javascript/);
    assert.match(md, /\| Approach \|/);
    assert.match(md, /Measure memory under load/);
    assert.doesNotMatch(
      md,
      /\[Home\]|All rights reserved|Share on Twitter|Related articles|Subscribe|cookies/,
    );
  });

  test('onlyMainContent falls back to the whole page when nothing article-shaped is found', async (t) => {
    const s = await site(t);
    const svc = await startService(t);
    const md = docOf(
      (await svc.post('/api/v1/scrape', { url: `${s.url}/gbk`, onlyMainContent: true })).json,
    ).markdown!;
    assert.match(md, /这是一个使用国标扩展编码的中文网页/);
  });

  test('headers are sent to the target; defaults identify a browser-like client', async (t) => {
    const s = await site(t);
    const svc = await startService(t);
    const md = docOf(
      (
        await svc.post('/api/v1/scrape', {
          url: `${s.url}/echo-headers`,
          headers: { 'X-Api-Token': 'abc123', Cookie: 'a=b' },
        })
      ).json,
    ).markdown!;
    assert.match(md, /\| x-api-token \| abc123 \|/);
    assert.match(md, /\| cookie \| a=b \|/);
    assert.match(md, /\| user-agent \| Mozilla\/5\.0/);
    const bad = await svc.post('/api/v1/scrape', {
      url: `${s.url}/echo-headers`,
      headers: { 'X-Evil': 'a\r\nHost: x' },
    });
    assert.equal(bad.status, 400);
    assert.match(bad.json.error as string, /headers\.X-Evil/);
    const host = await svc.post('/api/v1/scrape', {
      url: `${s.url}/echo-headers`,
      headers: { Host: 'internal' },
    });
    assert.equal(host.status, 400);
  });
});
