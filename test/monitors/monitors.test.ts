import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import type { MonitorCheckDetail } from '@mendable/firecrawl-js';
import { startChangingSite } from '../fixtures/sites/changing-site.js';
import { firecrawlMcp } from '../fixtures/firecrawl-mcp.js';
import { startLlmStub } from '../fixtures/llm-stub.js';
import { startSearchStub } from '../fixtures/search-stub.js';
import { startWebhookReceiver } from '../fixtures/webhook-receiver.js';
import { until } from '../fixtures/until.js';
import { startService } from '../helpers.js';

/**
 * Monitors through Firecrawl's routes and its real clients: a loopback site whose pages change between checks,
 * manual and scheduled checks (a 1-second schedule), the judge on and off against the LLM stub, signed webhooks,
 * pause and delete, crawl and search targets, and firecrawl-mcp's monitor tools over stdio.
 */

const SECRET = 'monitor-secret';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function setup(t: TestContext) {
  const site = await startChangingSite({ '/price': 'The Rocket costs 10 EUR.', '/news': 'No news today.' });
  t.after(() => site.close());
  const llm = await startLlmStub();
  t.after(() => llm.close());
  const search = await startSearchStub();
  t.after(() => search.close());
  const hook = await startWebhookReceiver();
  t.after(() => hook.close());
  const svc = await startService(t, {
    env: {
      OPENAI_BASE_URL: llm.url,
      MODEL_NAME: 'stub-model',
      SEARXNG_URL: `${search.url}/searxng`,
      WEBHOOK_SECRET: SECRET,
      CRAWL_MIN_DELAY_MS: '0',
      // A 1-second schedule below: ticks as close as cron allows.
      MIN_MONITOR_INTERVAL_SECONDS: '1',
    },
  });
  const fc = new Firecrawl({ apiKey: 'test', apiUrl: svc.url });
  /** The check once it ended. */
  const ended = (monitorId: string, checkId: string) =>
    until(
      () => fc.getMonitorCheck(monitorId, checkId),
      (c) => c.status !== 'queued' && c.status !== 'running',
    );
  return { site, llm, search, hook, svc, fc, ended };
}

const byUrl = (check: MonitorCheckDetail, site: string) =>
  Object.fromEntries(check.pages.map((p) => [p.url.replace(site, ''), p.status]));

describe('monitors (/v2/monitor)', () => {
  test('a scrape target: new, then changed with the diff and removed; signed webhooks; no LLM call without a judge', async (t) => {
    const { site, llm, hook, fc, ended } = await setup(t);
    const monitor = await fc.createMonitor({
      name: 'Rocket price',
      schedule: { text: 'daily at 9am', timezone: 'Europe/Lisbon' },
      targets: [{ type: 'scrape', urls: [`${site.url}/price`, `${site.url}/news`] }],
      webhook: { url: hook.url, metadata: { team: 'growth' } },
    });
    assert.equal(monitor.status, 'active');
    assert.equal(monitor.schedule.cron, '0 9 * * *');
    assert.equal(monitor.schedule.timezone, 'Europe/Lisbon');
    assert.equal(monitor.retentionDays, 30);
    assert.ok(Date.parse(monitor.nextRunAt!) > Date.now());
    const first = await ended(monitor.id, (await fc.runMonitor(monitor.id)).id);
    assert.equal(first.status, 'completed', first.error ?? '');
    assert.equal(first.trigger, 'manual');
    assert.deepEqual(byUrl(first, site.url), { '/price': 'new', '/news': 'new' });
    assert.deepEqual(first.targetResults, [{ targetId: 't1', type: 'scrape', pages: 2 }]);

    site.pages.set('/price', 'The Rocket costs 12 EUR.');
    site.pages.delete('/news');
    const second = await ended(monitor.id, (await fc.runMonitor(monitor.id)).id);
    assert.equal(second.status, 'completed', second.error ?? '');
    assert.deepEqual(byUrl(second, site.url), { '/price': 'changed', '/news': 'removed' });
    assert.deepEqual(second.summary, { totalPages: 2, same: 0, changed: 1, new: 0, removed: 1, error: 0 });
    const price = second.pages.find((p) => p.url.endsWith('/price'))!;
    assert.match(
      price.diff!.text!,
      /-The Rocket costs 10 EUR\.\n(\\ No newline at end of file\n)?\+The Rocket costs 12 EUR\./,
    );
    assert.equal(price.judgment, null);
    assert.equal(llm.requests.length, 0, 'no judge, no LLM call');

    const third = await ended(monitor.id, (await fc.runMonitor(monitor.id)).id);
    // A removed page still gone is the same as last time; it would be new again if it came back.
    assert.deepEqual(byUrl(third, site.url), { '/price': 'same', '/news': 'same' });
    const checks = await fc.listMonitorChecks(monitor.id);
    assert.deepEqual(
      checks.map((c) => c.id),
      [third.id, second.id, first.id],
    );
    const changedOnly = await fc.getMonitorCheck(monitor.id, second.id, { status: 'changed' });
    assert.deepEqual(
      changedOnly.pages.map((p) => p.status),
      ['changed'],
    );
    const after = await fc.getMonitor(monitor.id);
    assert.deepEqual(after.lastCheckSummary, third.summary);

    const events = await until(
      async () => hook.deliveries.map((d) => d.body.type as string),
      (types) => types.filter((x) => x === 'monitor.check.completed').length === 3,
    );
    assert.deepEqual(events.filter((x) => x === 'monitor.page').length, 4, 'new, new, changed, removed');
    for (const d of hook.deliveries) {
      assert.ok(hook.signed(d, SECRET), 'signed as the other webhooks');
      assert.equal(d.body.monitorId, monitor.id);
      assert.deepEqual(d.body.metadata, { team: 'growth' });
    }
    const removed = hook.deliveries.find((d) => (d.body.data as { status?: string }).status === 'removed')!;
    assert.equal(removed.body.checkId, second.id);

    const moved = await fc.updateMonitor(monitor.id, { schedule: { timezone: 'Asia/Tokyo' } });
    assert.deepEqual(moved.schedule, { text: 'daily at 9am', cron: '0 9 * * *', timezone: 'Asia/Tokyo' });
  });

  test('the judge: with a goal and judgeEnabled, each change is judged by the LLM against the goal', async (t) => {
    const { site, llm, fc, ended } = await setup(t);
    llm.reply = (req) => {
      const input = JSON.stringify(req.body.messages ?? req.body.input);
      const meaningful = /12 EUR/.test(input);
      return {
        text: JSON.stringify({
          meaningful,
          confidence: 'high',
          reason: meaningful ? 'the price went up' : 'first sight of the page',
          meaningfulChanges: meaningful
            ? [{ type: 'changed', before: '10 EUR', after: '12 EUR', reason: 'price' }]
            : [],
        }),
      };
    };
    const monitor = await fc.createMonitor({
      name: 'judged',
      schedule: { cron: '0 0 1 1 *' },
      targets: [{ type: 'scrape', urls: [`${site.url}/price`] }],
      goal: 'Tell me when the price of the Rocket changes',
      judgeEnabled: true,
    });
    await ended(monitor.id, (await fc.runMonitor(monitor.id)).id);
    site.pages.set('/price', 'The Rocket costs 12 EUR.');
    const check = await ended(monitor.id, (await fc.runMonitor(monitor.id)).id);
    const judgment = check.pages[0]!.judgment!;
    assert.equal(judgment.meaningful, true);
    assert.equal(judgment.reason, 'the price went up');
    assert.deepEqual(judgment.meaningfulChanges[0], {
      type: 'changed',
      before: '10 EUR',
      after: '12 EUR',
      reason: 'price',
    });
    assert.equal(llm.requests.length, 2, 'one judgment per new or changed page');
    assert.match(JSON.stringify(llm.requests[1]!.body), /Tell me when the price of the Rocket changes/);
    assert.match(
      JSON.stringify(llm.requests[0]!.body),
      /\+The Rocket costs 10 EUR/,
      "a new page's text is judged",
    );
  });

  test('a 1-second schedule: one check per tick; paused, nothing is fetched; deleted, it is gone', async (t) => {
    const { site, fc } = await setup(t);
    const monitor = await fc.createMonitor({
      name: 'every second',
      schedule: { cron: '* * * * * *' },
      targets: [{ type: 'scrape', urls: [`${site.url}/price`] }],
    });
    const checks = await until(
      () => fc.listMonitorChecks(monitor.id),
      (list) => list.filter((c) => c.status === 'completed').length >= 2,
    );
    const scheduled = checks.filter((c) => c.trigger === 'scheduled' && c.status !== 'skipped_overlap');
    const ticks = scheduled.map((c) => c.scheduledFor);
    assert.equal(new Set(ticks).size, ticks.length, 'each tick fired once');
    assert.ok(
      ticks.every((tick) => Date.parse(tick!) % 1000 === 0),
      'on the second',
    );
    await fc.updateMonitor(monitor.id, { status: 'paused' });
    const paused = await fc.getMonitor(monitor.id);
    assert.equal(paused.status, 'paused');
    assert.equal(paused.nextRunAt, null);
    await sleep(1500); // a check already started may still finish
    const hits = site.hits.get('/price');
    const count = (await fc.listMonitorChecks(monitor.id)).length;
    await sleep(2500);
    assert.equal(site.hits.get('/price'), hits, 'a paused monitor fetches nothing');
    assert.equal((await fc.listMonitorChecks(monitor.id)).length, count);
    assert.equal(await fc.deleteMonitor(monitor.id), true);
    await assert.rejects(fc.getMonitor(monitor.id), /not found/i);
  });

  test('crawl and search targets; a removed page of a crawl; 400s name the field', async (t) => {
    const { site, search, fc, svc, ended } = await setup(t);
    search.hits = [{ title: 'Rocket news', url: `${site.url}/news`, snippet: 'news' }];
    const monitor = await fc.createMonitor({
      name: 'site and search',
      schedule: { text: 'every 30 minutes' },
      targets: [
        { type: 'crawl', url: `${site.url}/`, crawlOptions: { limit: 10 } },
        { type: 'search', queries: ['rocket news'], maxResults: 5 },
      ],
    });
    assert.equal(monitor.schedule.cron, '*/30 * * * *');
    const first = await ended(monitor.id, (await fc.runMonitor(monitor.id)).id);
    const crawled = first.pages.filter((p) => p.targetId === 't1').map((p) => p.url.replace(site.url, ''));
    assert.deepEqual(crawled.sort(), ['/', '/news', '/price']);
    assert.deepEqual(
      first.targetResults?.map((r) => r.type),
      ['crawl', 'search'],
    );
    assert.deepEqual(
      first.pages.filter((p) => p.targetId === 't2').map((p) => [p.url, p.status]),
      [[`${site.url}/news`, 'new']],
    );
    site.pages.delete('/news');
    search.hits = [];
    const second = await ended(monitor.id, (await fc.runMonitor(monitor.id)).id);
    const statuses = Object.fromEntries(
      second.pages.map((p) => [`${p.targetId} ${p.url.replace(site.url, '')}`, p.status]),
    );
    assert.equal(statuses['t1 /news'], 'removed');
    assert.equal(statuses['t2 /news'], 'removed');
    assert.equal(statuses['t1 /'], 'changed', 'the index lost its link');

    const bad = await svc.post('/v2/monitor', {
      name: 'x',
      schedule: { text: 'whenever you like' },
      targets: [{ type: 'scrape', urls: [`${site.url}/`] }],
    });
    assert.equal(bad.status, 400);
    assert.match(String(bad.json.error), /schedule\.text/);
    const formats = await svc.post('/v2/monitor', {
      name: 'x',
      schedule: { cron: '0 * * * *' },
      targets: [{ type: 'scrape', urls: [`${site.url}/`], scrapeOptions: { formats: ['screenshot'] } }],
    });
    assert.equal(formats.status, 400);
    assert.match(String(formats.json.error), /targets\[0\]\.scrapeOptions\.formats\[0\]/);
    for (const [target, field] of [
      [
        { type: 'scrape', urls: [`${site.url}/`], scrapeOptions: { formats: 'markdown' } },
        'scrapeOptions.formats',
      ],
      [{ type: 'crawl', url: `${site.url}/`, crawlOptions: 'deep' }, 'crawlOptions'],
    ] as const) {
      const res = await svc.post('/v2/monitor', {
        name: 'x',
        schedule: { cron: '0 * * * *' },
        targets: [target],
      });
      assert.equal(res.status, 400, JSON.stringify(res.json));
      assert.match(String(res.json.error), new RegExp(`targets\\[0\\]\\.${field.replace('.', '\\.')}`));
    }
    const tooMany = await svc.post('/v2/monitor', {
      name: 'x',
      schedule: { cron: '0 * * * *' },
      targets: [
        { type: 'crawl', url: `${site.url}/`, crawlOptions: { limit: 500 } },
        { type: 'crawl', url: `${site.url}/news`, crawlOptions: { limit: 500 } },
        { type: 'search', queries: ['a'], maxResults: 50 },
      ],
    });
    assert.equal(tooMany.status, 400);
    assert.match(
      String(tooMany.json.error),
      /^targets: a check reads at most 1000 pages across its targets; these may read 1050/,
    );
    const email = await fc.createMonitor({
      name: 'mail',
      schedule: { cron: '0 * * * *' },
      targets: [{ type: 'scrape', urls: [`${site.url}/`] }],
      notification: { email: { enabled: true, recipients: ['a@example.com'] } },
    });
    assert.match(String((email as unknown as { warning: string }).warning), /no email/);
  });

  test("firecrawl-mcp's monitor tools over stdio", async (t) => {
    const { site, svc } = await setup(t);
    const client = await firecrawlMcp(t, svc.url, 'test');
    type Reply = { isError?: boolean; content: { text: string }[] };
    const call = async (name: string, args: Record<string, unknown>) => {
      const reply = (await client.callTool({ name, arguments: args })) as Reply;
      assert.ok(!reply.isError, `${name}: ${reply.content[0]?.text}`);
      return JSON.parse(reply.content[0]!.text) as {
        data: Record<string, unknown> & Record<string, unknown>[];
      };
    };
    const created = await call('firecrawl_monitor_create', {
      page: `${site.url}/price`,
      goal: 'price changes',
    });
    const id = String(created.data.id);
    assert.equal((created.data.schedule as { cron: string }).cron, '*/30 * * * *');
    const listed = await call('firecrawl_monitor_list', {});
    assert.ok((listed.data as unknown as { id: string }[]).some((m) => m.id === id));
    assert.equal((await call('firecrawl_monitor_get', { id })).data.name, `Monitor ${site.url}/price`);
    const run = await call('firecrawl_monitor_run', { id });
    const checkId = String(run.data.id);
    const check = await until(
      async () => (await call('firecrawl_monitor_check', { id, checkId })).data,
      (c) => c.status === 'completed',
    );
    assert.equal((check.pages as { status: string }[])[0]!.status, 'new');
    const checks = await call('firecrawl_monitor_checks', { id });
    assert.equal((checks.data as unknown as unknown[]).length, 1);
    const paused = await call('firecrawl_monitor_update', { id, body: { status: 'paused' } });
    assert.equal(paused.data.status, 'paused');
    await call('firecrawl_monitor_delete', { id });
  });
});
