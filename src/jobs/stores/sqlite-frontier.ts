import type { Frontier, FrontierItem, FrontierStats } from '../../crawl/frontier.js';
import { normalizeUrl } from '../../crawl/normalize.js';
import type { SqliteDb } from './sqlite.js';
import { prepare, storeError } from './sqlite.js';

const QUEUED = 0;
const IN_FLIGHT = 1;
/** Put back for a retry, due at `due` (ms): queued again once its time has come. */
const DELAYED = 3;

/**
 * A job's frontier as rows of the `frontier` table (the queue and the seen set are one table: a row per
 * URL ever accepted, with its state: 0 queued, 1 in flight, 2 done, 3 waiting for a retry). Written as URLs
 * are found, so a crash loses none. Counters, and the time the next retry is due, are kept in memory after
 * one count at open: a job is worked by one process at a time in the embedded engine. A retry keeps its
 * row's `seq`, so once due it comes before every URL accepted after it.
 */
export class SqliteFrontier implements Frontier {
  private readonly q;
  private counts: FrontierStats;
  private seq: number;
  /** When the earliest retry is due (Infinity when none waits). */
  private nextDue = Number.POSITIVE_INFINITY;

  constructor(
    private readonly sql: SqliteDb,
    private readonly jobId: string,
  ) {
    const p = (source: string) => prepare(sql, source);
    this.q = {
      add: p(
        'INSERT OR IGNORE INTO frontier (job_id, key, seq, depth, pagination, state) VALUES (?, ?, ?, ?, ?, 0)',
      ),
      head: p(
        'SELECT key, depth, pagination, attempts FROM frontier WHERE job_id = ? AND state = 0 ORDER BY seq LIMIT 1',
      ),
      take: p('UPDATE frontier SET state = 1 WHERE job_id = ? AND key = ?'),
      done: p('UPDATE frontier SET state = 2 WHERE job_id = ? AND key = ? AND state = 1'),
      later: p(
        'UPDATE frontier SET state = 3, attempts = attempts + 1, due = ? WHERE job_id = ? AND key = ? AND state = 1',
      ),
      promote: p('UPDATE frontier SET state = 0 WHERE job_id = ? AND state = 3 AND due <= ?'),
      nextDue: p('SELECT min(due) FROM frontier WHERE job_id = ? AND state = 3'),
      requeue: p('UPDATE frontier SET state = 0 WHERE job_id = ? AND state = 1'),
      counts: p('SELECT state, count(*), max(seq) FROM frontier WHERE job_id = ? GROUP BY state'),
    };
    try {
      this.counts = { queued: 0, delayed: 0, inFlight: 0, discovered: 0 };
      this.seq = 0;
      for (const [state, count, maxSeq] of sql.read(() => this.q.counts.all(jobId)) as [
        number,
        number,
        number,
      ][]) {
        if (state === QUEUED || state === DELAYED) this.counts.queued += Number(count);
        if (state === DELAYED) this.counts.delayed = Number(count);
        if (state === IN_FLIGHT) this.counts.inFlight = Number(count);
        this.counts.discovered += Number(count);
        this.seq = Math.max(this.seq, Number(maxSeq) + 1);
      }
      if (this.counts.delayed > 0) this.readNextDue();
    } catch (err) {
      throw storeError(err);
    }
  }

  /**
   * Frontier writes do not wait for their commit: transactions commit in order, so a URL marked done is never
   * durable before the links its page added, and a URL taken (in flight) that is lost in a crash is simply
   * still queued. Waiting for each commit cost the crawl a turn of the event loop per call.
   */
  private run<T>(fn: () => T): Promise<T> {
    try {
      return Promise.resolve(this.sql.apply(fn));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  add(items: readonly FrontierItem[]): Promise<number> {
    return this.run(() => {
      let accepted = 0;
      for (const item of items) {
        const key = normalizeUrl(item.url);
        if (key === null) continue;
        if (this.q.add.run(this.jobId, key, this.seq, item.depth, item.pagination ? 1 : 0).changes === 1) {
          this.seq++;
          accepted++;
        }
      }
      this.counts.queued += accepted;
      this.counts.discovered += accepted;
      return accepted;
    });
  }

  private readNextDue(): void {
    const [due] = this.sql.read(() => this.q.nextDue.get(this.jobId)) as [number | null];
    this.nextDue = due === null ? Number.POSITIVE_INFINITY : Number(due);
  }

  async next(done?: FrontierItem): Promise<FrontierItem | undefined> {
    if (done) await this.complete(done);
    if (this.counts.queued <= 0) return undefined; // the counts are this process's own
    return this.run(() => {
      const now = Date.now();
      if (now >= this.nextDue) {
        this.counts.delayed -= this.q.promote.run(this.jobId, now).changes;
        this.readNextDue();
      }
      const row = this.q.head.get(this.jobId) as [string, number, number, number] | undefined;
      if (!row) return undefined;
      const [url, depth, pagination, attempts] = row;
      this.q.take.run(this.jobId, url);
      this.counts.queued--;
      this.counts.inFlight++;
      const item: FrontierItem = { url, depth: Number(depth), pagination: pagination === 1 };
      if (Number(attempts) > 0) item.attempts = Number(attempts);
      return item;
    });
  }

  complete(item: FrontierItem): Promise<void> {
    return this.run(() => {
      if (this.q.done.run(this.jobId, item.url).changes === 1) this.counts.inFlight--;
    });
  }

  retryLater(item: FrontierItem, delayMs: number): Promise<void> {
    return this.run(() => {
      const due = Date.now() + Math.max(0, delayMs);
      if (this.q.later.run(due, this.jobId, item.url).changes !== 1) return;
      this.counts.inFlight--;
      this.counts.queued++;
      this.counts.delayed++;
      this.nextDue = Math.min(this.nextDue, due);
    });
  }

  stats(): Promise<FrontierStats> {
    return Promise.resolve({ ...this.counts });
  }

  requeueInFlight(): Promise<number> {
    return this.run(() => {
      const moved = this.q.requeue.run(this.jobId).changes;
      this.counts.inFlight -= moved;
      this.counts.queued += moved;
      return moved;
    });
  }
}
