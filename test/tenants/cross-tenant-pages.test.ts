import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { until } from '../fixtures/until.js';
import { startService } from '../helpers.js';
import {
  KEYS,
  TENANT_ENV,
  call,
  randomLike,
  startTenantSite,
  suiteCleanup,
  withoutIds,
} from './cross-tenant.js';
import type { Who } from './cross-tenant.js';

/**
 * What tenants share nothing of besides the routes naming ids: the MCP server acts as its key's tenant; the
 * `maxAge` cache and changeTracking's previous versions are each tenant's own; a check is read under its own
 * monitor only; the jobs view (the web app's) lists a key's own tenant, an operator's every tenant or one.
 */

type ToolReply = { isError?: boolean; content: { type: string; text: string }[] };

describe('tenants share no pages, checks or jobs through MCP, the cache or the jobs view', () => {
  let base = '';
  let site: Awaited<ReturnType<typeof startTenantSite>>;
  let crawl = '';
  const { t, cleanUp } = suiteCleanup();

  before(async () => {
    site = await startTenantSite();
    t.after(() => site.close());
    base = (await startService(t, { env: { ...TENANT_ENV, CRAWL_MIN_DELAY_MS: '0' } })).url;
    const started = await call(base, 'a', 'POST', '/v2/crawl', { url: `${site.url}/`, limit: 2 });
    crawl = String(started.json.id);
    await until(
      () => call(base, 'a', 'GET', `/v2/crawl/${crawl}`),
      (r) => r.json.status !== 'scraping',
    );
  });
  after(cleanUp);

  test("MCP with b's key: a's crawl status by id is the error of an unknown id; with a's, the status", async () => {
    const client = async (who: Who) => {
      const c = new Client({ name: 'test', version: '1.0.0' });
      await c.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${KEYS[who]}` } },
        }),
      );
      return c;
    };
    const [a, b] = await Promise.all([client('a'), client('b')]);
    try {
      const status = async (c: Client, id: string) =>
        (await c.callTool({ name: 'check_crawl_status', arguments: { id } })) as ToolReply;
      const unknown = randomLike(crawl);
      const other = await status(b, crawl);
      const never = await status(b, unknown);
      assert.equal(other.isError, true);
      assert.match(other.content[0]!.text, /NOT_FOUND/);
      assert.equal(withoutIds(JSON.stringify(other), [crawl]), withoutIds(JSON.stringify(never), [unknown]));
      const own = await status(a, crawl);
      assert.notEqual(own.isError, true, own.content[0]!.text);
      assert.match(own.content[0]!.text, /"status": "completed"/);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test("the maxAge cache is each tenant's: b's scrape of a page a just scraped is fetched anew", async () => {
    const scrape = async (who: Who) => {
      const reply = await call(base, who, 'POST', '/v2/scrape', { url: `${site.url}/counter?cache` });
      assert.equal(reply.status, 200, JSON.stringify(reply.json));
      const data = reply.json.data as { markdown: string; metadata: { cacheState?: string } };
      return { reads: /Read (\d+) times/.exec(data.markdown)?.[1], cache: data.metadata.cacheState };
    };
    const first = await scrape('a');
    assert.deepEqual(await scrape('a'), { reads: first.reads, cache: 'hit' });
    const body = { url: `${site.url}/counter?cache`, lockdown: true };
    assert.equal((await call(base, 'a', 'POST', '/v2/scrape', body)).status, 200, 'lockdown: a hit for a');
    const locked = await call(base, 'b', 'POST', '/v2/scrape', body);
    assert.deepEqual([locked.status, locked.json.code], [404, 'SCRAPE_LOCKDOWN_CACHE_MISS'], 'a miss for b');
    const other = await scrape('b');
    assert.equal(other.cache, 'miss');
    assert.notEqual(other.reads, first.reads);
  });

  test("changeTracking compares with the tenant's own previous scrape, never another tenant's", async () => {
    const tracked = async (who: Who) => {
      const reply = await call(base, who, 'POST', '/v2/scrape', {
        url: `${site.url}/counter?tracked`,
        formats: ['markdown', { type: 'changeTracking', modes: ['git-diff'] }],
      });
      assert.equal(reply.status, 200, JSON.stringify(reply.json));
      return (reply.json.data as { changeTracking: Record<string, unknown> }).changeTracking;
    };
    assert.equal((await tracked('a')).changeStatus, 'new');
    assert.equal((await tracked('a')).changeStatus, 'changed');
    const other = await tracked('b');
    assert.equal(other.changeStatus, 'new', JSON.stringify(other));
    assert.equal(other.previousScrapeAt, null);
    assert.equal(other.diff, undefined);
  });

  test("a check is read under its own monitor only: b's monitor with a's check id is a 404", async () => {
    const monitor = async (who: Who) => {
      const reply = await call(base, who, 'POST', '/v2/monitor', {
        name: `${who}'s`,
        schedule: { cron: '0 9 * * *' },
        targets: [{ type: 'scrape', urls: [`${site.url}/one`] }],
      });
      assert.equal(reply.status, 200, JSON.stringify(reply.json));
      return (reply.json.data as { id: string }).id;
    };
    const [mine, theirs] = await Promise.all([monitor('a'), monitor('b')]);
    const check = ((await call(base, 'a', 'POST', `/v2/monitor/${mine}/run`)).json.data as { id: string }).id;
    const other = await call(base, 'b', 'GET', `/v2/monitor/${theirs}/checks/${check}`);
    const never = await call(base, 'b', 'GET', `/v2/monitor/${theirs}/checks/${randomLike(check)}`);
    assert.equal(other.status, 404);
    assert.deepEqual(other.json, never.json);
    assert.equal((await call(base, 'a', 'GET', `/v2/monitor/${mine}/checks/${check}`)).status, 200);
  });

  test("the jobs view: a key's own tenant's jobs; an operator's every tenant's, or the one ?tenant= names", async () => {
    const started = await call(base, 'b', 'POST', '/v2/batch/scrape', { urls: [`${site.url}/one`] });
    const batch = String(started.json.id);
    const jobs = async (who: Who, query = '') => {
      const reply = await call(base, who, 'GET', `/api/v1/jobs${query}`);
      assert.equal(reply.status, 200, JSON.stringify(reply.json));
      const json = reply.json as { data: { id: string; owner: string }[]; caller: unknown };
      return {
        ids: json.data.map((j) => j.id),
        owners: new Set(json.data.map((j) => j.owner)),
        caller: json.caller,
      };
    };
    const b = await jobs('b', '?tenant=a');
    assert.deepEqual(b.caller, { tenant: 'b', admin: false });
    assert.deepEqual([...b.owners], ['b'], '?tenant= is an operator filter: b lists its own');
    assert.ok(b.ids.includes(batch) && !b.ids.includes(crawl));
    const all = await jobs('op');
    assert.deepEqual(all.caller, { tenant: 'admin', admin: true });
    assert.ok(all.ids.includes(batch) && all.ids.includes(crawl));
    const onlyA = await jobs('op', '?tenant=a');
    assert.deepEqual([...onlyA.owners], ['a']);
    assert.ok(onlyA.ids.includes(crawl) && !onlyA.ids.includes(batch));
  });
});
