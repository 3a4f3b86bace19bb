import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import { REDIS_MISSING, redisAvailable, startRedis } from '../fixtures/redis.js';
import { freePort } from '../fixtures/free-port.js';
import { startLlmStub } from '../fixtures/llm-stub.js';
import { spawnService } from '../fixtures/service-process.js';
import { startService } from '../helpers.js';

/**
 * Tenants sharing one service, and a fleet: each tenant's pages in flight stay within MAX_SCRAPES_PER_TENANT
 * while another tenant's work goes on beside them, and its jobs not ended within MAX_JOBS_PER_TENANT, counted
 * when asked (a burst cannot take the last place twice, not even through two API processes). Everything is
 * counted at the fixture site or in the answers, never timed.
 */

const TENANT_KEYS = { a: 'key-of-tenant-a', b: 'key-of-tenant-b', c: 'key-of-tenant-c' } as const;
const KEYS = { ...TENANT_KEYS, operator: 'key-of-the-operator' } as const;
type TenantName = keyof typeof KEYS;
const API_KEYS = Object.entries(TENANT_KEYS)
  .map(([name, key]) => `${name}:${key}`)
  .join(',');

interface Answer {
  status: number;
  json: Record<string, unknown>;
  retryAfter: string | null;
}

async function ask(url: string, tenant: TenantName, method = 'GET', body?: unknown): Promise<Answer> {
  const res = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${KEYS[tenant]}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    json: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    retryAfter: res.headers.get('retry-after'),
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it is true (a generous bound: the suite must pass on a slow machine). */
async function until(check: () => boolean | Promise<boolean>, what: string, boundMs = 60_000): Promise<void> {
  const end = Date.now() + boundMs;
  while (!(await check())) {
    if (Date.now() > end) assert.fail(`gave up waiting: ${what}`);
    await sleep(25);
  }
}

/** A crawl's status once it left `scraping`. */
async function ended(api: string, tenant: TenantName, id: string, boundMs = 180_000): Promise<Answer> {
  let status = await ask(`${api}/v2/crawl/${id}?limit=1`, tenant);
  for (const end = Date.now() + boundMs; status.json.status === 'scraping';) {
    if (Date.now() > end) assert.fail(`crawl ${id} of ${tenant} did not end`);
    await sleep(100);
    status = await ask(`${api}/v2/crawl/${id}?limit=1`, tenant);
  }
  return status;
}

/**
 * A site whose first path segment names the tenant a request is for (`/a/...`). `/<t>/` links to `/<t>/1`
 * .. `/<t>/pages`; `/<t>/N` answers after `delayMs`; `/<t>/hold/...` answers once `release()` is called. It
 * counts the requests of each tenant in flight, their most at once, and the requests of each tenant that
 * arrived while another tenant had some in flight.
 */
interface TenantSite {
  url: string;
  inFlight: Record<string, number>;
  most: Record<string, number>;
  /** Requests of a tenant (key) that arrived while another one had requests in flight. */
  besideOthers: Record<string, number>;
  hits: Record<string, number>;
  /** Answers the held requests whose path starts with `prefix`, and every one to come (all, without). */
  release(prefix?: string): void;
}

async function startTenantSite(
  t: TestContext,
  options: { pages: number; delayMs: number },
): Promise<TenantSite> {
  const inFlight: Record<string, number> = {};
  const most: Record<string, number> = {};
  const besideOthers: Record<string, number> = {};
  const hits: Record<string, number> = {};
  /** Prefixes of the paths answered at once; '' answers every path. */
  const released: string[] = [];
  const held = new Map<() => void, string>();
  const server = createServer((req, res) => {
    const [, tenant = '', what = '', ...rest] = (req.url ?? '/').split('?')[0]!.split('/');
    if (!tenant || tenant === 'robots.txt' || tenant.includes('sitemap'))
      return void res.writeHead(404).end();
    hits[tenant] = (hits[tenant] ?? 0) + 1;
    inFlight[tenant] = (inFlight[tenant] ?? 0) + 1;
    most[tenant] = Math.max(most[tenant] ?? 0, inFlight[tenant]);
    if (Object.entries(inFlight).some(([other, n]) => other !== tenant && n > 0)) {
      besideOthers[tenant] = (besideOthers[tenant] ?? 0) + 1;
    }
    res.once('close', () => inFlight[tenant]!--);
    const links =
      what === ''
        ? Array.from({ length: options.pages }, (_, i) => `<a href="/${tenant}/${i + 1}">page ${i + 1}</a>`)
        : [];
    const answer = (): void =>
      void res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          `<!DOCTYPE html><html><head><title>${tenant} ${what} ${rest.join('/')}</title></head><body><main>` +
            `<h1>Page of ${tenant}</h1><p>Words enough to be a page of the fixture site.</p>${links.join(' ')}` +
            '</main></body></html>',
        );
    if (what === 'hold') {
      if (released.some((prefix) => req.url?.startsWith(prefix))) return answer();
      held.set(answer, req.url ?? '');
      res.once('close', () => held.delete(answer));
      return;
    }
    setTimeout(answer, what === '' ? 0 : options.delayMs);
  });
  server.keepAliveTimeout = 100;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const release = (prefix?: string): void => {
    released.push(prefix ?? '');
    for (const [answer, path] of [...held]) {
      if (!path.startsWith(prefix ?? '')) continue;
      held.delete(answer);
      answer();
    }
  };
  t.after(async () => {
    release();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, inFlight, most, besideOthers, hits, release };
}

/** The settings every service of this file runs with: a crawl is held back by its tenant's slots only. */
const COMMON = {
  API_KEYS,
  ADMIN_API_KEYS: KEYS.operator,
  CRAWL_MIN_DELAY_MS: '0',
  CRAWL_HOST_CONCURRENCY: '32',
};

const crawlBody = (site: TenantSite, tenant: string, limit: number) => ({
  url: `${site.url}/${tenant}/`,
  limit,
  maxConcurrency: 8,
  sitemap: 'skip',
});

describe('fair share between tenants, one process', () => {
  test('MAX_SCRAPES_PER_TENANT=2: a tenant never has more than 2 pages in flight; another tenant is not held behind its crawl', async (t) => {
    const site = await startTenantSite(t, { pages: 60, delayMs: 150 });
    const svc = await startService(t, { env: { ...COMMON, MAX_SCRAPES_PER_TENANT: '2' } });
    const crawl = await ask(`${svc.url}/v2/crawl`, 'a', 'POST', crawlBody(site, 'a', 50));
    assert.equal(crawl.status, 200, JSON.stringify(crawl.json));
    await until(() => (site.inFlight.a ?? 0) > 0, "a's crawl fetching");
    const scrapesOfA = Array.from({ length: 4 }, (_, i) =>
      ask(`${svc.url}/v2/scrape`, 'a', 'POST', { url: `${site.url}/a/scrape-${i}`, timeout: 120_000 }),
    );
    const ofB = await ask(`${svc.url}/v2/scrape`, 'b', 'POST', { url: `${site.url}/b/1`, timeout: 60_000 });
    assert.equal(ofB.status, 200, JSON.stringify(ofB.json));
    const crawledWhenBAnswered = site.hits.a ?? 0;
    const status = await ask(`${svc.url}/v2/crawl/${crawl.json.id as string}?limit=1`, 'a');
    assert.equal(status.json.status, 'scraping', "a's crawl is still running when b's scrape is answered");
    assert.ok(crawledWhenBAnswered < 50, `a had ${crawledWhenBAnswered} of its pages fetched then`);
    for (const answer of await Promise.all(scrapesOfA)) assert.equal(answer.status, 200);
    assert.equal((await ended(svc.url, 'a', crawl.json.id as string)).json.status, 'completed');
    t.diagnostic(`most pages in flight at once: a ${site.most.a}, b ${site.most.b}`);
    assert.equal(site.most.a, 2, "a's pages in flight reached its limit, never more");
  });

  test('a scrape that waits past half its timeout for a slot: 429 naming MAX_SCRAPES_PER_TENANT, with Retry-After', async (t) => {
    const site = await startTenantSite(t, { pages: 1, delayMs: 0 });
    const svc = await startService(t, { env: { ...COMMON, MAX_SCRAPES_PER_TENANT: '2' } });
    const holding = [1, 2].map((n) =>
      ask(`${svc.url}/v2/scrape`, 'a', 'POST', { url: `${site.url}/a/hold/${n}`, timeout: 120_000 }),
    );
    await until(() => site.inFlight.a === 2, "a's two slots held");
    const refused = await ask(`${svc.url}/v2/scrape`, 'a', 'POST', { url: `${site.url}/a/1`, timeout: 2000 });
    assert.equal(refused.status, 429, JSON.stringify(refused.json));
    assert.equal(refused.json.code, 'LIMIT_REACHED');
    assert.match(String(refused.json.error), /MAX_SCRAPES_PER_TENANT=2/);
    assert.ok(Number(refused.retryAfter) >= 1, `Retry-After: ${refused.retryAfter}`);
    assert.equal(site.hits.a, 2, 'the refused scrape never reached the site');
    const ofB = await ask(`${svc.url}/v2/scrape`, 'b', 'POST', { url: `${site.url}/b/1`, timeout: 10_000 });
    assert.equal(ofB.status, 200, "b's slots are its own");
    site.release();
    for (const answer of await Promise.all(holding)) assert.equal(answer.status, 200);
  });

  test('MAX_JOBS_PER_TENANT=2: of a burst of starts, 2 are accepted, the others 429 with Retry-After; a cancel frees a place', async (t) => {
    const site = await startTenantSite(t, { pages: 1, delayMs: 0 });
    const svc = await startService(t, { env: { ...COMMON, MAX_JOBS_PER_TENANT: '2' } });
    const start = (tenant: TenantName, n: number) =>
      ask(`${svc.url}/v2/crawl`, tenant, 'POST', { url: `${site.url}/${tenant}/hold/${n}`, limit: 1 });
    const burst = await Promise.all(Array.from({ length: 5 }, (_, n) => start('a', n)));
    assert.deepEqual(burst.map((a) => a.status).sort(), [200, 200, 429, 429, 429]);
    for (const refused of burst.filter((a) => a.status === 429)) {
      assert.equal(refused.json.code, 'LIMIT_REACHED');
      assert.match(String(refused.json.error), /MAX_JOBS_PER_TENANT=2/);
      assert.equal(refused.retryAfter, '30');
    }
    assert.equal((await start('b', 0)).status, 200, "b's places are its own");
    const accepted = burst.filter((a) => a.status === 200).map((a) => a.json.id as string);
    assert.equal((await ask(`${svc.url}/v2/crawl/${accepted[0]!}`, 'a', 'DELETE')).status, 200);
    assert.equal((await start('a', 10)).status, 200, 'a cancelled crawl freed its place');
    assert.equal((await start('a', 11)).status, 429);
    site.release();
  });
});

describe('agent runs among the jobs', () => {
  test('MAX_AGENT_RUNS_PER_TENANT and MAX_JOBS_PER_TENANT: one 429 each time, naming the limit reached (agent runs first)', async (t) => {
    const llm = await startLlmStub();
    t.after(() => llm.close());
    llm.reply = () => ({ delayMs: 600_000, text: '{}' }); // every run started stays in flight
    const site = await startTenantSite(t, { pages: 1, delayMs: 0 });
    const svc = await startService(t, {
      env: {
        ...COMMON,
        MAX_JOBS_PER_TENANT: '2',
        MAX_AGENT_RUNS_PER_TENANT: '1',
        OPENAI_BASE_URL: llm.url,
        MODEL_NAME: 'stub-model',
      },
    });
    const agent = () => ask(`${svc.url}/v2/agent`, 'a', 'POST', { prompt: 'find the prices' });
    const crawl = (n: number) =>
      ask(`${svc.url}/v2/crawl`, 'a', 'POST', { url: `${site.url}/a/hold/${n}`, limit: 1 });
    const refusedFor = (answer: Answer, setting: string, other: string): void => {
      assert.equal(answer.status, 429, JSON.stringify(answer.json));
      assert.match(String(answer.json.error), new RegExp(`${setting}=`));
      assert.doesNotMatch(String(answer.json.error), new RegExp(other));
      assert.ok(Number(answer.retryAfter) >= 1);
    };
    const run = await agent();
    assert.equal(run.status, 200, JSON.stringify(run.json));
    refusedFor(await agent(), 'MAX_AGENT_RUNS_PER_TENANT', 'MAX_JOBS_PER_TENANT');
    assert.equal((await crawl(1)).status, 200);
    refusedFor(await crawl(2), 'MAX_JOBS_PER_TENANT', 'MAX_AGENT_RUNS_PER_TENANT');
    refusedFor(await agent(), 'MAX_AGENT_RUNS_PER_TENANT', 'MAX_JOBS_PER_TENANT');
    assert.equal((await ask(`${svc.url}/v2/agent/${run.json.id as string}`, 'a', 'DELETE')).status, 200);
    assert.equal((await crawl(3)).status, 200);
    refusedFor(await agent(), 'MAX_JOBS_PER_TENANT', 'MAX_AGENT_RUNS_PER_TENANT');
    site.release();
  });
});

/** A worker process of the fleet (as `npm run worker` runs it), killed when the test ends. */
function spawnWorker(t: TestContext, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  t.after(() => void (child.exitCode === null && child.kill('SIGKILL')));
  return child;
}

describe('fair share across a fleet', { skip: redisAvailable ? false : REDIS_MISSING }, () => {
  test('Redis, 2 API processes, 2 workers: MAX_SCRAPES_PER_TENANT and MAX_JOBS_PER_TENANT hold for the whole fleet', async (t) => {
    const redis = await startRedis();
    t.after(() => redis.close());
    const site = await startTenantSite(t, { pages: 80, delayMs: 150 });
    const env = {
      ...COMMON,
      REDIS_URL: redis.url,
      ALLOW_PRIVATE_NETWORKS: 'true',
      CONTENT_WORKERS: '1',
      LOG_LEVEL: 'error',
      MAX_SCRAPES_PER_TENANT: '3',
      MAX_JOBS_PER_TENANT: '3',
      REDIS_STALLED_MS: '1500',
      FRONTIER_LEASE_MS: '3000',
      // 6 slots for crawls of 2 shares: three crawls fill them.
      WORKERS: '3',
      JOB_SHARES: '2',
    };
    const apis: string[] = [];
    for (let i = 0; i < 2; i++) {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pagewright-fair-'));
      const port = await freePort();
      const child = await spawnService(dataDir, port, { ...env, WORKERS: '0' });
      t.after(() => {
        if (child.exitCode === null) child.kill('SIGKILL');
        rmSync(dataDir, { recursive: true, force: true });
      });
      apis.push(`http://127.0.0.1:${port}`);
    }
    for (let i = 0; i < 2; i++) spawnWorker(t, env);
    const [one, two] = apis as [string, string];

    await t.test("two crawls of a on both workers, b's beside them", async () => {
      const ids = [];
      for (const [api, tenant] of [
        [one, 'a'],
        [two, 'a'],
        [one, 'b'],
      ] as const) {
        const started = await ask(`${api}/v2/crawl`, tenant, 'POST', crawlBody(site, tenant, 40));
        assert.equal(started.status, 200, JSON.stringify(started.json));
        ids.push({ api, tenant, id: started.json.id as string });
      }
      for (const { api, tenant, id } of ids) {
        const status = await ended(api, tenant, id);
        assert.equal(status.json.status, 'completed', JSON.stringify(status.json));
      }
      t.diagnostic(
        `most pages in flight at once: a ${site.most.a}, b ${site.most.b}; ` +
          `b's pages fetched while a's were in flight: ${site.besideOthers.b ?? 0} of ${site.hits.b}`,
      );
      assert.ok(site.most.a! <= 3, `a had ${site.most.a} pages in flight at once`);
      assert.ok(site.most.b! <= 3, `b had ${site.most.b} pages in flight at once`);
      assert.ok((site.besideOthers.b ?? 0) >= 10, "b's crawl progressed while a's two were running");
    });

    await t.test(
      "with every worker busy, b's next crawl is worked before a's third, queued first",
      async () => {
        const queue = async () => (await ask(`${one}/v2/team/queue-status`, 'operator')).json;
        for (const [api, tenant, n] of [
          [one, 'a', 1],
          [two, 'a', 2],
          [one, 'b', 0],
        ] as const) {
          const started = await ask(`${api}/v2/crawl`, tenant, 'POST', {
            url: `${site.url}/${tenant}/hold/${n}`,
            limit: 1,
          });
          assert.equal(started.status, 200, JSON.stringify(started.json));
        }
        await until(async () => (await queue()).activeJobsInQueue === 6, 'the three crawls on all 6 slots');
        // Their pages held at the site: released before it arrived, b's page would be held for good.
        await until(
          () => (site.inFlight.a ?? 0) >= 2 && (site.inFlight.b ?? 0) >= 1,
          "the three crawls' pages held",
        );
        const third = await ask(`${one}/v2/crawl`, 'a', 'POST', { url: `${site.url}/a/hold/3`, limit: 1 });
        const next = await ask(`${two}/v2/crawl`, 'b', 'POST', { url: `${site.url}/b/2`, limit: 1 });
        assert.equal(third.status, 200, JSON.stringify(third.json));
        assert.equal(next.status, 200, JSON.stringify(next.json));
        await until(async () => (await queue()).waitingJobsInQueue === 4, 'both queued');
        site.release('/b/hold/');
        // Were a's third crawl worked first, it would hold the freed slots and b's would not end.
        const status = await ended(two, 'b', next.json.id as string, 60_000);
        assert.equal(status.json.status, 'completed', JSON.stringify(status.json));
        assert.ok(site.inFlight.a! >= 2, "a's first two crawls still hold their pages");
      },
    );

    await t.test('8 simultaneous starts of c through both APIs: exactly 3 accepted', async () => {
      const burst = await Promise.all(
        Array.from({ length: 8 }, (_, n) =>
          ask(`${n % 2 === 0 ? one : two}/v2/crawl`, 'c', 'POST', {
            url: `${site.url}/c/hold/${n}`,
            limit: 1,
          }),
        ),
      );
      assert.deepEqual(
        burst.map((a) => a.status).sort(),
        [200, 200, 200, 429, 429, 429, 429, 429],
        JSON.stringify(burst.map((a) => a.json)),
      );
      for (const refused of burst.filter((a) => a.status === 429)) {
        assert.match(String(refused.json.error), /MAX_JOBS_PER_TENANT=3/);
        assert.ok(Number(refused.retryAfter) >= 1);
      }
      const accepted = burst.filter((a) => a.status === 200).map((a) => a.json.id as string);
      assert.equal((await ask(`${two}/v2/crawl/${accepted[0]!}`, 'c', 'DELETE')).status, 200);
      const again = await ask(`${one}/v2/crawl`, 'c', 'POST', { url: `${site.url}/c/hold/9`, limit: 1 });
      assert.equal(again.status, 200, 'a crawl cancelled through the other API freed its place');
      const over = await ask(`${two}/v2/crawl`, 'c', 'POST', { url: `${site.url}/c/hold/10`, limit: 1 });
      assert.equal(over.status, 429);
      site.release();
    });
  });
});
