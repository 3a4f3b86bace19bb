import type { Metrics } from '../lib/metrics.js';
import { createHmac, randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import type { Logger } from '../lib/logger.js';
import { sleep } from '../lib/sleep.js';
import { BadRequestError } from '../errors.js';
import { assertTargetAllowed, guardedLookup, isBlockedAddress } from '../lib/ssrf-guard.js';
import type { GuardOptions } from '../lib/ssrf-guard.js';
import type { ProxyRoute } from '../lib/proxy-route.js';

/** A caller's webhook, normalized. */
export interface WebhookTarget {
  url: string;
  headers: Record<string, string>;
  metadata: Record<string, unknown>;
  /** Events wanted: started, page, completed, failed. */
  events: string[];
}

export interface WebhookOptions extends GuardOptions {
  /** Signs every body when set (HMAC-SHA256 in `signatureHeader`). */
  secret: string | null;
  /** The header that carries the signature, `sha256=<hex>`. */
  signatureHeader: string;
  log: Logger;
  /** Waits before the 2nd, 3rd... attempts, ms (then the delivery is dropped with a log line). */
  retryDelaysMs?: number[];
  attemptTimeoutMs?: number;
  /** Deliveries made and dropped. */
  metrics?: Metrics;
  /** PROXY_ALL's route (which checks the resolved addresses before a proxy gets the URL); null: directly. */
  via?: ProxyRoute | null;
}

/** `page` deliveries waiting per job at most; `started`, `completed` and `failed` are never dropped. */
const MAX_PENDING_PAGES_PER_JOB = 1000;

/**
 * Delivers webhook events: POST JSON, signed with HMAC-SHA256 of the raw body (`<signatureHeader>:
 * sha256=<hex>`), through the SSRF guard like any target. A delivery that does not get
 * a 2xx within 10 s is retried after 1, 4 and 15 s, then dropped with a log line. Deliveries of one job go out
 * in order, one at a time; a job's queue of `page` events is bounded (the excess is dropped and logged).
 */
export class WebhookSender {
  private readonly agent: Agent;
  private readonly queues = new Map<string, Promise<void>>();
  private readonly pending = new Map<string, number>();
  private readonly stop = new AbortController();

  constructor(private readonly options: WebhookOptions) {
    this.agent = new Agent({ connect: { lookup: guardedLookup(options) }, keepAliveTimeout: 10_000 });
  }

  /**
   * Refuses a webhook URL the SSRF guard would refuse at delivery (a private address, a name that resolves
   * only to private addresses), so the caller hears it at once instead of never receiving anything.
   */
  async check(target: WebhookTarget): Promise<void> {
    const url = new URL(target.url);
    try {
      assertTargetAllowed(url, this.options);
    } catch (err) {
      throw new BadRequestError(`webhook.url: ${(err as Error).message}`);
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (this.options.allowPrivateNetworks || isIP(host)) return;
    const addresses = await this.options.resolver(host).catch(() => []);
    const blocked = this.options.isBlocked ?? isBlockedAddress;
    if (addresses.length === 0) throw new BadRequestError(`webhook.url: ${host} could not be resolved`);
    if (addresses.every((a) => blocked(a.address))) {
      throw new BadRequestError(`webhook.url: ${host} resolves to a private or reserved address`);
    }
  }

  /** Queues one event for `jobId`'s webhook; never throws (a webhook never fails a job). */
  send(jobId: string, target: WebhookTarget, event: string, body: Record<string, unknown>): void {
    const short = event.slice(event.indexOf('.') + 1);
    if (!target.events.includes(short)) return;
    const pending = this.pending.get(jobId) ?? 0;
    if (short === 'page' && pending >= MAX_PENDING_PAGES_PER_JOB) {
      this.options.log.warn({ jobId, event }, 'webhook delivery dropped: too many pending for this job');
      return;
    }
    this.pending.set(jobId, pending + 1);
    const previous = this.queues.get(jobId) ?? Promise.resolve();
    const next = previous
      .then(() => this.deliver(jobId, target, event, body))
      .finally(() => {
        const left = (this.pending.get(jobId) ?? 1) - 1;
        if (left <= 0) {
          this.pending.delete(jobId);
          if (this.queues.get(jobId) === next) this.queues.delete(jobId);
        } else this.pending.set(jobId, left);
      });
    this.queues.set(jobId, next);
  }

  private async deliver(
    jobId: string,
    target: WebhookTarget,
    event: string,
    body: Record<string, unknown>,
  ): Promise<void> {
    const raw = JSON.stringify({ ...body, webhookId: randomUUID() }); // one id per delivery
    const headers: Record<string, string> = { ...target.headers, 'content-type': 'application/json' };
    if (this.options.secret) {
      const hex = createHmac('sha256', this.options.secret).update(raw).digest('hex');
      headers[this.options.signatureHeader] = `sha256=${hex}`;
    }
    const delays = [0, ...(this.options.retryDelaysMs ?? [1000, 4000, 15000])];
    let reason = '';
    for (const [attempt, delay] of delays.entries()) {
      if (delay > 0) await sleep(delay, this.stop.signal);
      if (this.stop.signal.aborted) break;
      try {
        const url = new URL(target.url);
        assertTargetAllowed(url, this.options);
        const signal = AbortSignal.any([
          AbortSignal.timeout(this.options.attemptTimeoutMs ?? 10_000),
          this.stop.signal,
        ]);
        const { via } = this.options;
        const res = via
          ? await via.request(url, { method: 'POST', headers, body: raw, signal, session: jobId })
          : await request(url, { method: 'POST', headers, body: raw, dispatcher: this.agent, signal });
        await res.body.dump();
        if (res.statusCode >= 200 && res.statusCode < 300) {
          this.options.metrics?.webhook('delivered');
          return;
        }
        reason = `HTTP ${res.statusCode}`;
      } catch (err) {
        reason = err instanceof Error ? err.message : String(err);
      }
      this.options.log.debug({ jobId, event, attempt: attempt + 1, reason }, 'webhook attempt failed');
    }
    this.options.metrics?.webhook('failed');
    this.options.log.warn({ jobId, event, reason }, 'webhook delivery dropped after retries');
  }

  /** Waits for pending deliveries for at most `ms`, then stops retrying and closes connections. */
  async close(ms = 2000): Promise<void> {
    const all = Promise.allSettled([...this.queues.values()]);
    await Promise.race([all, new Promise((resolve) => setTimeout(resolve, ms).unref())]);
    this.stop.abort();
    await this.agent.close().catch(() => undefined);
  }
}
