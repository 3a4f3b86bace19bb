import { NotFoundError, SessionEndedError, TargetUnreachableError } from '../errors.js';
import type { ReopenOptions, ScrapeOrigin } from '../jobs/stores/browser-state/scrape-origin-store.js';
import type { ScrapeOptions } from '../schemas/scrape.js';
import type { SessionRecord } from '../jobs/stores/browser-state/session-store.js';
import type { ExecuteResult } from '../sessions/execute.js';
import type { FirecrawlDeps } from './deps.js';
import type { FcExecuteBody } from './schemas/interact.js';
import { callerFor, canSee, ownerOf } from '../tenants/tenant.js';
import type { Caller } from '../tenants/tenant.js';

/** How long after a scrape an interact can reopen its page. */
const ORIGIN_TTL_MS = 3_600_000;
/** The session an interact opens: Firecrawl's defaults for a browser session. */
const INTERACT_SESSION = { ttl: 600, activityTtl: 300 };
/** Opening the scrape's page in the new session, `waitFor` included. */
const OPEN_TIMEOUT_MS = 30_000;
const MAX_WAIT_FOR_MS = 30_000;

/** An execute's result as Firecrawl's BrowserExecuteResponse. */
export function executeReply(out: ExecuteResult) {
  const { result, ...rest } = out;
  return { success: true as const, ...rest, result: result ?? out.stdout };
}

/** What a browser needs to load the page again: the options that shape its loading, never a cookie. */
function reopenOptionsOf(page: ScrapeOptions): ReopenOptions {
  const headers = Object.fromEntries(
    Object.entries(page.headers ?? {}).filter(([name]) => name.toLowerCase() !== 'cookie'),
  );
  return {
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...(page.mobile ? { mobile: true } : {}),
    ...(page.waitFor ? { waitFor: page.waitFor } : {}),
    ...(page.skipTlsVerification ? { skipTlsVerification: true } : {}),
    ...(page.proxy ? { proxy: page.proxy } : {}),
    ...(page.profile ? { profile: page.profile } : {}),
  };
}

/**
 * Remembers a scrape by its `metadata.scrapeId` for an hour, as the caller's tenant's, so that `interact` can
 * reopen its page. A store that fails costs the interact, not the scrape (logged).
 */
export async function rememberScrape(
  fc: FirecrawlDeps,
  url: string,
  page: ScrapeOptions,
  data: Record<string, unknown>,
  caller: Caller,
): Promise<void> {
  const scrapeId = (data.metadata as { scrapeId?: unknown } | undefined)?.scrapeId;
  if (typeof scrapeId !== 'string') return;
  const now = Date.now();
  const origin: ScrapeOrigin = {
    scrapeId,
    owner: caller.tenant,
    url,
    options: reopenOptionsOf(page),
    createdAt: now,
    keepUntil: now + ORIGIN_TTL_MS,
    sessionId: null,
  };
  await fc.scrapeOrigins.put(origin).catch((err: unknown) => {
    fc.log.warn({ op: 'interact', scrapeId, err }, 'scrape not remembered for interact');
  });
}

/** The scrape `caller` may reopen: its tenant's (an operator's: any); another tenant's is as unknown. */
async function originOf(fc: FirecrawlDeps, scrapeId: string, caller: Caller): Promise<ScrapeOrigin> {
  const origin = await fc.scrapeOrigins.get(scrapeId);
  if (!origin || !canSee(caller, ownerOf(origin))) {
    throw new NotFoundError(
      `Scrape ${scrapeId} not found: interact reopens a scrape of this server from the last hour`,
    );
  }
  return origin;
}

/**
 * A new session on the scrape's page, with its profile, headers, screen and TLS choice. It is the scrape's
 * tenant's (the caller's, unless an operator reopens another tenant's scrape): its profile is that tenant's.
 */
async function openSession(fc: FirecrawlDeps, origin: ScrapeOrigin): Promise<string> {
  const { options } = origin;
  const owner = callerFor(ownerOf(origin));
  const record = await fc.services.sessions.create({
    ...INTERACT_SESSION,
    owner: owner.tenant,
    ...(options.profile ? { profile: options.profile } : {}),
    ...(options.mobile ? { mobile: true } : {}),
    ...(options.skipTlsVerification ? { skipTlsVerification: true } : {}),
  });
  try {
    await fc.services.sessions.withPage(record.id, owner, async (page) => {
      if (options.headers) await page.setExtraHTTPHeaders(options.headers);
      await page.goto(origin.url, { timeout: OPEN_TIMEOUT_MS, waitUntil: 'load' });
      if (options.waitFor) await page.waitForTimeout(Math.min(options.waitFor, MAX_WAIT_FOR_MS));
    });
  } catch (err) {
    await fc.services.sessions.end(record.id, 'error', owner).catch(() => undefined);
    const why = (err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 300);
    throw new TargetUnreachableError(`interact: ${origin.url} could not be opened again: ${why}`, {
      cause: err,
    });
  }
  await fc.scrapeOrigins.put({ ...origin, sessionId: record.id });
  return record.id;
}

/** Opens in flight, by scrape id: two first interacts at once share one session. */
const opening = new Map<string, Promise<string>>();

/** The scrape's session: the one an interact opened before while it lives, else a new one. */
async function sessionOf(fc: FirecrawlDeps, origin: ScrapeOrigin): Promise<string> {
  if (origin.sessionId) {
    const owner = callerFor(ownerOf(origin));
    const record = await fc.services.sessions.get(origin.sessionId, owner).catch(() => null);
    if (record?.status === 'active') return origin.sessionId;
  }
  let open = opening.get(origin.scrapeId);
  if (!open) {
    open = openSession(fc, origin).finally(() => opening.delete(origin.scrapeId));
    opening.set(origin.scrapeId, open);
  }
  return open;
}

/**
 * `POST /v2/browser/{id}/execute`: code or a prompt in the session (an unknown or ended one says so; another
 * tenant's is unknown).
 */
export async function executeInSession(
  fc: FirecrawlDeps,
  id: string,
  body: FcExecuteBody,
  signal: AbortSignal,
  caller: Caller,
) {
  return executeReply(await fc.executor.execute(id, body, signal, caller));
}

/**
 * `POST /v2/scrape/{scrapeId}/interact`: code or a prompt in a session on the scrape's page, opened with the
 * scrape's options at the first call and continued by the later ones; answered as execute is.
 */
export async function interactWithScrape(
  fc: FirecrawlDeps,
  scrapeId: string,
  body: FcExecuteBody,
  signal: AbortSignal,
  caller: Caller,
) {
  fc.executor.check(body); // a request that cannot run is a 400 before a session opens
  const origin = await originOf(fc, scrapeId, caller);
  const sessionId = await sessionOf(fc, origin);
  return executeReply(await fc.executor.execute(sessionId, body, signal, caller));
}

/** `DELETE /v2/scrape/{scrapeId}/interact`: ends the scrape's session, as BrowserDeleteResponse. */
export async function stopInteraction(fc: FirecrawlDeps, scrapeId: string, caller: Caller) {
  const origin = await originOf(fc, scrapeId, caller);
  if (!origin.sessionId) throw new NotFoundError(`Scrape ${scrapeId} has no interact session open`);
  let record: SessionRecord;
  try {
    record = await fc.services.sessions.end(origin.sessionId, 'deleted', caller);
  } catch (err) {
    if (!(err instanceof SessionEndedError)) throw err;
    record = await fc.services.sessions.get(origin.sessionId, caller);
  }
  await fc.scrapeOrigins.put({ ...origin, sessionId: null });
  return {
    success: true as const,
    status: 'destroyed' as const,
    sessionDurationMs: Math.max(0, (record.endedAt ?? Date.now()) - record.createdAt),
    creditsBilled: 0,
  };
}
