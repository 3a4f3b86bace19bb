import type { PageStore } from '../../src/jobs/stores/page-store.js';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Frontier, FrontierItem } from '../../src/crawl/frontier.js';
import { isFinished } from '../../src/crawl/frontier.js';
import type { JobKind, JobStore } from '../../src/jobs/stores/job-store.js';

/** A running job as a version without job owners stored it: no owner (an agent run kept its caller in its request). */
export interface LegacyJob {
  id: string;
  kind: JobKind;
  request: unknown;
  createdAt: number;
}

/**
 * An adapter under test; `reopen` simulates a crash and restart, `legacy` stores jobs the way a version without
 * owners did and answers a store opened over them (both absent for in-memory adapters).
 */
export interface StoreHarness {
  store: JobStore;
  reopen?: () => Promise<JobStore>;
  legacy?: (jobs: LegacyJob[]) => Promise<JobStore>;
  close(): Promise<void>;
}

export interface FrontierHarness {
  frontier: Frontier;
  reopen?: () => Promise<Frontier>;
  close(): Promise<void>;
}

const newJob = (over: Partial<{ listed: boolean; total: number; kind: JobKind; owner: string }> = {}) => ({
  id: randomUUID(),
  kind: 'crawl' as JobKind,
  owner: 'default',
  request: { url: 'https://a.test/' },
  listed: true,
  total: 0,
  ...over,
});

/** The JobStore lifecycle contract (job-store.ts), run against every adapter. */
export function jobStoreContract(name: string, make: (ttlMs: number) => Promise<StoreHarness>): void {
  describe(`JobStore contract: ${name}`, () => {
    test('a created job is stored in scraping with its request and an expiry', async (t) => {
      const h = await make(60_000);
      t.after(() => h.close());
      const job = await h.store.create(newJob({ total: 3 }));
      const read = await h.store.get(job.id);
      assert.equal(read?.state, 'scraping');
      assert.deepEqual(read?.request, { url: 'https://a.test/' });
      assert.equal(read?.total, 3);
      assert.ok(read!.expiresAt > Date.now());
      assert.equal(await h.store.get(randomUUID()), null);
    });

    test('documents: one per URL, in production order, counted; paged by count and by size', async (t) => {
      const h = await make(60_000);
      t.after(() => h.close());
      const { id } = await h.store.create(newJob());
      assert.equal(await h.store.addDocument(id, 'https://a.test/1', '{"n":1}'), true);
      assert.equal(await h.store.addDocument(id, 'https://a.test/2', '{"n":2}'), true);
      assert.equal(await h.store.addDocument(id, 'https://a.test/1', '{"n":"again"}'), false);
      await h.store.addDocument(id, 'https://a.test/3', '{"n":3}');
      assert.equal((await h.store.get(id))?.completed, 3);
      assert.equal(await h.store.hasDocument(id, 'https://a.test/2'), true);
      assert.equal(await h.store.hasDocument(id, 'https://a.test/9'), false);
      const first = await h.store.documents(id, 0, 2, 1e9);
      assert.deepEqual(first.documents, ['{"n":1}', '{"n":2}']);
      assert.equal(first.more, true);
      const rest = await h.store.documents(id, first.nextSkip, 2, 1e9);
      assert.deepEqual(rest.documents, ['{"n":3}']);
      assert.equal(rest.more, false);
      // By size: the first document always comes, then only what fits.
      const bySize = await h.store.documents(id, 0, 100, 10);
      assert.deepEqual(bySize.documents, ['{"n":1}']);
      assert.equal(bySize.more, true);
    });

    test('finish happens once: a cancel racing a completion has one winner', async (t) => {
      const h = await make(60_000);
      t.after(() => h.close());
      const { id } = await h.store.create(newJob());
      const [a, b] = await Promise.all([
        h.store.finish(id, 'cancelled'),
        h.store.finish(id, 'completed', { result: { x: 1 } }),
      ]);
      assert.equal(Number(a) + Number(b), 1);
      const job = await h.store.get(id);
      assert.equal(job?.state, a ? 'cancelled' : 'completed');
      const failed = await h.store.create(newJob());
      await h.store.finish(failed.id, 'failed', { error: 'because' });
      assert.equal((await h.store.get(failed.id))?.error, 'because');
      const done = await h.store.create(newJob());
      await h.store.finish(done.id, 'completed', { result: { llmstxt: 'x' } });
      assert.deepEqual((await h.store.get(done.id))?.result, { llmstxt: 'x' });
    });

    test('errors (one per URL) and robots-blocked URLs are kept', async (t) => {
      const h = await make(60_000);
      t.after(() => h.close());
      const { id } = await h.store.create(newJob());
      await h.store.addError(id, 'https://a.test/x', 'TARGET_UNREACHABLE', 'first', 1);
      await h.store.addError(id, 'https://a.test/x', 'TIMEOUT', 'second', 3);
      await h.store.addError(id, 'https://a.test/y', 'HOST_PAUSED', 'y', 0);
      await h.store.addRobotsBlocked(id, 'https://a.test/private');
      await h.store.addRobotsBlocked(id, 'https://a.test/private');
      const errors = await h.store.errors(id);
      assert.equal(errors.length, 2);
      assert.equal(errors.find((e) => e.url === 'https://a.test/x')?.error, 'second');
      assert.equal(errors.find((e) => e.url === 'https://a.test/x')?.attempts, 3);
      assert.equal(errors.find((e) => e.url === 'https://a.test/y')?.attempts, 0);
      assert.ok(errors.every((e) => e.id && e.at > 0));
      assert.deepEqual(await h.store.robotsBlocked(id), ['https://a.test/private']);
    });

    test('active lists running listed jobs only, recent every listed job newest first; expired ended jobs are purged with what they stored', async (t) => {
      const h = await make(50);
      t.after(() => h.close());
      const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 3));
      const running = await h.store.create(newJob());
      await tick();
      await h.store.create(newJob({ listed: false }));
      await tick();
      const ended = await h.store.create(newJob());
      await h.store.addDocument(ended.id, 'https://a.test/', '{}');
      await h.store.finish(ended.id, 'completed');
      assert.deepEqual(
        (await h.store.active()).map((j) => j.id),
        [running.id],
      );
      assert.deepEqual(
        (await h.store.recent(10)).map((j) => [j.id, j.state]),
        [
          [ended.id, 'completed'],
          [running.id, 'scraping'],
        ],
      );
      assert.deepEqual(
        (await h.store.recent(1)).map((j) => j.id),
        [ended.id],
      );
      await tick();
      const agents = [await h.store.create(newJob({ kind: 'agent' }))];
      await tick();
      agents.unshift(await h.store.create(newJob({ kind: 'agent' })));
      assert.deepEqual(
        (await h.store.recent(10, { kind: 'agent' })).map((j) => j.id),
        agents.map((j) => j.id),
        'one kind, newest first',
      );
      assert.deepEqual(
        (await h.store.recent(10, { kind: 'agent', before: agents[0]!.createdAt })).map((j) => j.id),
        [agents[1]!.id],
        'created before a time',
      );
      assert.deepEqual(
        (await h.store.recent(10, { before: agents[1]!.createdAt })).map((j) => j.id),
        [ended.id, running.id],
      );
      await new Promise((resolve) => setTimeout(resolve, 120));
      assert.ok((await h.store.purgeExpired(Date.now())) >= 1);
      assert.equal(await h.store.get(ended.id), null);
      assert.equal((await h.store.get(running.id))?.state, 'scraping', 'a running job is never purged');
      assert.deepEqual((await h.store.documents(ended.id, 0, 10, 1e9)).documents, []);
      assert.deepEqual(
        (await h.store.recent(10)).map((j) => j.id),
        [...agents.map((j) => j.id), running.id],
      );
    });

    test("every job keeps its owner; active and recent list one owner's jobs when asked", async (t) => {
      const h = await make(60_000);
      t.after(() => h.close());
      const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 3));
      const a1 = await h.store.create(newJob({ owner: 'team-a' }));
      await tick();
      const b1 = await h.store.create(newJob({ owner: 'team-b' }));
      await tick();
      const a2 = await h.store.create(newJob({ owner: 'team-a', kind: 'agent' }));
      await tick();
      const b2 = await h.store.create(newJob({ owner: 'team-b', kind: 'agent' }));
      await tick();
      await h.store.create(newJob({ owner: 'team-a', listed: false }));
      await h.store.finish(a1.id, 'completed');
      assert.equal(a1.owner, 'team-a');
      assert.equal((await h.store.get(b1.id))?.owner, 'team-b');
      const ids = (jobs: { id: string }[]): string[] => jobs.map((j) => j.id);
      assert.deepEqual(ids(await h.store.active({ owner: 'team-a' })), [a2.id], 'running, listed, its own');
      assert.deepEqual(ids(await h.store.active({ owner: 'team-b' })), [b1.id, b2.id]);
      assert.deepEqual(ids(await h.store.active()), [b1.id, a2.id, b2.id], "every owner's");
      assert.deepEqual(ids(await h.store.recent(10, { owner: 'team-a' })), [a2.id, a1.id]);
      assert.deepEqual(ids(await h.store.recent(1, { owner: 'team-b' })), [b2.id]);
      assert.deepEqual(ids(await h.store.recent(10, { owner: 'team-b', kind: 'agent' })), [b2.id]);
      assert.deepEqual(ids(await h.store.recent(10, { owner: 'team-a', before: a2.createdAt })), [a1.id]);
      assert.deepEqual(ids(await h.store.recent(10, { owner: 'nobody' })), []);
      assert.deepEqual(ids(await h.store.recent(10)), [b2.id, a2.id, b1.id, a1.id]);
      if (!h.reopen) return;
      const store = await h.reopen();
      assert.equal((await store.get(a2.id))?.owner, 'team-a', 'kept across a restart');
      assert.deepEqual(ids(await store.recent(10, { owner: 'team-b' })), [b2.id, b1.id]);
    });

    test("jobs stored without an owner are default's (an agent run its request's caller's), listed under it", async (t) => {
      const h = await make(60_000);
      t.after(() => h.close());
      if (!h.legacy) return t.skip('in-memory adapter: nothing was stored by an older version');
      const at = Date.now() - 10_000;
      const crawl = {
        id: randomUUID(),
        kind: 'crawl' as const,
        request: { url: 'https://a.test/' },
        createdAt: at,
      };
      const run = { id: randomUUID(), kind: 'agent' as const, request: { owner: 'team-a', prompt: 'p' } };
      const bare = { id: randomUUID(), kind: 'agent' as const, request: { prompt: 'q' }, createdAt: at + 2 };
      const store = await h.legacy([crawl, { ...run, createdAt: at + 1 }, bare]);
      assert.equal((await store.get(crawl.id))?.owner, 'default');
      assert.equal((await store.get(run.id))?.owner, 'team-a');
      assert.equal((await store.get(bare.id))?.owner, 'default');
      const ids = (jobs: { id: string }[]): string[] => jobs.map((j) => j.id);
      assert.deepEqual(ids(await store.recent(10, { owner: 'default' })), [bare.id, crawl.id]);
      assert.deepEqual(ids(await store.recent(10, { owner: 'team-a', kind: 'agent' })), [run.id]);
      assert.deepEqual(ids(await store.active({ owner: 'team-a' })), [run.id]);
      const later = await store.create(newJob({ owner: 'team-a' }));
      assert.deepEqual(
        ids(await store.recent(10, { owner: 'team-a' })),
        [later.id, run.id],
        'listed once each',
      );
    });

    test('after a crash, listed running jobs are claimed (interruption counted) and documents survive', async (t) => {
      const h = await make(60_000);
      t.after(() => h.close());
      if (!h.reopen) return t.skip('in-memory adapter: nothing survives a restart by design');
      const job = await h.store.create(newJob());
      await h.store.addDocument(job.id, 'https://a.test/1', '{"n":1}');
      const suspended = await h.store.create(newJob());
      await h.store.suspend(suspended.id);
      const attached = await h.store.create(newJob({ listed: false }));
      const store = await h.reopen();
      const claimed = await store.claimInterrupted();
      assert.deepEqual(claimed.map((j) => j.id).sort(), [job.id, suspended.id].sort());
      assert.equal(claimed.find((j) => j.id === job.id)?.interruptions, 1);
      assert.equal(
        claimed.find((j) => j.id === suspended.id)?.interruptions,
        0,
        'a clean stop is no interruption',
      );
      assert.equal((await store.get(attached.id))?.state, 'cancelled');
      assert.deepEqual((await store.documents(job.id, 0, 10, 1e9)).documents, ['{"n":1}']);
    });
  });
}

/** The Frontier lifecycle contract (crawl/frontier.ts), run against every adapter. */
export function frontierContract(name: string, make: () => Promise<FrontierHarness>): void {
  describe(`Frontier contract: ${name}`, () => {
    test('dedups by normalized URL, breadth-first order, finished only when nothing is queued or in flight', async (t) => {
      const h = await make();
      t.after(() => h.close());
      const f = h.frontier;
      const added = await f.add([
        { url: 'https://a.test/a?utm_source=x', depth: 0, pagination: false },
        { url: 'https://A.test/a', depth: 0, pagination: false },
        { url: 'https://a.test/b#frag', depth: 1, pagination: false },
        { url: 'mailto:x@a.test', depth: 1, pagination: false },
      ]);
      assert.equal(added, 2);
      assert.deepEqual(await f.stats(), { queued: 2, delayed: 0, inFlight: 0, discovered: 2 });
      const a = await f.next();
      assert.equal(a?.url, 'https://a.test/a');
      const b = await f.next();
      assert.equal(b?.url, 'https://a.test/b');
      assert.equal(b?.depth, 1);
      assert.equal(await f.next(), undefined);
      assert.equal(isFinished(await f.stats()), false, 'items in flight');
      assert.equal(
        await f.add([{ url: 'https://a.test/a', depth: 2, pagination: false }]),
        0,
        'done or in flight is seen',
      );
      await f.complete(a!);
      await f.complete(b!);
      assert.equal(isFinished(await f.stats()), true);
      assert.equal(
        await f.add([{ url: 'https://a.test/b', depth: 2, pagination: false }]),
        0,
        'completed is seen',
      );
    });

    test('next(done) completes the item done and takes the next one', async (t) => {
      const h = await make();
      t.after(() => h.close());
      const f = h.frontier;
      await f.add([
        { url: 'https://a.test/1', depth: 0, pagination: false },
        { url: 'https://a.test/2', depth: 0, pagination: false },
      ]);
      const one = await f.next();
      const two = await f.next(one);
      assert.equal(two?.url, 'https://a.test/2');
      assert.deepEqual(await f.stats(), { queued: 0, delayed: 0, inFlight: 1, discovered: 2 });
      assert.equal(await f.next(two), undefined, 'nothing left to take');
      assert.equal(isFinished(await f.stats()), true, 'the last item is completed all the same');
    });

    test('in-flight items are requeued, never lost (after a crash for durable adapters)', async (t) => {
      const h = await make();
      t.after(() => h.close());
      await h.frontier.add([
        { url: 'https://a.test/1', depth: 0, pagination: false },
        { url: 'https://a.test/2', depth: 1, pagination: true },
      ]);
      const one = await h.frontier.next();
      await h.frontier.complete(one!);
      await h.frontier.next(); // in flight when the process dies
      const f = h.reopen ? await h.reopen() : h.frontier;
      assert.equal(await f.requeueInFlight(), 1);
      const again = await f.next();
      const { retry: _retry, ...item } = again!; // shared adapters also mark it as a retry
      assert.deepEqual(item, { url: 'https://a.test/2', depth: 1, pagination: true });
      await f.complete(again!);
      assert.equal(isFinished(await f.stats()), true);
      assert.equal((await f.stats()).discovered, 2);
    });

    test('retryLater puts an item back with one more attempt, due after its delay, ahead of later items, kept across a crash', async (t) => {
      const h = await make();
      t.after(() => h.close());
      let f = h.frontier;
      await f.add([
        { url: 'https://a.test/1', depth: 0, pagination: false },
        { url: 'https://a.test/2', depth: 0, pagination: false },
        { url: 'https://a.test/3', depth: 1, pagination: false },
      ]);
      const one = await f.next();
      assert.equal(one?.url, 'https://a.test/1');
      await f.retryLater(one!, 300);
      assert.deepEqual(await f.stats(), { queued: 3, delayed: 1, inFlight: 0, discovered: 3 });
      await f.retryLater(one!, 0); // no longer in flight: nothing happens
      assert.equal((await f.stats()).delayed, 1);
      const two = await f.next();
      assert.equal(two?.url, 'https://a.test/2', 'the retry is not due yet');
      await f.complete(two!);
      if (h.reopen) {
        f = await h.reopen();
        assert.equal(await f.requeueInFlight(), 0, 'a waiting retry is not in flight');
        assert.equal((await f.stats()).delayed, 1, 'the retry survives the crash');
      }
      await sleep(400);
      const again = await f.next();
      const { retry: _retry, ...item } = again!;
      assert.deepEqual(item, { url: 'https://a.test/1', depth: 0, pagination: false, attempts: 1 });
      assert.equal(isFinished(await f.stats()), false);
      await f.retryLater(again!, 0);
      const third = await waitForNext(f);
      assert.equal(third.url, 'https://a.test/1');
      assert.equal(third.attempts, 2);
      await f.complete(third);
      const last = await f.next();
      assert.equal(last?.url, 'https://a.test/3');
      await f.complete(last!);
      assert.equal(isFinished(await f.stats()), true);
    });
  });
}

/** The frontier's next item, asked again until a retry put back with no delay is due (clocks tick in ms). */
async function waitForNext(f: Frontier): Promise<FrontierItem> {
  for (;;) {
    const item = await f.next();
    if (item) return item;
    await sleep(5);
  }
}

export interface PageStoreHarness {
  pages: PageStore;
  /** The process restarts: a durable adapter finds what it stored. */
  reopen?: () => Promise<PageStore>;
  close(): Promise<void>;
}

/** The PageStore contract (cache and change tracking), run against every adapter. */
export function pageStoreContract(name: string, make: () => Promise<PageStoreHarness>): void {
  describe(`PageStore contract: ${name}`, () => {
    test('put replaces, get answers the newest, purge drops what is older', async (t) => {
      const h = await make();
      t.after(() => h.close());
      assert.equal(await h.pages.get('k'), null);
      await h.pages.put('k', 'one', 1000);
      await h.pages.put('k', 'two', 2000);
      await h.pages.put('old', 'x', 500);
      const pages = h.reopen ? await h.reopen() : h.pages;
      assert.deepEqual(await pages.get('k'), { body: 'two', at: 2000 });
      await pages.purge(1000);
      assert.deepEqual(await pages.get('k'), { body: 'two', at: 2000 });
      // Redis lets entries expire on its own clock instead of purging by time.
      if (name !== 'redis') assert.equal(await pages.get('old'), null);
    });
  });
}
