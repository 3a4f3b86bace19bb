import type { WebSocket } from '@fastify/websocket';
import { toAppError } from '../../errors.js';
import { sleep } from '../../lib/sleep.js';
import type { Api, Origin } from '../jobs.js';
import { jobStatus } from '../jobs.js';
import type { FirecrawlDeps } from '../deps.js';
import type { Caller } from '../../tenants/tenant.js';

/** How often a watched job's store is read for new documents and its end. */
const WATCH_INTERVAL_MS = 250;
const FINAL = new Set(['completed', 'failed', 'cancelled']);

/** A close reason is at most 123 bytes: the JSON message v1's watcher reads from it. */
function closeReason(message: object): string {
  let text = JSON.stringify(message);
  while (Buffer.byteLength(text) > 123 && 'error' in message) {
    const error = String((message as { error: string }).error);
    message = { ...message, error: error.slice(0, Math.max(0, error.length - 10)) };
    text = JSON.stringify(message);
  }
  return text;
}

/**
 * Firecrawl's WebSocket watcher of a crawl or batch job (v1 `crawlUrlAndWatch`, v2 `Watcher`): a `catchup` with
 * the status and the documents so far, a `document` message for each new one, and at the end `done` (v2: a
 * message with the counts; v1: the close reason) or `error`. A cancelled v2 job ends with its status snapshot.
 * Reads the job store, so it works whichever process or machine runs the job. Another tenant's job ends the
 * watch at once with the same `error` as a job that does not exist.
 */
export async function watchJob(
  socket: WebSocket,
  fc: FirecrawlDeps,
  job: { id: string; kinds: ('crawl' | 'batch_scrape')[]; api: Api; origin: Origin; caller: Caller },
): Promise<void> {
  const { id, kinds, api, origin, caller } = job;
  let open = true;
  socket.on('close', () => (open = false));
  socket.on('error', () => (open = false));
  const send = (message: object): void => {
    if (open) socket.send(JSON.stringify(message));
  };
  const end = (message: { type: 'done' | 'error'; error?: string }, data?: object): void => {
    if (!open) return;
    if (api === 'v1') return socket.close(1000, closeReason(message));
    send(data ? { ...message, data } : message);
    socket.close(1000);
  };
  try {
    const first = await jobStatus(fc, id, kinds, api, {}, origin, caller);
    send({ type: 'catchup', data: first });
    let sent = first.data.length;
    let status = first;
    // v2's watcher ends on a catchup that is already final; v1's waits for the close.
    if (api === 'v2' && FINAL.has(first.status) && first.next === undefined) return void socket.close(1000);
    for (;;) {
      if (!open) return;
      const more = await jobStatus(fc, id, kinds, api, { skip: String(sent) }, origin, caller);
      for (const doc of more.data) send({ type: 'document', data: doc });
      sent += more.data.length;
      status = more;
      if (FINAL.has(status.status) && status.next === undefined) break;
      if (more.data.length === 0) await sleep(WATCH_INTERVAL_MS);
    }
    const counts = { total: status.total, completed: status.completed, creditsUsed: status.creditsUsed };
    if (status.status === 'failed') return end({ type: 'error', error: status.error ?? 'Job failed' });
    if (status.status === 'cancelled') {
      if (api === 'v1') return end({ type: 'error', error: 'Job was cancelled' });
      send({ type: 'status', data: { ...counts, status: 'cancelled', data: [] } });
      return void socket.close(1000);
    }
    end({ type: 'done' }, { status: 'completed', data: [], ...counts });
  } catch (err) {
    end({ type: 'error', error: toAppError(err).message });
  }
}
