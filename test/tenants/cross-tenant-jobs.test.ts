import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { FACTS, FACTS_SCHEMA } from '../agent/script.js';
import { startLlmStub } from '../fixtures/llm-stub.js';
import type { LlmStub } from '../fixtures/llm-stub.js';
import { until } from '../fixtures/until.js';
import { startService } from '../helpers.js';
import {
  TENANT_ENV,
  call,
  crossTenantLists,
  crossTenantRows,
  crossTenantSockets,
  startTenantSite,
  suiteCleanup,
} from './cross-tenant.js';
import type { ListRow, Records, Row, WsOutcome, WsRow } from './cross-tenant.js';

/**
 * Every route of the Firecrawl API naming a job, an agent run or thread, a monitor or a check, and their lists
 * and job watchers, driven by two tenants and an operator: another tenant's record is a 404 exactly like an id
 * never given; its owner and the operator are served.
 */

const ROWS: Row[] = [
  { name: 'crawl status', method: 'GET', path: '/v2/crawl/{crawl}' },
  { name: 'crawl status (v1)', method: 'GET', path: '/v1/crawl/{crawl}' },
  { name: 'batch status under v1 crawl', method: 'GET', path: '/v1/crawl/{batch}' },
  { name: 'crawl errors', method: 'GET', path: '/v2/crawl/{crawl}/errors' },
  { name: 'crawl errors (v1)', method: 'GET', path: '/v1/crawl/{crawl}/errors' },
  { name: 'crawl errors (v1 SDK, DELETE)', method: 'DELETE', path: '/v1/crawl/{crawl}/errors' },
  { name: 'cancel a crawl', method: 'DELETE', path: '/v2/crawl/{runningCrawl}', fresh: true },
  { name: 'cancel a crawl (v1)', method: 'DELETE', path: '/v1/crawl/{runningCrawl}', fresh: true },
  { name: 'batch status', method: 'GET', path: '/v2/batch/scrape/{batch}' },
  { name: 'batch status (v1)', method: 'GET', path: '/v1/batch/scrape/{batch}' },
  { name: 'batch errors', method: 'GET', path: '/v2/batch/scrape/{batch}/errors' },
  { name: 'batch errors (v1)', method: 'GET', path: '/v1/batch/scrape/{batch}/errors' },
  { name: 'batch errors (v1 SDK, DELETE)', method: 'DELETE', path: '/v1/batch/scrape/{batch}/errors' },
  { name: 'cancel a batch', method: 'DELETE', path: '/v2/batch/scrape/{runningBatch}', fresh: true },
  { name: 'cancel a batch (v1)', method: 'DELETE', path: '/v1/batch/scrape/{runningBatch}', fresh: true },
  { name: 'extract status', method: 'GET', path: '/v2/extract/{extract}' },
  { name: 'extract status (v1)', method: 'GET', path: '/v1/extract/{extract}' },
  { name: 'llms.txt status', method: 'GET', path: '/v1/llmstxt/{llmstxt}' },
  { name: 'agent run status', method: 'GET', path: '/v2/agent/{agent}' },
  { name: 'agent run trace', method: 'GET', path: '/v2/agent/{agent}/trace' },
  { name: 'agent thread', method: 'GET', path: '/v2/agent/threads/{thread}' },
  {
    name: 'a follow-up on a thread',
    method: 'POST',
    path: '/v2/agent',
    body: { prompt: 'And the founder?', threadId: '{idleThread}' },
    fresh: true,
  },
  { name: 'cancel an agent run', method: 'DELETE', path: '/v2/agent/{runningAgent}', fresh: true },
  { name: 'a monitor', method: 'GET', path: '/v2/monitor/{monitor}' },
  { name: 'change a monitor', method: 'PATCH', path: '/v2/monitor/{monitor}', body: { name: 'renamed' } },
  { name: 'run a check', method: 'POST', path: '/v2/monitor/{monitor}/run' },
  { name: "a monitor's checks", method: 'GET', path: '/v2/monitor/{monitor}/checks' },
  { name: 'a check with its pages', method: 'GET', path: '/v2/monitor/{monitor}/checks/{check}' },
  { name: 'delete a monitor', method: 'DELETE', path: '/v2/monitor/{spareMonitor}', fresh: true },
];

const LISTS: ListRow[] = [
  { name: 'the jobs view (web app)', path: '/api/v1/jobs', token: 'crawl' },
  { name: 'agent runs', path: '/v2/agent', token: 'agent' },
  { name: 'monitors', path: '/v2/monitor', token: 'monitor' },
  { name: 'running crawls', path: '/v2/crawl/active', token: 'runningCrawl', fresh: true },
  { name: 'running crawls (v1)', path: '/v1/crawl/ongoing', token: 'runningCrawl', fresh: true },
];

const typeOf = (o: WsOutcome, i: number): unknown =>
  (JSON.parse(o.messages[i] ?? '{}') as { type?: unknown }).type;
/** v2's watcher begins with a catchup; v1's too (its end is the close reason). */
const watched = (o: WsOutcome) => o.opened && typeOf(o, 0) === 'catchup';

const SOCKETS: WsRow[] = [
  { name: 'watch a crawl', path: '/v2/crawl/{crawl}', keyIn: 'protocol', served: watched },
  { name: 'watch a crawl (v1)', path: '/v1/crawl/{crawl}', keyIn: 'protocol', served: watched },
  { name: 'watch a batch', path: '/v2/batch/scrape/{batch}', keyIn: 'protocol', served: watched },
  { name: 'watch a batch (v1)', path: '/v1/batch/scrape/{batch}', keyIn: 'protocol', served: watched },
];

describe("another tenant's jobs, agent runs and monitors are 404; the owner's and the operator's are served", () => {
  let base = '';
  let records: Records;
  const { t, cleanUp } = suiteCleanup();

  before(async () => {
    const site = await startTenantSite();
    const llm: LlmStub = await startLlmStub();
    t.after(() => llm.close());
    // Agent turns end at once with the facts; a prompt saying HANG waits for a reply that never comes in time.
    llm.reply = (req) => {
      if (JSON.stringify(req.body).includes('HANG')) return { delayMs: 600_000 };
      if (req.body.tools) return { toolCalls: [{ name: 'final_answer', arguments: { data: FACTS } }] };
      return { text: '{}' };
    };
    const svc = await startService(t, {
      env: {
        ...TENANT_ENV,
        OPENAI_BASE_URL: llm.url,
        MODEL_NAME: 'stub-model',
        CRAWL_MIN_DELAY_MS: '0',
        MAX_JOBS_PER_TENANT: '100',
        MAX_AGENT_RUNS_PER_TENANT: '100',
      },
    });
    base = svc.url;
    // Closed before the service, so that a fetch of /hang still open ends at once.
    t.after(() => site.close());
    records = await makeRecords(base, site.url);
  });
  after(cleanUp);

  crossTenantRows(
    () => base,
    ROWS,
    () => records,
  );
  crossTenantLists(
    () => base,
    LISTS,
    () => records,
  );
  crossTenantSockets(
    () => base,
    SOCKETS,
    () => records,
  );
});

/** A's records, each ended (a crawl, a batch, an extract, llms.txt, an agent run, a monitor's check). */
async function makeRecords(base: string, site: string): Promise<Records> {
  const start = async (path: string, body: unknown): Promise<string> => {
    const reply = await call(base, 'a', 'POST', path, body);
    assert.equal(reply.status, 200, `${path}: ${JSON.stringify(reply.json)}`);
    return String(reply.json.id ?? (reply.json.data as { id: string }).id);
  };
  const ended = (path: string) =>
    until(
      () => call(base, 'a', 'GET', path),
      (r) =>
        !['scraping', 'processing', 'queued', 'running'].includes(
          String(r.json.status ?? (r.json.data as { status?: string })?.status),
        ),
    );
  const agent = async (prompt: string) => {
    const run = await call(base, 'a', 'POST', '/v2/agent', { prompt, schema: FACTS_SCHEMA });
    assert.equal(run.status, 200, JSON.stringify(run.json));
    return run.json as { id: string; threadId: string };
  };
  const monitor = () =>
    start('/v2/monitor', {
      name: 'prices',
      schedule: { cron: '0 9 * * *' },
      targets: [{ type: 'scrape', urls: [`${site}/one`] }],
    });
  const [crawl, batch, extract, llmstxt, run, monitorId] = await Promise.all([
    start('/v2/crawl', { url: `${site}/`, limit: 3 }),
    start('/v2/batch/scrape', { urls: [`${site}/one`] }),
    start('/v2/extract', { urls: [`${site}/one`], prompt: 'The title' }),
    start('/v1/llmstxt', { url: `${site}/`, maxUrls: 2 }),
    agent('Who founded Acme?'),
    monitor(),
  ]);
  const check = String(
    ((await call(base, 'a', 'POST', `/v2/monitor/${monitorId}/run`)).json.data as { id: string }).id,
  );
  await Promise.all([
    ended(`/v2/crawl/${crawl}`),
    ended(`/v2/batch/scrape/${batch}`),
    ended(`/v2/extract/${extract}`),
    ended(`/v1/llmstxt/${llmstxt}`),
    ended(`/v2/agent/${run.id}`),
    ended(`/v2/monitor/${monitorId}/checks/${check}`),
  ]);
  return {
    ids: { crawl, batch, extract, llmstxt, agent: run.id, thread: run.threadId, monitor: monitorId, check },
    fresh: {
      runningCrawl: () => start('/v2/crawl', { url: `${site}/hang`, limit: 1 }),
      runningBatch: () => start('/v2/batch/scrape', { urls: [`${site}/hang`] }),
      runningAgent: async () => (await agent('HANG until cancelled')).id,
      idleThread: async () => {
        const first = await agent('Who founded Acme?');
        await ended(`/v2/agent/${first.id}`);
        return first.threadId;
      },
      spareMonitor: monitor,
    },
  };
}
