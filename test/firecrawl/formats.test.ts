import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import type { Document } from '@mendable/firecrawl-js';
import { startLlmStub } from '../fixtures/llm-stub.js';
import type { LlmRequest, LlmStub } from '../fixtures/llm-stub.js';
import { startSearchStub } from '../fixtures/search-stub.js';
import { startService } from '../helpers.js';

/**
 * Firecrawl's formats beyond Markdown (question, highlights, query, attributes, product, menu, audio, video)
 * over HTTP and through the real SDK, against fixture pages on loopback and the LLM stub.
 */

const PAGES = join(import.meta.dirname, '..', 'fixtures', 'formats');

/** Serves test/fixtures/formats/<name>.html at /<name>. */
async function startFormatSite(t: TestContext): Promise<string> {
  const server = createServer((req, res) => {
    const name = (req.url ?? '/').split('?')[0]!.replace(/^\//, '');
    if (!/^[a-z-]+$/.test(name)) return void res.writeHead(404).end('not found');
    try {
      const body = readFileSync(join(PAGES, `${name}.html`));
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

interface Setup {
  site: string;
  svc: Awaited<ReturnType<typeof startService>>;
  llm: LlmStub;
  fc: Firecrawl;
}

async function setup(t: TestContext, o: { llm?: boolean; logLines?: string[]; search?: string[] } = {}) {
  const site = await startFormatSite(t);
  const llm = o.llm ? await startLlmStub() : null;
  if (llm) t.after(() => llm.close());
  const env: Record<string, string> = { CRAWL_MIN_DELAY_MS: '0' };
  if (llm) Object.assign(env, { OPENAI_BASE_URL: llm.url, MODEL_NAME: 'stub-model' });
  if (o.search) {
    const search = await startSearchStub();
    t.after(() => search.close());
    search.hits = o.search.map((page) => ({
      title: page,
      url: `${site}/${page}`,
      snippet: `The ${page} page.`,
    }));
    env.SEARXNG_URL = `${search.url}/searxng`;
  }
  const svc = await startService(t, { env, logLines: o.logLines });
  return { site, svc, llm: llm!, fc: new Firecrawl({ apiKey: 'test', apiUrl: svc.url }) } satisfies Setup;
}

/** The system instructions and the user message of a request the stub received. */
function promptOf(r: LlmRequest): { instructions: string; input: string } {
  const messages = (r.body.messages ?? []) as { content: string }[];
  return { instructions: messages[0]?.content ?? '', input: messages[1]?.content ?? '' };
}

const json = (value: unknown) => ({ text: JSON.stringify(value) });

const WARM = 'When the hive warms, workers collect water and spread it in thin films over the comb.';
const FAN = 'Other workers fan their wings at the entrance to pull air through the hive.';
const INVENTED = 'Bees also carry small pieces of ice into the hive to cool it.';

/** The stub's answers on the article: a question's answer, and sentences picked for a query. */
function articleReplies(llm: LlmStub): void {
  llm.reply = (r) => {
    const { instructions } = promptOf(r);
    if (/answer a question/.test(instructions)) return json({ answer: 'Between 32 and 36 degrees Celsius.' });
    // Picked sentences: one as written, one with other case and spacing, and one the page never says.
    if (/pick sentences/.test(instructions))
      return json({
        sentences: [
          WARM,
          `other workers  fan their wings at the entrance to pull air through the hive`,
          INVENTED,
        ],
      });
    return json({});
  };
}

const QUESTION = { type: 'question' as const, question: 'How warm do bees keep the brood nest?' };
const HIGHLIGHTS = { type: 'highlights' as const, query: 'how do bees cool the hive' };
const SWATCHES = {
  type: 'attributes' as const,
  selectors: [
    { selector: 'a.swatch', attribute: 'data-color' },
    { selector: 'ul.swatches a', attribute: 'href' },
    { selector: 'nav', attribute: 'data-missing' },
  ],
};

async function scrape(svc: Setup['svc'], url: string, formats: unknown[], api = 'v2') {
  return svc.post(`/${api}/scrape`, { url, formats });
}

const dataOf = (res: { json: Record<string, unknown> }) =>
  res.json.data as Document & Record<string, unknown>;

describe('Firecrawl formats: question, highlights and query (the server LLM)', () => {
  test('question: the answer from the page, asked with the question and the page Markdown', async (t) => {
    const { site, svc, llm } = await setup(t, { llm: true });
    articleReplies(llm);
    const res = await scrape(svc, `${site}/article`, [QUESTION]);
    assert.equal(res.status, 200, JSON.stringify(res.json));
    const doc = dataOf(res);
    assert.equal(doc.answer, 'Between 32 and 36 degrees Celsius.');
    assert.equal(doc.markdown, undefined, 'Markdown read only for the LLM is left out');
    assert.equal(doc.warning, undefined);
    const { input } = promptOf(llm.requests[0]!);
    assert.match(input, /How warm do bees keep the brood nest\?/);
    assert.match(input, /Honey bees hold the brood nest between 32 and 36 degrees Celsius\./);
  });

  test('highlights: the page own sentences, verbatim; an invented one is dropped, logged and named', async (t) => {
    const logLines: string[] = [];
    const { site, svc, llm } = await setup(t, { llm: true, logLines });
    articleReplies(llm);
    const res = await scrape(svc, `${site}/article`, ['markdown', HIGHLIGHTS]);
    assert.equal(res.status, 200, JSON.stringify(res.json));
    const doc = dataOf(res);
    assert.equal(doc.highlights, `${WARM} ${FAN}`, 'the page wording, in page order, one paragraph');
    assert.ok(!String(doc.highlights).includes('ice'));
    assert.match(doc.markdown ?? '', /Honey bees/, 'Markdown asked for stays');
    assert.match(
      String(doc.warning),
      /highlights: 1 of the 3 sentences the LLM gave were left out \(does not occur in the page\)/,
    );
    const dropped = logLines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.quote === INVENTED);
    assert.ok(dropped, 'the dropped sentence is logged');
    assert.equal(dropped.reason, 'does not occur in the page');
    const { input } = promptOf(llm.requests[0]!);
    assert.match(input, /Query: how do bees cool the hive/);
    assert.match(
      input,
      new RegExp(`\\n${FAN.replace(/\./g, '\\.')}\\n`),
      'the page is sent one sentence a line',
    );
  });

  test('query: freeform answers like question; directQuote answers with the page sentences', async (t) => {
    const { site, svc, llm } = await setup(t, { llm: true });
    articleReplies(llm);
    const freeform = dataOf(await scrape(svc, `${site}/article`, [{ type: 'query', prompt: 'How warm?' }]));
    assert.equal(freeform.answer, 'Between 32 and 36 degrees Celsius.');
    const quoted = dataOf(
      await scrape(svc, `${site}/article`, [
        { type: 'query', prompt: 'How is it cooled?', mode: 'directQuote' },
      ]),
    );
    assert.equal(quoted.answer, `${WARM} ${FAN}`);
    const both = await scrape(svc, `${site}/article`, [QUESTION, { type: 'query', prompt: 'x' }]);
    assert.equal(both.status, 400);
    assert.match(String(both.json.error), /formats\[1\]/);
  });

  test('an LLM failure costs the field, not the page: a warning', async (t) => {
    const { site, svc, llm } = await setup(t, { llm: true });
    llm.reply = () => ({ status: 500 });
    const res = await scrape(svc, `${site}/article`, ['markdown', QUESTION, HIGHLIGHTS]);
    assert.equal(res.status, 200);
    const doc = dataOf(res);
    assert.match(doc.markdown ?? '', /Honey bees/);
    assert.equal(doc.answer, undefined);
    assert.equal(doc.highlights, undefined);
    assert.match(String(doc.warning), /answer could not be written/);
    assert.match(String(doc.warning), /highlights could not be written/);
  });

  test('without a server LLM: question, highlights and query are 400s naming OPENAI_BASE_URL', async (t) => {
    const { site, svc } = await setup(t);
    for (const format of [QUESTION, HIGHLIGHTS, { type: 'query', prompt: 'x' }]) {
      const res = await scrape(svc, `${site}/article`, ['markdown', format]);
      assert.equal(res.status, 400);
      assert.match(String(res.json.error), /formats\[1\].*OPENAI_BASE_URL/);
    }
    const bad = await scrape(svc, `${site}/article`, [{ type: 'highlights' }]);
    assert.equal(bad.status, 400);
  });
});

describe('Firecrawl formats: attributes, product, menu (the page HTML, in the content workers)', () => {
  test('attributes: values of the matched elements that carry them, with no LLM request', async (t) => {
    const { site, svc, llm } = await setup(t, { llm: true });
    const res = await scrape(svc, `${site}/product-json-ld`, [SWATCHES]);
    assert.equal(res.status, 200, JSON.stringify(res.json));
    const doc = dataOf(res);
    assert.deepEqual(doc.attributes, [
      { selector: 'a.swatch', attribute: 'data-color', values: ['red', 'blue'] },
      {
        selector: 'ul.swatches a',
        attribute: 'href',
        values: [
          '/products/trailrunner-2?color=red',
          '/products/trailrunner-2?color=blue',
          '/products/trailrunner-2?color=green',
        ],
      },
      { selector: 'nav', attribute: 'data-missing', values: [] },
    ]);
    assert.equal(doc.rawHtml, undefined, 'HTML read only for the format is left out');
    assert.equal(doc.markdown, undefined);
    assert.deepEqual(llm.requests, []);
  });

  test('attributes: a selector css-select cannot parse, or too many, is a 400 naming the field', async (t) => {
    const { site, svc } = await setup(t);
    const broken = await scrape(svc, `${site}/product-json-ld`, [
      'markdown',
      { type: 'attributes', selectors: [{ selector: 'a[href', attribute: 'href' }] },
    ]);
    assert.equal(broken.status, 400);
    assert.match(String(broken.json.error), /^formats\[1\]\.selectors\[0\]\.selector: /);
    const many = Array.from({ length: 51 }, () => ({ selector: 'a', attribute: 'href' }));
    const tooMany = await scrape(svc, `${site}/product-json-ld`, [{ type: 'attributes', selectors: many }]);
    assert.equal(tooMany.status, 400);
    assert.match(String(tooMany.json.error), /formats\[0\]\.selectors: at most 50/);
  });

  test('product from JSON-LD with no LLM configured: a group with its variants, prices, sale and stock', async (t) => {
    const { site, svc } = await setup(t);
    const res = await scrape(svc, `${site}/product-json-ld`, ['product']);
    assert.equal(res.status, 200, JSON.stringify(res.json));
    const { product, warning } = dataOf(res);
    assert.equal(warning, undefined);
    assert.equal(product?.title, 'Trailrunner 2 Jacket');
    assert.equal(product?.brand, 'Northfield', 'the @id reference is followed');
    assert.equal(product?.category, 'Outdoor & Running > Jackets');
    assert.equal(product?.url, `${site}/products/trailrunner-2`);
    assert.equal(product?.variants.length, 2);
    const [red, blue] = product!.variants;
    assert.deepEqual(red!.price, { amount: 129, currency: 'USD', formatted: '$129.00' });
    assert.deepEqual(red!.sale, { originalPrice: { amount: 159, currency: 'USD', formatted: '$159.00' } });
    assert.deepEqual(red!.availability, { inStock: true, text: 'InStock' });
    assert.deepEqual(red!.values, { color: 'Red' });
    assert.equal(red!.sku, 'TR2-RED');
    assert.deepEqual(red!.images?.[1], { url: `${site}/img/trailrunner-back.jpg`, alt: 'Back view' });
    assert.deepEqual(blue!.availability, { inStock: false, text: 'OutOfStock' });
    assert.deepEqual(blue!.images, [{ url: `${site}/img/trailrunner-blue.jpg` }]);
  });

  test('product from microdata; a complete declared product asks the LLM nothing', async (t) => {
    const { site, svc, llm } = await setup(t, { llm: true });
    const micro = dataOf(await scrape(svc, `${site}/product-microdata`, ['product'], 'v1'));
    assert.equal(micro.product?.title, 'Field Kettle 1.2 L');
    assert.equal(micro.product?.brand, 'Emberline');
    assert.deepEqual(micro.product?.variants[0]?.price, {
      amount: 49.95,
      currency: 'EUR',
      formatted: '€49.95',
    });
    assert.deepEqual(micro.product?.variants[0]?.availability, { inStock: true, text: 'InStock' });
    const before = llm.requests.length;
    assert.ok(before > 0, 'the microdata product has no category: the LLM is asked for it');
    const declared = dataOf(await scrape(svc, `${site}/product-json-ld`, ['product']));
    assert.equal(declared.product?.title, 'Trailrunner 2 Jacket');
    assert.equal(llm.requests.length, before, 'nothing was missing');
  });

  test('product from the LLM where nothing is declared: values the page does not hold are dropped', async (t) => {
    const { site, svc, llm } = await setup(t, { llm: true });
    llm.reply = (r) =>
      /read the product/.test(promptOf(r).instructions)
        ? json({
            isProduct: true,
            title: 'Harbor Desk Lamp',
            brand: 'Lumen & Co',
            description: 'A brass desk lamp with a linen shade and a dimmer in the base.',
            variants: [
              {
                price: { amount: 84.5, currency: 'USD' },
                availability: 'Only 3 left in stock',
                inStock: true,
                sku: 'HDL-1',
              },
            ],
          })
        : json({});
    const { product, warning } = dataOf(await scrape(svc, `${site}/product-plain`, ['product']));
    assert.equal(product?.title, 'Harbor Desk Lamp');
    assert.equal(product?.brand, undefined, 'an invented brand is dropped');
    assert.equal(product?.url, `${site}/product-plain`);
    assert.deepEqual(product?.variants, [
      {
        price: { amount: 84.5, currency: 'USD', formatted: '$84.50' },
        availability: { inStock: true, text: 'Only 3 left in stock' },
      },
    ]);
    assert.match(String(warning), /product: 2 values the LLM gave do not occur in the page/);
    assert.match(String(warning), /\bbrand\b/);
    assert.match(String(warning), /variants\[0\]\.sku/);
  });

  test('no product: absent, with a warning saying why', async (t) => {
    const { site, svc } = await setup(t);
    const doc = dataOf(await scrape(svc, `${site}/article`, ['markdown', 'product']));
    assert.equal(doc.product, undefined);
    assert.match(String(doc.warning), /No product found on this page.*OPENAI_BASE_URL/);
    assert.match(doc.markdown ?? '', /Honey bees/);
  });

  test('menu from JSON-LD: merchant, sections, items with price, diets, calories, add-ons', async (t) => {
    const { site, svc } = await setup(t);
    const { menu, warning } = dataOf(await scrape(svc, `${site}/menu`, [{ type: 'menu' }]));
    assert.equal(warning, undefined);
    assert.equal(menu?.isMenu, true);
    assert.equal(menu?.merchant.name, 'The Copper Pot');
    assert.equal(menu?.currency, 'GBP');
    assert.deepEqual(
      menu?.sections.map((s) => [s.name, s.items.map((i) => i.name)]),
      [
        ['Starters', ['Roasted Beetroot Salad', 'Smoked Mackerel Pâté']],
        ['Mains', ['Braised Short Rib']],
      ],
    );
    const [salad, pate] = menu!.sections[0]!.items;
    assert.deepEqual(salad!.price, { amount: 8.5, currency: 'GBP', formatted: '£8.50' });
    assert.deepEqual(salad!.dietary, ['vegetarian', 'gluten-free']);
    assert.equal(salad!.calories, 320);
    assert.equal(salad!.sourceUrl, `${site}/menu`);
    assert.deepEqual(pate!.availability, { inStock: false, text: 'SoldOut' });
    const rib = menu!.sections[1]!.items[0]!;
    assert.equal(rib.id, 'main-07');
    assert.deepEqual(rib.identifiers, { merchantItemId: 'main-07' });
    assert.deepEqual(rib.optionGroups, [
      {
        name: 'Sides',
        options: [{ name: 'Triple-cooked chips', price: { amount: 4, currency: 'GBP', formatted: '£4.00' } }],
      },
    ]);
  });

  test('audio and video: 400s naming the field', async (t) => {
    const { site, svc } = await setup(t);
    for (const format of ['audio', { type: 'video' }]) {
      const res = await scrape(svc, `${site}/article`, ['markdown', format]);
      assert.equal(res.status, 400);
      assert.match(String(res.json.error), /^formats\[1\]: .*no media tool is configured on this server/);
    }
  });
});

describe('Firecrawl formats on every page surface', () => {
  test('crawl scrapeOptions and batch scrape: the formats on every page', async (t) => {
    const { site, fc, llm } = await setup(t, { llm: true });
    articleReplies(llm);
    const crawl = await fc.crawl(`${site}/article`, {
      limit: 1,
      scrapeOptions: { formats: [QUESTION] },
      pollInterval: 1,
    });
    assert.equal(crawl.status, 'completed');
    assert.equal(crawl.data[0]?.answer, 'Between 32 and 36 degrees Celsius.');
    const batch = await fc.batchScrape([`${site}/product-json-ld`, `${site}/product-microdata`], {
      options: { formats: [SWATCHES, 'product'] },
      pollInterval: 1,
    });
    const byTitle = new Map(batch.data.map((d) => [d.product?.title, d]));
    assert.deepEqual(byTitle.get('Trailrunner 2 Jacket')?.attributes?.[0]?.values, ['red', 'blue']);
    assert.deepEqual(byTitle.get('Field Kettle 1.2 L')?.attributes?.[0]?.values, []);
  });

  test('search scrapeOptions: each result carries the format', async (t) => {
    const { svc, llm } = await setup(t, { llm: true, search: ['article'] });
    articleReplies(llm);
    const res = await svc.post('/v2/search', {
      query: 'bees',
      limit: 1,
      scrapeOptions: { formats: [HIGHLIGHTS] },
    });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    const [hit] = (res.json.data as { web: Record<string, unknown>[] }).web;
    assert.equal(hit?.highlights, `${WARM} ${FAN}`);
  });

  test('the SDK: question, highlights, attributes, product and menu', async (t) => {
    const { site, fc, llm } = await setup(t, { llm: true });
    articleReplies(llm);
    const article = await fc.scrape(`${site}/article`, { formats: [QUESTION, HIGHLIGHTS] });
    assert.equal(article.answer, 'Between 32 and 36 degrees Celsius.');
    assert.equal(article.highlights, `${WARM} ${FAN}`);
    const product = await fc.scrape(`${site}/product-json-ld`, { formats: [SWATCHES, 'product'] });
    assert.deepEqual(product.attributes?.[0]?.values, ['red', 'blue']);
    assert.equal(product.product?.variants[0]?.price?.formatted, '$129.00');
    const menu = await fc.scrape(`${site}/menu`, { formats: ['menu'] });
    assert.equal(menu.menu?.sections[1]?.items[0]?.price?.amount, 21);
  });
});
