import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe } from 'node:test';
import { noChromium, startSessionService } from '../fixtures/session-service.js';
import type { SessionService } from '../fixtures/session-service.js';
import { TENANT_ENV, call, crossTenantLists, crossTenantRows, crossTenantSockets } from './cross-tenant.js';
import type { ListRow, Records, Row, WsOutcome, WsRow } from './cross-tenant.js';

/**
 * Browser sessions, their execute, CDP and live view sockets, interact after a scrape, and stored profiles,
 * on a real Chromium, driven by two tenants and an operator: another tenant's session, scrape or profile is a
 * 404 (a socket closed) exactly like one never made; its owner and the operator are served.
 */

const GET_URL = { code: 'get url', language: 'bash' };
/** `{site}` is the loopback site's origin. */
const PROFILE_SCRAPE = { url: '{site}/whoami', profile: { name: '{profile}' } };

const ROWS: Row[] = [
  { name: 'run commands in a session', method: 'POST', path: '/v2/browser/{session}/execute', body: GET_URL },
  { name: 'end a session', method: 'DELETE', path: '/v2/browser/{spareSession}', fresh: true },
  { name: 'interact after a scrape', method: 'POST', path: '/v2/scrape/{scrape}/interact', body: GET_URL },
  { name: 'end an interact', method: 'DELETE', path: '/v2/scrape/{interacted}/interact', fresh: true },
  { name: 'a profile', method: 'GET', path: '/api/v1/profiles/{profile}' },
  { name: 'delete a profile', method: 'DELETE', path: '/api/v1/profiles/{spareProfile}', fresh: true },
  // A session or a scrape uses the caller's own tenant's profile of that name (an operator's would be its own).
  {
    name: 'a session with a profile',
    method: 'POST',
    path: '/v2/browser',
    body: { profile: { name: '{profile}' } },
    ownerOnly: true,
  },
  {
    name: 'scrape with a profile',
    method: 'POST',
    path: '/v2/scrape',
    body: PROFILE_SCRAPE,
    ownerOnly: true,
  },
  {
    name: 'scrape with a profile (native)',
    method: 'POST',
    path: '/api/v1/scrape',
    body: PROFILE_SCRAPE,
    ownerOnly: true,
  },
];

const LISTS: ListRow[] = [
  { name: 'browser sessions', path: '/v2/browser', token: 'session' },
  { name: 'profiles', path: '/api/v1/profiles', token: 'profile' },
];

/** The CDP proxy answered the command sent once open. */
const cdpServed = (o: WsOutcome) =>
  o.opened && o.messages.some((m) => (JSON.parse(m) as { id?: number; result?: unknown }).id === 1);

const SOCKETS: WsRow[] = [
  {
    name: 'the CDP proxy',
    path: '/v2/browser/{session}/cdp',
    keyIn: 'header',
    first: JSON.stringify({ id: 1, method: 'Target.getTargets' }),
    served: cdpServed,
  },
  {
    name: 'the live view',
    path: '/v2/browser/{session}/live',
    keyIn: 'protocol',
    served: (o) => o.opened && o.messages.length > 0,
  },
];

const html = (res: ServerResponse, body: string, headers: Record<string, string> = {}) =>
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(body);

describe(
  "another tenant's sessions, interacts and profiles are 404; the owner's and the operator's are served",
  { skip: noChromium },
  () => {
    let svc: SessionService;
    let records: Records;
    const base = () => svc.base;

    before(async () => {
      svc = await startSessionService(
        { ...TENANT_ENV, MAX_BROWSER_SESSIONS: '16', MAX_SESSIONS_PER_TENANT: '16' },
        (req, res) => {
          if (req.url === '/login') return html(res, '<p>in</p>', { 'set-cookie': 'user=a; Path=/' });
          if (req.url === '/whoami') return html(res, `<p>cookie: ${req.headers.cookie ?? 'none'}</p>`);
          html(res, `<title>${req.url}</title><p>Page ${req.url}</p>`);
        },
      );
      records = await makeRecords(svc);
    });
    after(() => svc?.close());

    crossTenantRows(base, ROWS, () => records);
    crossTenantLists(base, LISTS, () => records);
    crossTenantSockets(base, SOCKETS, () => records);
  },
);

/** A's session, scrape (its interact open) and profile, and makers of ones to end or delete. */
async function makeRecords(svc: SessionService): Promise<Records> {
  const post = async (path: string, body: unknown) => {
    const reply = await call(svc.base, 'a', 'POST', path, body);
    assert.equal(reply.status, 200, `${path}: ${JSON.stringify(reply.json)}`);
    return reply.json;
  };
  const session = async () => String((await post('/v2/browser', {})).id);
  const scrape = async () => {
    const doc = (await post('/v2/scrape', { url: `${svc.site}/page`, formats: ['markdown'] })).data;
    return String((doc as { metadata: { scrapeId: string } }).metadata.scrapeId);
  };
  let profiles = 0;
  /** A profile saved from a session that read a cookie. */
  const profile = async () => {
    const name = `pa-${++profiles}`;
    const made = String((await post('/v2/browser', { profile: { name, saveChanges: true } })).id);
    await post(`/v2/browser/${made}/execute`, { code: `open ${svc.site}/login`, language: 'bash' });
    assert.equal((await call(svc.base, 'a', 'DELETE', `/v2/browser/${made}`)).status, 200);
    return name;
  };
  const interacted = async () => {
    const id = await scrape();
    await post(`/v2/scrape/${id}/interact`, GET_URL);
    return id;
  };
  const [sessionId, scrapeId, profileName] = await Promise.all([session(), scrape(), profile()]);
  return {
    ids: { session: sessionId, scrape: scrapeId, profile: profileName },
    fresh: { spareSession: session, interacted, spareProfile: profile },
    given: { site: svc.site },
  };
}
