import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { DEFAULT_TENANT } from '../../tenants/tenant.js';
import { JOB_KINDS } from './job-store.js';
import type {
  DocumentPage,
  JobError,
  JobRecord,
  JobState,
  JobStore,
  NewJob,
  OwnerFilter,
  RecentFilter,
} from './job-store.js';
import { storeCall } from './sqlite.js';

/** The key of a job's hash, before its id (RedisJobPlaces reads its `state`). */
export const JOB_KEY_PREFIX = 'pw:job:';

/**
 * Keys of one job (prefix `pw:`): the job hash, its documents (a list, in production order, with a set of
 * their URLs for dedup), errors (a hash by URL) and robots-blocked URLs (a set). Sets of running jobs index
 * them. When a job ends, every key of it gets the job's expiry, so Redis itself drops what it stored.
 */
const k = {
  job: (id: string) => `${JOB_KEY_PREFIX}${id}`,
  docs: (id: string) => `pw:job:${id}:docs`,
  docUrls: (id: string) => `pw:job:${id}:docurls`,
  errors: (id: string) => `pw:job:${id}:errors`,
  blocked: (id: string) => `pw:job:${id}:blocked`,
  frontier: (id: string) => `pw:job:${id}:frontier`,
  running: 'pw:jobs:running',
  active: 'pw:jobs:active',
  ended: 'pw:jobs:ended',
  /** Listed jobs by creation time, for the jobs view; an id whose job expired is dropped when met. */
  listed: 'pw:jobs:listed',
  /** The same, for one kind of job (the agent list and its threads). */
  listedOfKind: (kind: string) => `pw:jobs:listed:${kind}`,
  /** The same, for one owner: what a tenant's lists read. */
  listedBy: (owner: string) => `pw:jobs:owner:${owner}:listed`,
  listedByOfKind: (owner: string, kind: string) => `pw:jobs:owner:${owner}:listed:${kind}`,
  /** The owner of each listed job, so that a purge finds its owner's lists once the job's hash expired. */
  ownerOf: 'pw:jobs:owner-of',
  /** Set once every listed job stored without its owner's lists holding it has been added there. */
  ownersIndexed: 'pw:jobs:owners-indexed',
};

/** Ids read per step while the lists of jobs stored without an owner are built. */
const CHUNK = 500;

/** The owner of a job stored without one: an agent run kept its caller in its request; others are `default`'s. */
function legacyOwner(kind: string | undefined, request: unknown): string {
  const owner = kind === 'agent' ? (request as { owner?: unknown } | null)?.owner : undefined;
  return typeof owner === 'string' && owner !== '' ? owner : DEFAULT_TENANT;
}

const jobKeys = (id: string): string[] => [
  k.job(id),
  k.docs(id),
  k.docUrls(id),
  k.errors(id),
  k.blocked(id),
  `${k.frontier(id)}:queue`,
  `${k.frontier(id)}:seen`,
  `${k.frontier(id)}:inflight`,
  `${k.frontier(id)}:retries`,
  `${k.frontier(id)}:delayed`,
  `pw:job:${id}:claimed`,
  `pw:job:${id}:warning`,
];

/** Stores a document once per URL and counts it, atomically. KEYS: docUrls, docs, job. ARGV: url, body, now. */
const ADD_DOCUMENT = `
if redis.call('EXISTS', KEYS[3]) == 0 then return 0 end
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[2])
local completed = redis.call('HINCRBY', KEYS[3], 'completed', 1)
if tonumber(redis.call('HGET', KEYS[3], 'total')) < completed then redis.call('HSET', KEYS[3], 'total', completed) end
redis.call('HSET', KEYS[3], 'updatedAt', ARGV[3])
return 1`;

/** Ends a running job once. KEYS: job, running, active, ended. ARGV: id, state, error, result, now, expiresAt. */
const FINISH = `
if redis.call('HGET', KEYS[1], 'state') ~= 'scraping' then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'error', ARGV[3], 'result', ARGV[4], 'updatedAt', ARGV[5], 'expiresAt', ARGV[6])
redis.call('SREM', KEYS[2], ARGV[1])
redis.call('SREM', KEYS[3], ARGV[1])
redis.call('ZADD', KEYS[4], ARGV[6], ARGV[1])
return 1`;

function toJob(h: Record<string, string>): JobRecord {
  const request = JSON.parse(h.request!) as unknown;
  return {
    id: h.id!,
    kind: h.kind as JobRecord['kind'],
    owner: h.owner || legacyOwner(h.kind, request),
    state: h.state as JobState,
    request,
    listed: h.listed === '1',
    total: Number(h.total),
    completed: Number(h.completed),
    error: h.error ? h.error : null,
    result: h.result ? (JSON.parse(h.result) as unknown) : null,
    createdAt: Number(h.createdAt),
    updatedAt: Number(h.updatedAt),
    expiresAt: Number(h.expiresAt),
    interruptions: Number(h.interruptions),
  };
}

/** The JobStore on Redis (REDIS_URL): shared by every API and worker process. */
export class RedisJobStore implements JobStore {
  private ownersIndexed: Promise<void> | null = null;

  constructor(
    private readonly redis: Redis,
    private readonly ttlMs: number,
  ) {
    redis.defineCommand('pwAddDocument', { numberOfKeys: 3, lua: ADD_DOCUMENT });
    redis.defineCommand('pwFinish', { numberOfKeys: 4, lua: FINISH });
  }

  /** Every failure of Redis reaches callers as the store's 503 with the reason. */
  private call<T>(work: () => Promise<T>): Promise<T> {
    return storeCall(work);
  }

  private cmd(name: string, ...args: (string | number)[]): Promise<unknown> {
    return (this.redis as unknown as Record<string, (...a: (string | number)[]) => Promise<unknown>>)[name]!(
      ...args,
    );
  }

  create(job: NewJob): Promise<JobRecord> {
    const now = Date.now();
    const fields = {
      id: job.id,
      kind: job.kind,
      owner: job.owner,
      state: 'scraping',
      request: JSON.stringify(job.request),
      listed: job.listed ? '1' : '0',
      total: String(job.total),
      completed: '0',
      error: '',
      result: '',
      createdAt: String(now),
      updatedAt: String(now),
      expiresAt: String(now + this.ttlMs),
      interruptions: '0',
      suspended: '0',
    };
    return this.call(async () => {
      const multi = this.redis.multi().hset(k.job(job.id), fields).sadd(k.running, job.id);
      if (job.listed) {
        multi.sadd(k.active, job.id).zadd(k.listed, now, job.id).zadd(k.listedOfKind(job.kind), now, job.id);
        multi
          .zadd(k.listedBy(job.owner), now, job.id)
          .zadd(k.listedByOfKind(job.owner, job.kind), now, job.id);
        multi.hset(k.ownerOf, job.id, job.owner);
      }
      await multi.exec();
      return toJob(fields);
    });
  }

  get(id: string): Promise<JobRecord | null> {
    return this.call(async () => {
      const h = await this.redis.hgetall(k.job(id));
      return h.id ? toJob(h) : null;
    });
  }

  active(filter: OwnerFilter = {}): Promise<JobRecord[]> {
    return this.call(async () => {
      const ids = await this.redis.smembers(k.active);
      const jobs = await Promise.all(ids.map((id) => this.get(id)));
      return jobs
        .filter(
          (j): j is JobRecord =>
            j !== null && j.state === 'scraping' && (filter.owner === undefined || j.owner === filter.owner),
        )
        .sort((a, b) => a.createdAt - b.createdAt);
    });
  }

  /** Newest first from the list the filter names; ids of jobs gone (expired) are dropped and the page refilled. */
  recent(limit: number, filter: RecentFilter = {}): Promise<JobRecord[]> {
    return this.call(async () => {
      const { owner, kind } = filter;
      if (owner !== undefined) await this.indexOwners();
      const key =
        owner === undefined
          ? kind === undefined
            ? k.listed
            : k.listedOfKind(kind)
          : kind === undefined
            ? k.listedBy(owner)
            : k.listedByOfKind(owner, kind);
      const max = filter.before === undefined ? '+inf' : `(${filter.before}`;
      for (;;) {
        const ids = await this.redis.zrevrangebyscore(key, max, '-inf', 'LIMIT', 0, limit);
        const jobs = await Promise.all(ids.map((id) => this.get(id)));
        const gone = ids.filter((_, i) => jobs[i] === null);
        if (gone.length === 0) return jobs as JobRecord[];
        await this.redis.zrem(key, ...gone);
      }
    });
  }

  /**
   * Adds every listed job to its owner's lists, once per store: those stored without an owner are missing
   * there (what a fleet stored before owners existed). Safe to run in several processes at once.
   */
  private indexOwners(): Promise<void> {
    this.ownersIndexed ??= (async () => {
      if ((await this.redis.exists(k.ownersIndexed)) === 1) return;
      for (let at = 0; ; at += CHUNK) {
        const listed = await this.redis.zrange(k.listed, at, at + CHUNK - 1, 'WITHSCORES');
        if (listed.length === 0) break;
        const ids = listed.filter((_, i) => i % 2 === 0);
        const jobs = await Promise.all(ids.map((id) => this.get(id)));
        const multi = this.redis.multi();
        for (const [i, job] of jobs.entries()) {
          if (!job) continue;
          const score = listed[2 * i + 1]!;
          multi.zadd(k.listedBy(job.owner), score, job.id);
          multi.zadd(k.listedByOfKind(job.owner, job.kind), score, job.id);
          multi.hset(k.ownerOf, job.id, job.owner);
        }
        await multi.exec();
      }
      await this.redis.set(k.ownersIndexed, '1');
    })();
    this.ownersIndexed.catch(() => (this.ownersIndexed = null));
    return this.ownersIndexed;
  }

  setTotal(id: string, total: number): Promise<void> {
    return this.call(async () => {
      const completed = Number(await this.redis.hget(k.job(id), 'completed'));
      await this.redis.hset(
        k.job(id),
        'total',
        String(Math.max(total, completed)),
        'updatedAt',
        String(Date.now()),
      );
    });
  }

  addDocument(id: string, url: string, body: string): Promise<boolean> {
    return this.call(
      async () =>
        (await this.cmd('pwAddDocument', k.docUrls(id), k.docs(id), k.job(id), url, body, Date.now())) === 1,
    );
  }

  hasDocument(id: string, url: string): Promise<boolean> {
    return this.call(async () => (await this.redis.sismember(k.docUrls(id), url)) === 1);
  }

  documents(id: string, skip: number, limit: number, maxBytes: number): Promise<DocumentPage> {
    return this.call(async () => {
      const documents: string[] = [];
      let bytes = 0;
      const chunk = 100;
      let index = skip;
      for (;;) {
        const want = Math.min(chunk, limit - documents.length);
        if (want <= 0) break;
        const batch = await this.redis.lrange(k.docs(id), index, index + want - 1);
        let full = false;
        for (const body of batch) {
          const size = Buffer.byteLength(body);
          if (documents.length > 0 && bytes + size > maxBytes) {
            full = true;
            break;
          }
          bytes += size;
          documents.push(body);
          index++;
        }
        if (full || batch.length < want) break;
      }
      const more = index < (await this.redis.llen(k.docs(id)));
      return { documents, nextSkip: index, more };
    });
  }

  addError(id: string, url: string, code: string, error: string, attempts: number): Promise<void> {
    const entry = JSON.stringify({ id: randomUUID(), url, code, error, at: Date.now(), attempts });
    return this.call(async () => void (await this.redis.hset(k.errors(id), url, entry)));
  }

  errors(id: string): Promise<JobError[]> {
    return this.call(async () =>
      Object.values(await this.redis.hgetall(k.errors(id)))
        .map((v) => ({ attempts: 1, ...(JSON.parse(v) as Omit<JobError, 'attempts'>) }))
        .sort((a, b) => a.at - b.at || (a.url < b.url ? -1 : 1)),
    );
  }

  addRobotsBlocked(id: string, url: string): Promise<void> {
    return this.call(async () => void (await this.redis.sadd(k.blocked(id), url)));
  }

  robotsBlocked(id: string): Promise<string[]> {
    return this.call(async () => (await this.redis.smembers(k.blocked(id))).sort());
  }

  finish(id: string, state: JobState, outcome: { error?: string; result?: unknown } = {}): Promise<boolean> {
    const now = Date.now();
    const expiresAt = now + this.ttlMs;
    const result = outcome.result === undefined ? '' : JSON.stringify(outcome.result);
    return this.call(async () => {
      const changed =
        (await this.cmd(
          'pwFinish',
          k.job(id),
          k.running,
          k.active,
          k.ended,
          id,
          state,
          outcome.error ?? '',
          result,
          now,
          expiresAt,
        )) === 1;
      // Everything the job stored now expires with it; Redis drops it without a purge pass.
      if (changed) {
        const multi = this.redis.multi();
        for (const key of jobKeys(id)) multi.pexpireat(key, expiresAt);
        await multi.exec();
      }
      return changed;
    });
  }

  suspend(id: string): Promise<void> {
    return this.call(async () => void (await this.redis.hset(k.job(id), 'suspended', '1')));
  }

  claimInterrupted(): Promise<JobRecord[]> {
    return this.call(async () => {
      const claimed: JobRecord[] = [];
      for (const id of await this.redis.smembers(k.running)) {
        const job = await this.get(id);
        if (!job || job.state !== 'scraping') continue;
        if (!job.listed) {
          await this.finish(id, 'cancelled', { error: 'the service stopped while its caller was attached' });
          continue;
        }
        const suspended = (await this.redis.hget(k.job(id), 'suspended')) === '1';
        const interruptions = suspended ? job.interruptions : job.interruptions + 1;
        await this.redis.hset(k.job(id), 'interruptions', String(interruptions), 'suspended', '0');
        claimed.push({ ...job, interruptions });
      }
      return claimed;
    });
  }

  purgeExpired(now: number): Promise<number> {
    return this.call(async () => {
      const ids = await this.redis.zrangebyscore(k.ended, '-inf', now, 'LIMIT', 0, 1000);
      for (const id of ids) {
        const owner = await this.redis.hget(k.ownerOf, id);
        await this.redis.del(...jobKeys(id));
        await this.redis.zrem(k.ended, id);
        await this.redis.zrem(k.listed, id);
        for (const kind of JOB_KINDS) await this.redis.zrem(k.listedOfKind(kind), id);
        if (owner !== null) {
          await this.redis.zrem(k.listedBy(owner), id);
          for (const kind of JOB_KINDS) await this.redis.zrem(k.listedByOfKind(owner, kind), id);
          await this.redis.hdel(k.ownerOf, id);
        }
      }
      return ids.length;
    });
  }

  close(): Promise<void> {
    return this.call(async () => void (await this.redis.quit().catch(() => undefined)));
  }
}
