import { randomUUID } from 'node:crypto';
import type { Fleet } from './fleet-port.js';

/** How often a crawl share in a fleet publishes its hosts' warning. */
const REFRESH_MS = 1000;

/**
 * Publishes a crawl share's warning (hosts holding it back or paused) to the fleet every REFRESH_MS, with an
 * expiry of three refreshes: the API process answering the job's status is another process, and a warning
 * no share renews is gone seconds after. Answers the function that stops it.
 */
export function publishWarnings(fleet: Fleet, jobId: string, warning: () => string | null): () => void {
  // Each share under its own name: the job's status shows every share's hosts, not the last one's.
  const share = randomUUID();
  const timer = setInterval(() => {
    const text = warning();
    if (text !== null) fleet.setCrawlWarning(jobId, share, text, 3 * REFRESH_MS).catch(() => {});
  }, REFRESH_MS);
  timer.unref();
  return () => clearInterval(timer);
}
