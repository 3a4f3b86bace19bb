import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { MemoryUsageStore, utcDay } from '../../src/jobs/stores/usage-state/usage-store.js';
import type { UsageAdd } from '../../src/jobs/stores/usage-state/usage-store.js';
import type { AppError } from '../../src/errors.js';
import { Metrics } from '../../src/lib/metrics.js';
import type { TenantLimits } from '../../src/tenants/tenant.js';
import { Usage } from '../../src/tenants/usage.js';
import { startCrawlSite, fixtureResolver } from '../fixtures/sites/crawl-site.js';
import { startLlmStub } from '../fixtures/llm-stub.js';
import { textPdf } from '../fixtures/files/pdf-files.js';
import { REDIS_MISSING, redisAvailable, startRedis } from '../fixtures/redis.js';
import { until } from '../fixtures/until.js';
import { site, startService } from '../helpers.js';

/**
 * Usage per tenant and UTC day, against the real service: two tenants (`a`, `b`) and an operator, the fixture
 * site, a PDF on loopback, the LLM stub. Every figure is what the test sent, read back through /api/v1/usage,
 * Firecrawl's SDK and /metrics; the daily limits answer 429 until midnight.
 */

const KEYS = { API_KEYS: 'a:ka,b:kb', ADMIN_API_KEYS: 'kop' };
const zero = { pages: 0, browserMs: 0, documents: 0, llmTokens: 0, credits: 0 };

/** Serves one PDF at /report.pdf on loopback; answers its URL. */
async function servePdf(t: TestContext): Promise<string> {
  const pdf = textPdf(2);
  const server = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/report.pdf`;
}

const call = async (url: string, key: string, init: RequestInit = {}) => {
  const res = await fetch(url, { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers } });
  return { status: res.status, headers: res.headers, json: (await res.json()) as Record<string, unknown> };
};
const post = (url: string, key: string, body: unknown) =>
  call(url, key, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

interface Day {
  tenant: string;
  day: string;
  pages: number;
  browserMs: number;
  documents: number;
  llmTokens: number;
  credits: number;
}
const usageOf = async (url: string, key: string, query = '') =>
  (await call(`${url}/api/v1/usage${query}`, key)).json as {
    data: Day[];
    total: Omit<Day, 'tenant' | 'day'>;
  };

describe('usage per tenant and day', () => {
  test('pages, documents, browser time, tokens and credits are what each tenant sent', async (t) => {
    const s = await site(t);
    const pdf = await servePdf(t);
    const llm = await startLlmStub();
    t.after(() => llm.close());
    const svc = await startService(t, {
      env: { ...KEYS, OPENAI_BASE_URL: llm.url, MODEL_NAME: 'stub-model' },
    });
    const today = utcDay(Date.now());

    // a: two pages and a PDF fetched, a PDF uploaded.
    for (const path of ['/blog/backpressure', '/docs/v2/configuration'])
      assert.equal((await post(`${svc.url}/api/v1/scrape`, 'ka', { url: s.url + path })).status, 200);
    assert.equal((await post(`${svc.url}/api/v1/scrape`, 'ka', { url: pdf })).status, 200);
    const upload = new FormData();
    upload.append('file', new Blob([new Uint8Array(textPdf(1))]), 'one.pdf');
    assert.equal((await call(`${svc.url}/api/v1/parse`, 'ka', { method: 'POST', body: upload })).status, 200);

    // b: a page rendered in the browser, a page with a JSON format answered by the server's LLM.
    const browser = await post(`${svc.url}/api/v1/scrape`, 'kb', { url: `${s.url}/shop`, engine: 'browser' });
    assert.equal(browser.status, 200);
    const fc = new Firecrawl({ apiKey: 'kb', apiUrl: svc.url });
    await fc.scrape(`${s.url}/blog/backpressure`, { formats: [{ type: 'json', prompt: 'the title' }] });
    assert.equal(llm.requests.length, 1, 'one LLM call, 10 + 10 tokens');

    // Credits follow Firecrawl's rule: 1 a page, a PDF's pages (2 fetched, 1 uploaded), 5 with a json format.
    const a = await usageOf(svc.url, 'ka');
    assert.deepEqual(a.data, [{ tenant: 'a', day: today, ...zero, pages: 3, documents: 2, credits: 5 }]);
    const b = await usageOf(svc.url, 'kb', '?tenant=a'); // a normal key reads its own, whatever it names
    assert.equal(b.data.length, 1);
    const { browserMs, ...rest } = b.data[0]!;
    assert.deepEqual(rest, { tenant: 'b', day: today, pages: 2, documents: 0, llmTokens: 20, credits: 6 });
    assert.ok(browserMs > 0, 'the browser render held a page for some time');

    const all = await usageOf(svc.url, 'kop');
    assert.deepEqual(
      all.data.map((d) => d.tenant),
      ['a', 'b'],
    );
    assert.equal(all.total.pages, 5);
    assert.deepEqual((await usageOf(svc.url, 'kop', '?tenant=a')).data, a.data);
    const bad = await call(`${svc.url}/api/v1/usage?from=2026-02-30`, 'ka');
    assert.equal(bad.status, 400);
    const long = await call(`${svc.url}/api/v1/usage?from=2020-01-01&to=2026-01-01`, 'ka');
    assert.equal(long.status, 400);

    // Firecrawl's team routes through its SDK: no daily limit declared, so nothing runs out.
    const credits = await fc.getCreditUsage();
    assert.equal(credits.remainingCredits, 999_999_999);
    assert.equal(credits.billingPeriodStart, `${today}T00:00:00.000Z`);
    assert.equal((await fc.getTokenUsage()).remainingTokens, 999_999_999);
    const tokens = await call(`${svc.url}/v2/team/token-usage`, 'kb');
    assert.equal((tokens.json.data as { tokensUsed: number }).tokensUsed, 20);
    const month = `${today.slice(0, 7)}-01T00:00:00.000Z`;
    assert.deepEqual((await fc.getCreditUsageHistorical(true)).periods, [
      { startDate: month, endDate: null, apiKey: 'b', creditsUsed: 6 },
    ]);
    assert.deepEqual((await fc.getTokenUsageHistorical()).periods, [
      { startDate: month, endDate: null, tokensUsed: 20 },
    ]);
    const v1 = await call(`${svc.url}/v1/team/credit-usage`, 'ka');
    assert.equal((v1.json.data as { credits_used: number }).credits_used, 5);

    // Prometheus: declared tenants by name.
    const metrics = await (
      await fetch(`${svc.url}/metrics`, { headers: { authorization: 'Bearer kop' } })
    ).text();
    assert.match(metrics, /pagewright_tenant_pages_total\{tenant="a"\} 3/);
    assert.match(metrics, /pagewright_tenant_llm_tokens_total\{tenant="b"\} 20/);
    assert.match(metrics, /pagewright_tenant_documents_total\{tenant="a"\} 2/);
  });

  test('past PAGES_PER_TENANT_PER_DAY: 429 until midnight UTC; other tenants go on; a crawl stops', async (t) => {
    const crawlSite = await startCrawlSite();
    t.after(() => crawlSite.close());
    const svc = await startService(t, {
      env: { ...KEYS, PAGES_PER_TENANT_PER_DAY: '2' },
      resolver: fixtureResolver,
    });
    for (const path of ['/gen/1', '/gen/2'])
      assert.equal((await post(`${svc.url}/api/v1/scrape`, 'ka', { url: crawlSite.url + path })).status, 200);
    const refused = await post(`${svc.url}/api/v1/scrape`, 'ka', { url: `${crawlSite.url}/gen/3` });
    assert.equal(refused.status, 429);
    assert.equal(refused.json.code, 'LIMIT_REACHED');
    assert.match(String(refused.json.error), /PAGES_PER_TENANT_PER_DAY=2/);
    const toMidnight = (Date.parse(`${utcDay(Date.now() + 86_400_000)}T00:00:00Z`) - Date.now()) / 1000;
    assert.ok(Math.abs(Number(refused.headers.get('retry-after')) - toMidnight) < 5);
    // Through Firecrawl: a crawl of a is refused before it is stored.
    const fc = new Firecrawl({ apiKey: 'ka', apiUrl: svc.url });
    await assert.rejects(
      fc.startCrawl(crawlSite.url, { limit: 5 }),
      (err: { status?: number }) => err.status === 429,
    );

    // b crawls until its pages of the day are fetched: the crawl stops there, saying why.
    const crawl = await post(`${svc.url}/api/v1/crawl`, 'kb', { url: crawlSite.url, limit: 20 });
    assert.equal(crawl.status, 200);
    const errors = crawl.json.errors as { code: string; error: string }[];
    assert.ok(
      errors.some((e) => e.code === 'LIMIT_REACHED'),
      JSON.stringify(errors),
    );
    const b = await usageOf(svc.url, 'kb');
    // At most the pages in flight when the limit was crossed past it (the crawl's concurrency).
    assert.ok(b.total.pages >= 2 && b.total.pages < 20, String(b.total.pages));
    assert.equal((await usageOf(svc.url, 'ka')).total.pages, 2, 'refused pages are not counted');
  });

  test('past LLM_TOKENS_PER_TENANT_PER_DAY: LLM work is refused, pages still fetched', async (t) => {
    const s = await site(t);
    const llm = await startLlmStub();
    t.after(() => llm.close());
    const svc = await startService(t, {
      env: {
        ...KEYS,
        OPENAI_BASE_URL: llm.url,
        MODEL_NAME: 'stub-model',
        LLM_TOKENS_PER_TENANT_PER_DAY: '20',
      },
    });
    const fc = new Firecrawl({ apiKey: 'ka', apiUrl: svc.url });
    await fc.scrape(`${s.url}/blog/backpressure`, { formats: [{ type: 'json', prompt: 'the title' }] });
    await assert.rejects(
      fc.startAgent({ prompt: 'anything' }),
      (err: { status?: number }) => err.status === 429,
    );
    assert.equal((await post(`${svc.url}/api/v1/scrape`, 'ka', { url: `${s.url}/shop` })).status, 200);
    assert.equal((await fc.getTokenUsage()).remainingTokens, 0);
    assert.equal(llm.requests.length, 1);
  });

  test(
    'two services on one Redis count into one day',
    { skip: redisAvailable ? false : REDIS_MISSING },
    async (t) => {
      const redis = await startRedis();
      const s = await site(t);
      const one = await startService(t, { env: { ...KEYS, REDIS_URL: redis.url } });
      const two = await startService(t, { env: { ...KEYS, REDIS_URL: redis.url } });
      t.after(() => redis.close());
      for (const svc of [one, two])
        await until(
          async () => (await post(`${svc.url}/api/v1/scrape`, 'ka', { url: `${s.url}/shop` })).status,
          (status) => status === 200,
        );
      // Each process writes its adds within a second, a page's credits after its fetch: once both have written,
      // either process reads the two pages of tenant a, its key's view and the operator's alike.
      for (const [svc, key] of [
        [one, 'ka'],
        [two, 'kop'],
      ] as const) {
        await until(
          () => usageOf(svc.url, key),
          (u) => u.total.pages === 2 && u.total.credits === 2,
        );
      }
    },
  );
});

describe('the usage service', () => {
  test('a batch the store refuses stays pending, counted by reads, and is written by the next flush', async () => {
    const store = new MemoryUsageStore();
    let refuse = true;
    const flaky = {
      add: (adds: UsageAdd[]) => (refuse ? Promise.reject(new Error('disk full')) : store.add(adds)),
      days: store.days.bind(store),
      purge: store.purge.bind(store),
    };
    const warnings: string[] = [];
    const log = { debug() {}, info() {}, warn: (_f: object, m: string) => void warnings.push(m), error() {} };
    const usage = new Usage({ store: flaky, limits: () => ({}) as never, log });
    usage.add('a', { pages: 2 });
    await usage.flush();
    assert.equal(warnings.length, 1);
    usage.add('a', { pages: 1, credits: 1 });
    assert.equal((await usage.today('a')).pages, 3);
    refuse = false;
    await usage.close();
    const [day] = await store.days('2000-01-01', '2100-01-01');
    assert.equal(day!.pages, 3);
    assert.equal(day!.credits, 1);
  });

  test('the day turns at midnight UTC: past its pages a tenant is refused until then (Retry-After)', async () => {
    let at = Date.parse('2030-05-01T23:59:00Z');
    const limits = { pagesPerDay: 2, llmTokensPerDay: 0 } as TenantLimits;
    const log = { debug() {}, info() {}, warn() {}, error() {} };
    const usage = new Usage({ store: new MemoryUsageStore(), limits: () => limits, log, now: () => at });
    usage.add('a', { pages: 2 });
    await assert.rejects(
      usage.checkPages('a'),
      (err: AppError) => err.retryAfterSeconds === 60 && /PAGES_PER_TENANT_PER_DAY=2/.test(err.message),
    );
    at += 60_000;
    await usage.checkPages('a');
    assert.deepEqual(
      (await usage.days('2030-05-01', '2030-05-02')).map((d) => [d.day, d.pages]),
      [['2030-05-01', 2]],
    );
    await usage.close();
  });

  test('metrics label declared tenants by name and every other one as `other`', async () => {
    const metrics = new Metrics();
    metrics.labelTenants(['default', 'admin', 'a']);
    metrics.tenantUsed('a', { pages: 1, browserMs: 1500 });
    metrics.tenantUsed('intruder-1', { pages: 1 });
    metrics.tenantUsed('intruder-2', { pages: 1 });
    const text = await metrics.text();
    assert.match(text, /pagewright_tenant_pages_total\{tenant="a"\} 1/);
    assert.match(text, /pagewright_tenant_pages_total\{tenant="other"\} 2/);
    assert.match(text, /pagewright_tenant_browser_seconds_total\{tenant="a"\} 1\.5/);
    assert.doesNotMatch(text, /intruder/);
  });
});
