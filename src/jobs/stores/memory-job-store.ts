import { randomUUID } from 'node:crypto';
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

interface Entry {
  job: JobRecord;
  documents: string[];
  urls: Set<string>;
  errors: Map<string, JobError>;
  blocked: Set<string>;
}

/**
 * A JobStore in this process's memory: for jobs a caller is attached to (the native API's synchronous crawl and
 * stream, whose documents go only to that caller). Same contract as the durable adapters, minus surviving a restart.
 */
export class MemoryJobStore implements JobStore {
  private readonly jobs = new Map<string, Entry>();

  constructor(private readonly ttlMs: number) {}

  private entry(id: string): Entry | undefined {
    return this.jobs.get(id);
  }

  create(job: NewJob): Promise<JobRecord> {
    const now = Date.now();
    const record: JobRecord = {
      ...job,
      state: 'scraping',
      completed: 0,
      error: null,
      result: null,
      createdAt: now,
      updatedAt: now,
      expiresAt: now + this.ttlMs,
      interruptions: 0,
    };
    this.jobs.set(job.id, {
      job: record,
      documents: [],
      urls: new Set(),
      errors: new Map(),
      blocked: new Set(),
    });
    return Promise.resolve({ ...record });
  }

  get(id: string): Promise<JobRecord | null> {
    const e = this.entry(id);
    return Promise.resolve(e ? { ...e.job } : null);
  }

  active(filter: OwnerFilter = {}): Promise<JobRecord[]> {
    return Promise.resolve(
      [...this.jobs.values()]
        .filter(
          (e) =>
            e.job.listed &&
            e.job.state === 'scraping' &&
            (filter.owner === undefined || e.job.owner === filter.owner),
        )
        .map((e) => ({ ...e.job })),
    );
  }

  recent(limit: number, filter: RecentFilter = {}): Promise<JobRecord[]> {
    return Promise.resolve(
      [...this.jobs.values()]
        .filter(
          (e) =>
            e.job.listed &&
            (filter.owner === undefined || e.job.owner === filter.owner) &&
            (filter.kind === undefined || e.job.kind === filter.kind) &&
            (filter.before === undefined || e.job.createdAt < filter.before),
        )
        .map((e) => ({ ...e.job }))
        .sort((a, b) => b.createdAt - a.createdAt)
        .slice(0, limit),
    );
  }

  setTotal(id: string, total: number): Promise<void> {
    const e = this.entry(id);
    if (e) e.job.total = Math.max(total, e.job.completed);
    return Promise.resolve();
  }

  addDocument(id: string, url: string, body: string): Promise<boolean> {
    const e = this.entry(id);
    if (!e || e.urls.has(url)) return Promise.resolve(false);
    e.urls.add(url);
    e.documents.push(body);
    e.job.completed++;
    e.job.total = Math.max(e.job.total, e.job.completed);
    e.job.updatedAt = Date.now();
    return Promise.resolve(true);
  }

  hasDocument(id: string, url: string): Promise<boolean> {
    return Promise.resolve(this.entry(id)?.urls.has(url) ?? false);
  }

  documents(id: string, skip: number, limit: number, maxBytes: number): Promise<DocumentPage> {
    const all = this.entry(id)?.documents ?? [];
    const documents: string[] = [];
    let bytes = 0;
    for (let i = skip; i < all.length && documents.length < limit; i++) {
      const size = Buffer.byteLength(all[i]!);
      if (documents.length > 0 && bytes + size > maxBytes) break;
      bytes += size;
      documents.push(all[i]!);
    }
    const nextSkip = skip + documents.length;
    return Promise.resolve({ documents, nextSkip, more: nextSkip < all.length });
  }

  addError(id: string, url: string, code: string, error: string, attempts: number): Promise<void> {
    this.entry(id)?.errors.set(url, { id: randomUUID(), url, code, error, at: Date.now(), attempts });
    return Promise.resolve();
  }

  errors(id: string): Promise<JobError[]> {
    return Promise.resolve([...(this.entry(id)?.errors.values() ?? [])]);
  }

  addRobotsBlocked(id: string, url: string): Promise<void> {
    this.entry(id)?.blocked.add(url);
    return Promise.resolve();
  }

  robotsBlocked(id: string): Promise<string[]> {
    return Promise.resolve([...(this.entry(id)?.blocked ?? [])].sort());
  }

  finish(id: string, state: JobState, outcome: { error?: string; result?: unknown } = {}): Promise<boolean> {
    const e = this.entry(id);
    if (!e || e.job.state !== 'scraping') return Promise.resolve(false);
    const now = Date.now();
    Object.assign(e.job, {
      state,
      error: outcome.error ?? null,
      result: outcome.result ?? null,
      updatedAt: now,
      expiresAt: now + this.ttlMs,
    });
    // Attached jobs are read by their caller as they run; nothing needs them afterwards.
    if (!e.job.listed) this.jobs.delete(id);
    return Promise.resolve(true);
  }

  suspend(_id: string): Promise<void> {
    return Promise.resolve();
  }

  claimInterrupted(): Promise<JobRecord[]> {
    return Promise.resolve([]); // nothing here outlives the process
  }

  purgeExpired(now: number): Promise<number> {
    let purged = 0;
    for (const [id, e] of this.jobs) {
      if (e.job.expiresAt < now && e.job.state !== 'scraping') {
        this.jobs.delete(id);
        purged++;
      }
    }
    return Promise.resolve(purged);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
