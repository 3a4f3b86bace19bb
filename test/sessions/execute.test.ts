import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { firecrawlMcp } from '../fixtures/firecrawl-mcp.js';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app/server.js';
import { loadConfig } from '../../src/config/config.js';
import { isBlockedAddress } from '../../src/lib/ssrf-guard.js';
import { startLlmStub } from '../fixtures/llm-stub.js';
import type { LlmStub } from '../fixtures/llm-stub.js';

/**
 * Execute in a browser session and interact after a scrape, on a real Chromium: the SDK's browserExecute with
 * agent-browser commands (open, snapshot -i, fill @ref, click @ref, get text), interact() and
 * stopInteraction() after scrape(), a prompt driven by the LLM stub's scripted tool calls, the 400s, and
 * stdout's bound.
 */

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = existsSync(chromiumPath) ? false : `chromium is not installed at ${chromiumPath}`;
const KEY = 'execute-test-key';

let app: FastifyInstance;
let base = '';
let site = '';
let dataDir = '';
let llm: LlmStub;
const servers: ReturnType<typeof createServer>[] = [];

function siteRoutes(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://site.test');
  const html = (body: string): void =>
    void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  if (url.pathname === '/form') {
    return html(
      `<title>Form</title><h1>Sign up</h1><form action="/hello"><label>Name <input name="who"></label>` +
        `<button>Join</button></form>`,
    );
  }
  if (url.pathname === '/hello')
    return html(`<title>Hello</title><p id="out">Hello, ${url.searchParams.get('who')}!</p>`);
  if (url.pathname === '/big') return html(`<title>Big</title><p id="big">${'x'.repeat(1_200_000)}</p>`);
  if (url.pathname === '/headers')
    return html(`<title>Headers</title><p id="team">team: ${req.headers['x-team'] ?? 'none'}</p>`);
  return html(`<title>${url.pathname}</title><p>${url.pathname}</p>`);
}

async function post(route: string, body: unknown, appBase = base) {
  const res = await fetch(appBase + route, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** The ref of the snapshot line naming `what` (`- textbox "Name" [ref=e2]` gives `@e2`). */
function refOf(snapshot: string, what: RegExp): string {
  const line = snapshot.split('\n').find((l) => what.test(l));
  const ref = line?.match(/ref=(e\d+)/)?.[1];
  assert.ok(ref, `no ref for ${what} in:\n${snapshot}`);
  return `@${ref}`;
}

describe('execute and interact', { skip }, () => {
  before(async () => {
    const server = createServer(siteRoutes);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    site = `http://site.test:${(server.address() as AddressInfo).port}`;
    llm = await startLlmStub();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'pagewright-execute-'));
    const config = loadConfig({
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      CONTENT_WORKERS: '1',
      API_KEYS: KEY,
      MAX_BROWSER_SESSIONS: '3',
      BROWSER_EXECUTE_CODE: 'true',
      OPENAI_BASE_URL: llm.url,
      MODEL_NAME: 'stub-model',
    });
    app = await buildApp({
      config,
      logger: false,
      isBlockedAddress: (a) => a !== '127.0.0.1' && isBlockedAddress(a),
      resolver: async (host) => {
        if (host === 'site.test') return [{ address: '127.0.0.1', family: 4 }];
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await app?.close();
    await llm?.close();
    for (const s of servers) s.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("the SDK's browserExecute: open and snapshot -i, then fill @ref, click @ref, get text", async (t) => {
    const fc = new Firecrawl({ apiKey: KEY, apiUrl: base });
    const session = await fc.browser({ ttl: 120 });
    const id = session.id!;
    t.after(() => fc.deleteBrowser(id).catch(() => undefined));
    const first = await fc.browserExecute(id, { code: `open ${site}/form && snapshot -i` });
    assert.equal(first.success, true);
    assert.equal(first.exitCode, 0, first.stderr);
    assert.equal(first.killed, false);
    assert.equal(first.truncated, false);
    const name = refOf(first.stdout!, /textbox "Name"/);
    const join = refOf(first.stdout!, /button "Join"/);
    const done = await fc.browserExecute(id, {
      code: `fill ${name} "Ada Lovelace"\nclick ${join}\nwait --url "**/hello*"\nget text "#out"`,
    });
    assert.equal(done.exitCode, 0, done.stderr);
    assert.match(done.stdout!, /Hello, Ada Lovelace!/);
    const failed = await fc.browserExecute(id, { code: 'frobnicate', language: 'bash' });
    assert.equal(failed.exitCode, 127);
    assert.match(failed.stderr!, /Unknown command 'frobnicate'/);
  });

  test('stdout is cut at 1 MB and says so', async (t) => {
    const fc = new Firecrawl({ apiKey: KEY, apiUrl: base });
    const { id } = await fc.browser({ ttl: 120 });
    t.after(() => fc.deleteBrowser(id!).catch(() => undefined));
    const out = await fc.browserExecute(id!, { code: `open ${site}/big && get text "#big"` });
    assert.equal(out.exitCode, 0, out.stderr);
    assert.equal(out.truncated, true);
    assert.equal(out.stdout!.length, 1_000_000);
  });

  test('python and an empty request are 400s before anything runs', async (t) => {
    const fc = new Firecrawl({ apiKey: KEY, apiUrl: base });
    const { id } = await fc.browser({ ttl: 120 });
    t.after(() => fc.deleteBrowser(id!).catch(() => undefined));
    const python = await post(`/v2/browser/${id}/execute`, { code: 'print(1)', language: 'python' });
    assert.equal(python.status, 400);
    assert.match(String(python.json.error), /"python" is not supported: use "bash"/);
    const empty = await post(`/v2/browser/${id}/execute`, {});
    assert.equal(empty.status, 400);
    assert.match(String(empty.json.error), /"code".*or "prompt"/);
  });

  test("interact() after scrape(): the scrape's page with its headers, continued, then stopInteraction()", async (t) => {
    const fc = new Firecrawl({ apiKey: KEY, apiUrl: base });
    const doc = await fc.scrape(`${site}/headers`, { headers: { 'x-team': 'blue' }, maxAge: 0 });
    const scrapeId = doc.metadata?.scrapeId;
    assert.ok(scrapeId);
    t.after(() => fc.stopInteraction(scrapeId).catch(() => undefined));
    const first = await fc.interact(scrapeId, { code: 'get url && get text "#team"', language: 'bash' });
    assert.equal(first.exitCode, 0, first.stderr);
    assert.match(first.stdout!, /\/headers\n/);
    assert.match(first.stdout!, /team: blue/);
    await fc.interact(scrapeId, { code: `open ${site}/second`, language: 'bash' });
    const again = await fc.interact(scrapeId, { code: 'get title', language: 'bash' });
    assert.equal(again.stdout, '/second\n'); // the same session: the page it was left on
    const stopped = await fc.stopInteraction(scrapeId);
    assert.equal(stopped.success, true);
    assert.equal(stopped.status, 'destroyed');
    assert.equal(typeof stopped.sessionDurationMs, 'number');
    const reopened = await fc.interact(scrapeId, { code: 'get text "#team"', language: 'bash' });
    assert.match(reopened.stdout!, /team: blue/); // a new session on the scrape's page
    await fc.stopInteraction(scrapeId);
    const unknown = await post('/v2/scrape/not-a-scrape/interact', { code: 'get url', language: 'bash' });
    assert.equal(unknown.status, 404);
    assert.match(String(unknown.json.error), /Scrape not-a-scrape not found/);
  });

  test("firecrawl-mcp's firecrawl_interact in URL mode (scrape, then interact) and firecrawl_interact_stop", async (t) => {
    const client = await firecrawlMcp(t, base, KEY);
    const reply = (await client.callTool({
      name: 'firecrawl_interact',
      arguments: { url: `${site}/form`, code: 'get title && snapshot -i', language: 'bash' },
    })) as { isError?: boolean; content: { text: string }[] };
    assert.ok(!reply.isError, reply.content[0]?.text);
    const out = JSON.parse(reply.content[0]!.text) as Record<string, unknown>;
    assert.equal(out.exitCode, 0, String(out.stderr));
    assert.match(String(out.stdout), /^Form\n[\s\S]*textbox "Name"/);
    const scrapeId = String(out.scrapeId);
    const stop = (await client.callTool({ name: 'firecrawl_interact_stop', arguments: { scrapeId } })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    assert.ok(!stop.isError, stop.content[0]?.text);
    assert.equal((JSON.parse(stop.content[0]!.text) as { status: string }).status, 'destroyed');
  });

  test('a prompt: the LLM stub scripts run and done; the answer and the steps come back', async (t) => {
    const fc = new Firecrawl({ apiKey: KEY, apiUrl: base });
    const doc = await fc.scrape(`${site}/form`, { maxAge: 0 });
    const scrapeId = doc.metadata!.scrapeId!;
    t.after(() => fc.stopInteraction(scrapeId).catch(() => undefined));
    llm.requests.length = 0;
    llm.reply = (request) => {
      const step = llm.requests.length;
      const input = String((request.body.messages as { content: string }[])[1]!.content);
      if (step === 1) {
        const name = refOf(input, /textbox "Name"/);
        const join = refOf(input, /button "Join"/);
        return { text: JSON.stringify({ tool: 'run', commands: `fill ${name} Grace\nclick ${join}` }) };
      }
      if (step === 2) return { text: JSON.stringify({ tool: 'run', commands: 'get text "#out"' }) };
      const said = input.match(/Hello, \w+!/)?.[0] ?? 'nothing';
      return { text: JSON.stringify({ name: 'done', arguments: JSON.stringify({ answer: said }) }) };
    };
    const out = await fc.interact(scrapeId, { prompt: 'Sign up as Grace and tell me the greeting' });
    assert.equal(out.exitCode, 0, out.stderr);
    assert.equal(out.result, 'Hello, Grace!');
    assert.match(out.stdout!, /## step 1: run \(exit 0\)\n\$ fill @e\d+ Grace/);
    assert.match(out.stdout!, /## step 3: done\nHello, Grace!/);
    assert.equal(llm.requests.length, 3);
    const first = llm.requests[0]!.body.messages as { content: string }[];
    assert.match(first[1]!.content, /Goal: Sign up as Grace/);
    assert.match(first[1]!.content, /Previous step: none/);
  });

  test('a prompt that never says done stops at the step budget', async (t) => {
    const fc = new Firecrawl({ apiKey: KEY, apiUrl: base });
    const { id } = await fc.browser({ ttl: 120 });
    t.after(() => fc.deleteBrowser(id!).catch(() => undefined));
    llm.requests.length = 0;
    llm.reply = () => ({ text: 'I am thinking about it' });
    const out = await post(`/v2/browser/${id}/execute`, { prompt: 'loop forever' });
    assert.equal(out.status, 200);
    assert.equal(out.json.exitCode, 1);
    assert.match(String(out.json.stderr), /step budget \(10\) is spent/);
    assert.equal(llm.requests.length, 10);
    assert.match(String(out.json.stdout), /## step 10: not understood/);
  });

  test('a prompt without the server LLM is a 400 naming OPENAI_BASE_URL', async () => {
    const bareDir = mkdtempSync(path.join(os.tmpdir(), 'pagewright-execute-bare-'));
    const bare = await buildApp({
      config: loadConfig({ DATA_DIR: bareDir, LOG_LEVEL: 'silent', CONTENT_WORKERS: '1', API_KEYS: KEY }),
      logger: false,
    });
    try {
      const res = await bare.inject({
        method: 'POST',
        url: '/v2/browser/00000000-0000-4000-8000-000000000000/execute',
        headers: { authorization: `Bearer ${KEY}` },
        payload: { prompt: 'do it' },
      });
      assert.equal(res.statusCode, 400);
      assert.match(res.json<{ error: string }>().error, /OPENAI_BASE_URL/);
      const node = await bare.inject({
        method: 'POST',
        url: '/v2/browser/00000000-0000-4000-8000-000000000000/execute',
        headers: { authorization: `Bearer ${KEY}` },
        payload: { code: 'x', language: 'node' },
      });
      assert.equal(node.statusCode, 400);
      assert.match(node.json<{ error: string }>().error, /BROWSER_EXECUTE_CODE=true/);
    } finally {
      await bare.close();
      rmSync(bareDir, { recursive: true, force: true });
    }
  });
});
