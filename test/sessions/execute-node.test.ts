import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app/server.js';
import { loadConfig } from '../../src/config/config.js';
import { ServiceUnavailableError } from '../../src/errors.js';
import { isBlockedAddress } from '../../src/lib/ssrf-guard.js';
import { NodeSandbox } from '../../src/sessions/node-code/sandbox.js';

/**
 * `language: "node"` with BROWSER_EXECUTE_CODE=true on a real Chromium: the SDK's browserExecute runs Playwright
 * code against the session's page; the code has no network of its own (a sentinel server on 127.0.0.2 sees
 * nothing, neither from fetch, nor from net, nor from a path Unix socket), no service environment, no files,
 * no child processes; console output, errors and the timeout are reported as execute reports them.
 */

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const defaults = loadConfig({});
const why = await new NodeSandbox({
  memoryBytes: defaults.browserCodeMemoryBytes,
  cpuSeconds: defaults.browserCodeCpuSeconds,
})
  .ensureAvailable()
  .then(
    () => null,
    (err: unknown) => (err instanceof Error ? err.message : String(err)),
  );
const skip = !existsSync(chromiumPath)
  ? `chromium is not installed at ${chromiumPath}`
  : why
    ? `the code sandbox cannot be built here: ${why}`
    : false;
const KEY = 'execute-node-test-key';
const SECRET = 'sk-sentinel-not-for-code';

let app: FastifyInstance;
let base = '';
let site = '';
let sentinelPort = 0;
let sentinelHits = 0;
let unixHits = 0;
let unixPath = '';
let dataDir = '';
let savedKey: string | undefined;
const servers: (Server | net.Server)[] = [];

async function listen(server: Server | net.Server, at: net.ListenOptions): Promise<void> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(at, resolve));
}

async function post(route: string, body: unknown) {
  const res = await fetch(base + route, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('execute with language "node"', { skip }, () => {
  before(async () => {
    savedKey = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = SECRET;
    const page = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Node Title</title><p>hi</p>'),
    );
    await listen(page, { port: 0, host: '127.0.0.1' });
    site = `http://site.test:${(page.address() as AddressInfo).port}`;
    const sentinel = createServer((_req, res) => {
      sentinelHits++;
      res.end('reached');
    });
    sentinel.on('connection', () => sentinelHits++);
    await listen(sentinel, { port: 0, host: '127.0.0.2' });
    sentinelPort = (sentinel.address() as AddressInfo).port;
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'pagewright-execute-node-'));
    unixPath = path.join(dataDir, 'sentinel.sock');
    await listen(
      net.createServer((s) => (unixHits++, s.end())),
      { path: unixPath },
    );
    const config = loadConfig({
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      CONTENT_WORKERS: '1',
      API_KEYS: KEY,
      MAX_BROWSER_SESSIONS: '2',
      BROWSER_EXECUTE_CODE: 'true',
      OPENAI_API_KEY: SECRET,
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
    for (const s of servers) s.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (savedKey === undefined) delete process.env.OPENAI_API_KEY;
    else process.env.OPENAI_API_KEY = savedKey;
  });

  test("the SDK's browserExecute runs Playwright code on the session's page and returns its value", async (t) => {
    const fc = new Firecrawl({ apiKey: KEY, apiUrl: base });
    const { id } = await fc.browser({ ttl: 120 });
    t.after(() => fc.deleteBrowser(id!).catch(() => undefined));
    const out = await fc.browserExecute(id!, {
      code: `await page.goto(${JSON.stringify(site + '/')}); console.log('went'); return await page.title()`,
      language: 'node',
    });
    assert.equal(out.exitCode, 0, out.stderr);
    assert.equal(out.result, 'Node Title');
    assert.equal(out.stdout, 'went\n');
    assert.equal(out.killed, false);
    const bash = await fc.browserExecute(id!, { code: 'get title' });
    assert.match(bash.stdout!, /Node Title/, "the code drove the session's own page");
    const thrown = await fc.browserExecute(id!, {
      code: 'console.log("before"); throw new Error("boom")',
      language: 'node',
    });
    assert.equal(thrown.exitCode, 1);
    assert.equal(thrown.stdout, 'before\n');
    assert.match(thrown.stderr!, /boom/);
  });

  test('the code reaches no network, socket, file, process or variable of the service', async (t) => {
    const fc = new Firecrawl({ apiKey: KEY, apiUrl: base });
    const { id } = await fc.browser({ ttl: 120 });
    t.after(() => fc.deleteBrowser(id!).catch(() => undefined));
    const code = `
      const out = {};
      const attempt = async (name, fn) => { try { out[name] = await fn(); } catch (e) { out[name] = String(e.code ?? e.cause?.code ?? e.message); } };
      const connect = (...to) => new Promise((resolve, reject) => {
        const s = process.getBuiltinModule('net').connect(...to);
        s.on('connect', () => { s.destroy(); resolve('reached'); });
        s.on('error', reject);
      });
      await attempt('fetch', async () => (await fetch('http://127.0.0.2:${sentinelPort}/'), 'reached'));
      await attempt('net', () => connect(${sentinelPort}, '127.0.0.2'));
      await attempt('unix', () => connect(${JSON.stringify(unixPath)}));
      await attempt('fs', () => process.getBuiltinModule('fs').readFileSync('/etc/hostname', 'utf8'));
      await attempt('cp', () => String(process.getBuiltinModule('child_process').execSync('id')));
      await attempt('goto', async () => { await page.goto('http://127.0.0.2:${sentinelPort}/'); return 'navigated'; });
      out.env = Object.keys(process.env);
      return out;`;
    const res = await fc.browserExecute(id!, { code, language: 'node' });
    assert.equal(res.exitCode, 0, res.stderr);
    const out = JSON.parse(res.result!) as Record<string, unknown>;
    assert.notEqual(out.fetch, 'reached');
    assert.notEqual(out.net, 'reached');
    assert.notEqual(out.unix, 'reached');
    assert.equal(out.fs, 'ERR_ACCESS_DENIED');
    assert.equal(out.cp, 'ERR_ACCESS_DENIED');
    assert.deepEqual(out.env, ['HOME']);
    assert.ok(!res.result!.includes(SECRET));
    assert.equal(sentinelHits, 0, 'nothing reached the sentinel on 127.0.0.2');
    assert.equal(unixHits, 0, "nothing reached the host's Unix socket");
  });

  test('a loop that never ends is killed at the timeout with exit code 124', async (t) => {
    const fc = new Firecrawl({ apiKey: KEY, apiUrl: base });
    const { id } = await fc.browser({ ttl: 120 });
    t.after(() => fc.deleteBrowser(id!).catch(() => undefined));
    const res = await post(`/v2/browser/${id}/execute`, {
      code: 'while (true) {}',
      language: 'node',
      timeout: 3,
    });
    assert.equal(res.status, 200);
    assert.equal(res.json.exitCode, 124);
    assert.equal(res.json.killed, true);
    assert.match(String(res.json.stderr), /timed out/);
    const after = await fc.browserExecute(id!, { code: 'return 1 + 1', language: 'node' });
    assert.equal(after.result, '2', 'the session still serves code after a kill');
  });
});

test('where the sandbox cannot be built (here: Node cannot start under its memory limit), a 503 says what it needs', async () => {
  const starved = new NodeSandbox({ memoryBytes: 64 * 1024 * 1024, cpuSeconds: 5 });
  await assert.rejects(starved.ensureAvailable(), (err: unknown) => {
    assert.ok(err instanceof ServiceUnavailableError);
    assert.equal(err.status, 503);
    assert.match(err.message, /PID, network and mount namespaces/);
    assert.match(err.message, /setpriv; prlimit/);
    assert.match(err.message, /language "bash" is available/);
    return true;
  });
});
