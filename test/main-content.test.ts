import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { docOf, site, startService } from './helpers.js';

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
  });
});
