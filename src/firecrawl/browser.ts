import type { SessionRecord } from '../jobs/stores/browser-state/session-store.js';
import { listedOwner, ownerOf } from '../tenants/tenant.js';
import type { Caller } from '../tenants/tenant.js';
import type { FirecrawlDeps } from './deps.js';
import type { Origin } from './jobs.js';
import type { FcBrowserCreateBody } from './schemas/browser.js';

const iso = (ms: number): string => new Date(ms).toISOString();

/** The CDP proxy's WebSocket for a session, on the scheme and host the request came to. */
const cdpUrlOf = (origin: Origin, id: string): string =>
  `${origin.protocol === 'https' ? 'wss' : 'ws'}://${origin.host}/v2/browser/${id}/cdp`;

/** The web app's live view of a session (a page of the app: it holds no data and asks for the key). */
const liveViewOf = (origin: Origin, id: string) => {
  const page = `${origin.protocol}://${origin.host}/#/sessions/${id}`;
  return { liveViewUrl: page, interactiveLiveViewUrl: `${page}/interactive` };
};

/** `POST /v2/browser`: a session as Firecrawl's BrowserCreateResponse. */
export async function createSession(
  fc: FirecrawlDeps,
  body: FcBrowserCreateBody,
  origin: Origin,
  caller: Caller,
) {
  const record = await fc.services.sessions.create({
    owner: caller.tenant,
    ttl: body.ttl ?? 600,
    activityTtl: body.activityTtl ?? 300,
    ...(body.profile ? { profile: body.profile } : {}),
  });
  return {
    success: true as const,
    id: record.id,
    cdpUrl: cdpUrlOf(origin, record.id),
    ...liveViewOf(origin, record.id),
    expiresAt: iso(record.expiresAt),
  };
}

/**
 * `GET /v2/browser`: Firecrawl's BrowserListResponse, with each session's times, TTLs, holder and end; the
 * caller's tenant's sessions (an operator's: every tenant's, each with its `tenant`, or those of `tenant`).
 */
export async function listSessions(
  fc: FirecrawlDeps,
  status: SessionRecord['status'] | undefined,
  origin: Origin,
  caller: Caller,
  tenant?: string,
) {
  const owner = listedOwner(caller, tenant);
  const records = (await fc.services.sessions.list(status, caller)).filter(
    (r) => owner === undefined || ownerOf(r) === owner,
  );
  return {
    success: true as const,
    sessions: records.map((r) => ({
      id: r.id,
      status: r.status,
      cdpUrl: cdpUrlOf(origin, r.id),
      ...liveViewOf(origin, r.id),
      streamWebView: false,
      createdAt: iso(r.createdAt),
      lastActivity: iso(r.lastActivity),
      expiresAt: iso(r.expiresAt),
      ttl: r.ttl,
      activityTtl: r.activityTtl,
      holder: r.holder,
      tenant: ownerOf(r),
      ...(r.endedAt !== null ? { endedAt: iso(r.endedAt) } : {}),
      ...(r.endCause !== null ? { endCause: r.endCause } : {}),
    })),
  };
}

/** `DELETE /v2/browser/{id}`: Firecrawl's BrowserDeleteResponse. */
export async function deleteSession(fc: FirecrawlDeps, id: string, caller: Caller) {
  const record = await fc.services.sessions.end(id, 'deleted', caller);
  return {
    success: true as const,
    status: 'destroyed' as const,
    sessionDurationMs: Math.max(0, (record.endedAt ?? Date.now()) - record.createdAt),
    creditsBilled: 0,
  };
}
