import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import { Queue } from 'bullmq';
import { startCrawlSite } from '../fixtures/sites/crawl-site.js';
import type { CrawlSite } from '../fixtures/sites/crawl-site.js';
import { REDIS_MISSING, redisAvailable, startRedis } from '../fixtures/redis.js';
import type { RedisServer } from '../fixtures/redis.js';
import { call, json, sleep } from './http.js';
import type { Json } from './http.js';
import { startFlakySite } from '../fixtures/sites/flaky-site.js';
import { freePort } from '../fixtures/free-port.js';

/** The distributed job engine: real Redis, an API process and worker processes, spawned as `npm start` runs them. */

interface Fleet {
  redis: RedisServer;
  site: CrawlSite;
  api: string;
  workers: ChildProcess[];
  spawnWorker(): ChildProcess;
}

function processEnv(redis: RedisServer, extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    ...process.env,
    REDIS_URL: redis.url,
    ALLOW_PRIVATE_NETWORKS: 'true',
    CRAWL_MIN_DELAY_MS: '0',
    CONTENT_WORKERS: '1',
    LOG_LEVEL: 'error',
    REDIS_STALLED_MS: '1500',
    FRONTIER_LEASE_MS: '3000',
    ...extra,
  };
}

/** Redis, a fixture site, an API process that works no jobs (WORKERS=0) and `workers` worker processes. */
async function startFleet(
  t: TestContext,
  options: { workers: number; site?: Parameters<typeof startCrawlSite>[0]; env?: Record<string, string> },
): Promise<Fleet> {
  const redis = await startRedis();
  const site = await startCrawlSite({ bare: true, ...options.site });
  const children: ChildProcess[] = [];
  t.after(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await site.close();
    await redis.close();
  });
  const port = await freePort();
  const env = processEnv(redis, options.env ?? {});
  const spawnWorker = (): ChildProcess => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], { env, stdio: 'ignore' });
    children.push(child);
    return child;
  };
  children.push(
    spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...env, PORT: String(port), WORKERS: '0' },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  const workers = Array.from({ length: options.workers }, spawnWorker);
  const api = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (
      (await fetch(`${api}/health`).then(
        (r) => r.status,
        () => 0,
      )) === 200
    )
      break;
    await sleep(100);
  }
  return { redis, site, api, workers, spawnWorker };
}

async function waitForEnd(api: string, id: string, onPoll?: (status: Json) => void): Promise<Json> {
  for (let i = 0; i < 1800; i++) {
    const status = json(await call(`${api}/v2/crawl/${id}?limit=1`));
    onPoll?.(status);
    if (status.status !== 'scraping') return status;
    await sleep(100);
  }
  assert.fail('the crawl did not end');
}

async function allSources(api: string, id: string): Promise<string[]> {
  const urls: string[] = [];
  for (let next: string | undefined = `${api}/v2/crawl/${id}?limit=50`; next;) {
    const page = json(await call(next));
    for (const doc of page.data as { metadata: { sourceURL: string } }[]) urls.push(doc.metadata.sourceURL);
    next = page.next as string | undefined;
  }
  return urls;
}

describe(
  'jobs on Redis and BullMQ, several processes',
  { skip: redisAvailable ? false : REDIS_MISSING },
  () => {
    test('kill -9 a worker mid-crawl: another takes its pages over, the job completes, nothing duplicated or lost', async (t) => {
      const fleet = await startFleet(t, { workers: 2, site: { pages: 400, delayMs: 30 } });
      const start = `http://127.0.0.1:${fleet.site.port}/gen/0`;
      const { id } = json(
        await call(`${fleet.api}/v2/crawl`, 'POST', {
          url: start,
          limit: 150,
          crawlEntireDomain: true,
          maxConcurrency: 4,
        }),
      ) as { id: string };
      let fetchedBeforeKill = new Set<string>();
      let killed = false;
      const end = await waitForEnd(fleet.api, id, (status) => {
        if (!killed && (status.completed as number) >= 40) {
          killed = true;
          fleet.workers[0]!.kill('SIGKILL');
          // Requests the killed worker had already written are still on their way to the site for a moment
          // (in the kernel's buffers): they count as in flight at the kill.
          setTimeout(() => (fetchedBeforeKill = new Set(fleet.site.hits.map((h) => h.path))), 150);
        }
      });
      assert.ok(fetchedBeforeKill.size > 0, 'a worker was killed mid-crawl');
      assert.equal(end.status, 'completed', JSON.stringify({ ...end, data: undefined }));
      assert.equal(end.completed, 150);
      const urls = await allSources(fleet.api, id);
      assert.equal(urls.length, 150);
      assert.equal(new Set(urls).size, 150, 'no document is duplicated');
      const counts = new Map<string, number>();
      for (const hit of fleet.site.hits) {
        if (hit.path === '/robots.txt' || hit.path.includes('sitemap')) continue; // read by each share
        counts.set(hit.path, (counts.get(hit.path) ?? 0) + 1);
      }
      const twice = [...counts].filter(([, n]) => n > 1).map(([p]) => p);
      assert.ok(twice.length <= 4, `refetched: ${twice.join(', ')}`);
      for (const p of twice) assert.ok(fetchedBeforeKill.has(p), `${p} was in flight at the kill`);
    });

    test('Redis restarted: acknowledged jobs and documents survive; /health says 503 while it is away', async (t) => {
      const fleet = await startFleet(t, { workers: 1, site: { pages: 10 } });
      const start = `http://127.0.0.1:${fleet.site.port}/gen/0`;
      const { id } = json(
        await call(`${fleet.api}/v2/crawl`, 'POST', { url: start, limit: 5, crawlEntireDomain: true }),
      ) as { id: string };
      assert.equal((await waitForEnd(fleet.api, id)).status, 'completed');
      await fleet.redis.stop();
      let health = 0;
      for (let i = 0; i < 100 && health !== 503; i++) {
        health = await fetch(`${fleet.api}/health`).then((r) => r.status);
        if (health !== 503) await sleep(100);
      }
      assert.equal(health, 503);
      assert.equal(
        (await call(`${fleet.api}/v2/crawl/${id}`)).status,
        503,
        'job routes say the store is away',
      );
      await fleet.redis.restart();
      for (let i = 0; i < 100 && health !== 200; i++) {
        health = await fetch(`${fleet.api}/health`).then((r) => r.status);
        if (health !== 200) await sleep(100);
      }
      assert.equal(health, 200);
      const after = json(await call(`${fleet.api}/v2/crawl/${id}`));
      assert.deepEqual(
        [after.status, after.completed, (after.data as unknown[]).length],
        ['completed', 5, 5],
      );
      // The fleet works again: a new job completes.
      const again = json(await call(`${fleet.api}/v2/batch/scrape`, 'POST', { urls: [start] })) as {
        id: string;
      };
      for (let i = 0; i < 300; i++) {
        const status = json(await call(`${fleet.api}/v2/batch/scrape/${again.id}`));
        if (status.status === 'completed') return;
        await sleep(100);
      }
      assert.fail('a job after the restart did not complete');
    });

    test('no worker alive: the job says so instead of hanging; a worker that starts later completes it', async (t) => {
      const fleet = await startFleet(t, { workers: 0, site: { pages: 4 } });
      const start = `http://127.0.0.1:${fleet.site.port}/gen/0`;
      const { id } = json(
        await call(`${fleet.api}/v2/crawl`, 'POST', { url: start, limit: 3, crawlEntireDomain: true }),
      ) as { id: string };
      const waiting = json(await call(`${fleet.api}/v2/crawl/${id}`));
      assert.equal(waiting.status, 'scraping');
      assert.match(String(waiting.warning), /No worker process is running/);
      fleet.spawnWorker();
      const end = await waitForEnd(fleet.api, id);
      assert.equal(end.status, 'completed');
      assert.equal('warning' in end, false);
    });

    test('a malformed queue entry fails with its reason and is never retried', async (t) => {
      const fleet = await startFleet(t, { workers: 1 });
      const queue = new Queue('pagewright-jobs', {
        connection: { host: '127.0.0.1', port: fleet.redis.port },
      });
      t.after(() => queue.close());
      await queue.add('crawl', { nothing: true }, { jobId: 'malformed-1' });
      let state = '';
      for (let i = 0; i < 200 && state !== 'failed'; i++) {
        state = await queue.getJobState('malformed-1');
        if (state !== 'failed') await sleep(100);
      }
      assert.equal(state, 'failed');
      const job = await queue.getJob('malformed-1');
      assert.match(String(job?.failedReason), /malformed queue entry/);
      assert.equal(job?.attemptsMade, 1);
    });

    test("a worker serves its own /metrics on METRICS_PORT (and no API); the API's status says distributed", async (t) => {
      const fleet = await startFleet(t, { workers: 0 });
      const metricsPort = await freePort();
      const worker = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
        env: processEnv(fleet.redis, { METRICS_PORT: String(metricsPort) }),
        stdio: 'ignore',
      });
      t.after(() => void (worker.exitCode === null && worker.kill('SIGKILL')));
      const base = `http://127.0.0.1:${metricsPort}`;
      let metrics = '';
      for (let i = 0; i < 600 && !metrics.includes('pagewright_job_queue'); i++) {
        metrics = await fetch(`${base}/metrics`).then(
          (r) => r.text(),
          () => '',
        );
        if (!metrics.includes('pagewright_job_queue')) await sleep(100);
      }
      assert.match(metrics, /^pagewright_content_workers\{state="threads"\} 1$/m);
      assert.equal((await fetch(`${base}/v2/crawl/active`)).status, 404, 'a worker answers no API');
      let status: Json = {};
      for (let i = 0; i < 300 && status.workers !== 1; i++) {
        status = json(await call(`${fleet.api}/api/v1/status`));
        if (status.workers !== 1) await sleep(100);
      }
      assert.equal(status.mode, 'distributed');
      assert.equal(status.workers, 1);
      assert.equal(status.redis, 'ok');
    });

    test("two workers honour a host's Retry-After together: every page is fetched, each retried after its hold, and no worker asks during another's hold; the API's status names the held host", async (t) => {
      const fleet = await startFleet(t, { workers: 2 });
      const site = await startFlakySite({ mode: '429', pages: 6, retryAfter: 2 });
      t.after(() => site.close());
      const { id } = json(
        await call(`${fleet.api}/v2/crawl`, 'POST', { url: `${site.url}/`, limit: 10, maxConcurrency: 4 }),
      ) as { id: string };
      const warnings: string[] = [];
      const end = await waitForEnd(fleet.api, id, (status) => {
        if (typeof status.warning === 'string') warnings.push(status.warning);
      });
      assert.equal(end.status, 'completed', JSON.stringify({ ...end, data: undefined }));
      const urls = await allSources(fleet.api, id);
      assert.equal(urls.length, 7);
      const host = new URL(site.url).host;
      assert.ok(
        warnings.some((w) => w.includes(host) && /\d{4}-\d\d-\d\dT\d\d:\d\d/.test(w)),
        `the API process (which works no job) shows the workers' hold: ${JSON.stringify(warnings)}`,
      );
      const pages = site.requests.filter((r) => r.path === '/' || r.path.startsWith('/p/'));
      const firsts = pages.filter((r, i) => pages.findIndex((o) => o.path === r.path) === i);
      for (const first of firsts) {
        const again = pages.filter((r) => r.path === first.path);
        assert.equal(again.length, 2, `${first.path} fetched twice`);
        assert.ok(again[1]!.at - first.at >= 1900, `${first.path} retried before its Retry-After`);
        // A request already on its way when the 429 came may land just after it; none starts later in the hold.
        const during = pages.filter((r) => r.at > first.at + 1000 && r.at < first.at + 1900);
        assert.deepEqual(during, [], `requests during the hold of ${first.path}`);
      }
    });

    test('a monitor on a 1-second schedule with two workers: each tick checked once across the fleet; deleted, no more checks', async (t) => {
      const fleet = await startFleet(t, { workers: 2, env: { MIN_MONITOR_INTERVAL_SECONDS: '1' } });
      const page = `http://127.0.0.1:${fleet.site.port}/gen/0`;
      const monitor = json(
        await call(`${fleet.api}/v2/monitor`, 'POST', {
          name: 'fleet',
          schedule: { cron: '* * * * * *' },
          targets: [{ type: 'scrape', urls: [page] }],
        }),
      ).data as { id: string };
      type Check = { status: string; trigger: string; scheduledFor: string };
      const checks = async (): Promise<Check[]> =>
        json(await call(`${fleet.api}/v2/monitor/${monitor.id}/checks?limit=100`)).data as Check[];
      let seen: Check[] = [];
      for (let i = 0; i < 1200 && seen.filter((c) => c.status === 'completed').length < 3; i++) {
        await sleep(100);
        seen = await checks();
      }
      assert.ok(seen.filter((c) => c.status === 'completed').length >= 3, JSON.stringify(seen));
      const ticks = seen.map((c) => c.scheduledFor);
      assert.ok(seen.every((c) => c.trigger === 'scheduled'));
      assert.equal(new Set(ticks).size, ticks.length, `one check per tick: ${ticks.join(', ')}`);
      json(await call(`${fleet.api}/v2/monitor/${monitor.id}`, 'DELETE'));
      await sleep(1500);
      const hits = fleet.site.hits.filter((h) => h.path === '/gen/0').length;
      await sleep(2500);
      assert.equal(
        fleet.site.hits.filter((h) => h.path === '/gen/0').length,
        hits,
        'a deleted monitor fetches nothing',
      );
    });

    test('a worker started with WORKERS=0 (the API-only setting) refuses to start, naming the setting', async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
        env: { ...process.env, REDIS_URL: 'redis://127.0.0.1:1', WORKERS: '0', LOG_LEVEL: 'error' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise((resolve) => child.once('exit', resolve));
      assert.equal(code, 1);
      assert.match(stderr, /WORKERS=0/);
    });

    test('Redis unreachable at start: the process exits with a clear message', async () => {
      // Port 1: nobody listens there. A port found free a moment ago may be a Redis of a test file running
      // beside this one by the time the worker connects, and the worker would then start and run on.
      const port = 1;
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
        env: { ...process.env, REDIS_URL: `redis://127.0.0.1:${port}`, LOG_LEVEL: 'error' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise((resolve) => child.once('exit', resolve));
      assert.equal(code, 1);
      assert.match(stderr, new RegExp(`Cannot reach Redis at redis://127\\.0\\.0\\.1:${port}`));
    });
  },
);
