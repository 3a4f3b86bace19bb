import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import { docOf, site, startService } from '../helpers.js';

/** onlyMainContent on pages that are not articles: their tables, code and lists must survive. */
describe('onlyMainContent on non-article pages', () => {
  const scrape = async (t: Parameters<typeof site>[0], path: string): Promise<string> => {
    const s = await site(t);
    const svc = await startService(t);
    const { json } = await svc.post('/api/v1/scrape', { url: s.url + path, onlyMainContent: true });
    return docOf(json).markdown!;
  };

  test('docs page keeps its option table, code blocks and definition list', async (t) => {
    const md = await scrape(t, '/docs/v2/configuration');
    assert.match(md, /\| Option \| Type \| Default \| Description \|/);
    assert.match(md, /\| `segment_size` \| integer \| `67108864` \|/);
    assert.match(md, /```toml\n\[network\]\nlisten = "0\.0\.0\.0:8086"/);
    assert.match(md, /```shell\n\$ fluxdb serve/);
    assert.match(md, /max_connections/);
    assert.doesNotMatch(md, /Getting started|Apache 2\.0 licence/);
  });

  test('product listing keeps every product, price and the size table', async (t) => {
    const md = await scrape(t, '/shop');
    for (const product of ['Alpin GTX', 'Trail Lite', 'Summit Pro', '149,95 €', '219,00 €']) {
      assert.ok(md.includes(product), product);
    }
    assert.match(md, /\| EU \| UK \| US \|\n\| --- \| --- \| --- \|\n\| 42 \| 8 \| 9 \|/);
    assert.doesNotMatch(md, /Impressum/);
  });

  test('data table page keeps the whole table', async (t) => {
    const md = await scrape(t, '/data/rainfall');
    assert.match(md, /\| City \| Jan \| Feb \| Mar \| Total \|/);
    for (const row of ['| Bergen | 250 |', '| Lisbon | 100 |', '| Cairo | 5 |', '| Mumbai | 1 |']) {
      assert.ok(md.includes(row), row);
    }
    assert.doesNotMatch(md, /CC BY 4\.0|\[Datasets\]/);
  });

  test('search results page keeps every result with its link and snippet', async (t) => {
    const md = await scrape(t, '/search');
    assert.match(md, /\[Asynchronous Programming in Rust\]\(http:\/\/127\.0\.0\.1:\d+\/item\/1001\)/);
    assert.match(md, /\[Rust Atomics and Locks\]/);
    assert.match(md, /\[Zero-cost futures revisited\]/);
    assert.match(md, /how the compiler turns async functions into state machines/);
    assert.doesNotMatch(md, /Opening hours|Books \(12\)/);
  });

  test('forum thread keeps every post, the code and the list', async (t) => {
    const md = await scrape(t, '/forum/t/42');
    assert.match(md, /One bad input can eat gigabytes/);
    assert.match(md, /pass `resourceLimits` when you create the worker/);
    assert.match(md, /```js\nnew Worker\(file, \{ resourceLimits/);
    assert.match(md, /- maxOldGenerationSizeMb: the main heap\n- maxYoungGenerationSizeMb/);
    assert.doesNotMatch(md, /Suggested topics|Powered by/);
    assert.doesNotMatch(md, /maintainer of a small worker pool/, "a post's signature is not the post");
  });

  /** Serves one HTML page on loopback; answers its URL. */
  const servePage = async (t: TestContext, html: string): Promise<string> => {
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  };

  test('never a fragment: chosen content holding a small share of the readable text is widened', async (t) => {
    const rows = Array.from(
      { length: 30 },
      (_, i) => `<tr><td>Station ${i}</td><td>${i * 3} mm</td><td>${10 + i} °C</td></tr>`,
    ).join('');
    // The only paragraph-like block is a promo; the page's content is a table of short cells.
    const html = `<html><head><title>Weather</title></head><body><header><a href="/">Weather service</a></header>
      <div class="layout"><div class="box"><p>Subscribe to our weekly letter, with forecasts, storm warnings,
      and the best days for a walk, sent every Monday morning.</p></div>
      <div class="data"><h1>Rainfall today</h1><table><tr><th>Station</th><th>Rain</th><th>Temperature</th></tr>${rows}</table></div></div>
      <footer>Contact</footer></body></html>`;
    const url = await servePage(t, html);
    const svc = await startService(t);
    const md = docOf((await svc.post('/api/v1/scrape', { url, onlyMainContent: true })).json).markdown!;
    assert.match(md, /\| Station 29 \| 87 mm \| 39 °C \|/);
    assert.match(md, /# Rainfall today/);
  });

  test('a blog index whose items are only their titles keeps every title; a closing heading or two does not stay', async (t) => {
    const titles = Array.from(
      { length: 32 },
      (_, i) => `Notes on keeping habits through a long winter, part ${i + 1}`,
    );
    const posts = titles
      .map(
        (title, i) =>
          `<article class="post"><header><h2><a href="/p${i}">${title}</a></h2></header></article>`,
      )
      .join('');
    const index = `<html><head><title>Balance</title></head><body><header><a href="/">Balance</a></header>
      <aside><h4>Hello, welcome!</h4><p>I write about rest.</p></aside><main>${posts}</main></body></html>`;
    const svc = await startService(t);
    const md = docOf(
      (await svc.post('/api/v1/scrape', { url: await servePage(t, index), onlyMainContent: true })).json,
    ).markdown!;
    for (const title of titles) assert.ok(md.includes(`## [${title}]`), title);
    // An article's closing "Related" / "Comments" headings close its container and no content: dropped.
    const body = Array.from(
      { length: 6 },
      (_, i) => `<p>Paragraph ${i}: ${'Rivers carry water and sediment to the sea. '.repeat(6)}</p>`,
    );
    const article = `<html><head><title>Rivers</title><meta property="og:type" content="article"></head><body><article><h1>Rivers</h1>${body.join('')}
      <h2>Related</h2><h3>Comments</h3></article></body></html>`;
    const closing = docOf(
      (await svc.post('/api/v1/scrape', { url: await servePage(t, article), onlyMainContent: true })).json,
    ).markdown!;
    assert.match(closing, /Paragraph 5: Rivers/);
    assert.doesNotMatch(closing, /Related|Comments/);
  });

  test('a script app whose page is in <noscript> reads that page; a JavaScript notice stays out', async (t) => {
    const posts = Array.from(
      { length: 4 },
      (_, i) => `<div class="post"><span class="author">user${i}</span>
        <p>Reply number ${i}: restarting the worker after the upgrade fixed the timeouts, but only once the
        cache was cleared as well, which the release notes do not mention anywhere.</p></div>`,
    ).join('');
    const app = `<html><head><title>Upgrade broke timeouts</title></head><body>
      <noscript><p>Please enable JavaScript to use this site.</p></noscript>
      <div id="app"></div><script>boot()</script>
      <noscript><header><a href="/">Community</a></header><main><h1>Upgrade broke timeouts</h1>${posts}</main></noscript>
      </body></html>`;
    const svc = await startService(t);
    const url = await servePage(t, app);
    for (const onlyMainContent of [true, false]) {
      const md = docOf((await svc.post('/api/v1/scrape', { url, onlyMainContent })).json).markdown!;
      for (let i = 0; i < 4; i++) assert.match(md, new RegExp(`Reply number ${i}: restarting the worker`));
      assert.doesNotMatch(md, /enable JavaScript/);
    }
    // A page that shows its content keeps its <noscript> fallback out.
    const shown = await servePage(
      t,
      `<html><body><article><h1>Shown</h1><p>${'The page renders its own text. '.repeat(20)}</p></article>
      <noscript><p>${'A fallback copy of the page for readers without scripts. '.repeat(5)}</p></noscript></body></html>`,
    );
    const md = docOf(
      (await svc.post('/api/v1/scrape', { url: shown, onlyMainContent: true })).json,
    ).markdown!;
    assert.match(md, /renders its own text/);
    assert.doesNotMatch(md, /fallback copy/);
  });
  test('a cookie notice left in the HTML is not main content; an article about cookies is', async (t) => {
    const paragraphs = Array.from(
      { length: 5 },
      (_, i) => `<p>Step ${i}: ${'Cream the butter with the sugar before the flour goes in. '.repeat(5)}</p>`,
    ).join('');
    const notice = `<div class="notice"><p>We use cookies to measure how our site is used. Choose which
      cookies we may store.</p><button>Accept all</button><a href="/privacy">Manage choices</a></div>`;
    const page = `<html><head><title>Scones</title><meta property="og:type" content="article"></head><body>
      <article><h1>Scones</h1>${notice}${paragraphs}</article></body></html>`;
    const svc = await startService(t);
    const url = await servePage(t, page);
    const main = docOf((await svc.post('/api/v1/scrape', { url, onlyMainContent: true })).json).markdown!;
    assert.match(main, /Step 4: Cream the butter/);
    assert.doesNotMatch(main, /We use cookies|Accept all/);
    const whole = docOf((await svc.post('/api/v1/scrape', { url, onlyMainContent: false })).json).markdown!;
    assert.match(whole, /We use cookies/);
    // Cookies as the article's subject, with an agreeing link in it, stay.
    const baking = `<html><head><title>Cookies</title><meta property="og:type" content="article"></head><body>
      <article><h1>Cookies</h1><p>${'Cookies spread less when the dough rests overnight. '.repeat(8)}</p>
      <p><a href="/poll">I agree</a></p></article></body></html>`;
    const md = docOf(
      (await svc.post('/api/v1/scrape', { url: await servePage(t, baking), onlyMainContent: true })).json,
    ).markdown!;
    assert.match(md, /Cookies spread less/);
  });
});
