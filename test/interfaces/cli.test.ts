import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import { startCrawlSite } from '../fixtures/sites/crawl-site.js';
import { freePort } from '../fixtures/free-port.js';
import { docx } from '../fixtures/files/office.js';
import { startSearchStub } from '../fixtures/search-stub.js';
import { startService } from '../helpers.js';
import { serviceNodeFlags } from '../../src/cli/service-process.js';
import { SESSION_VALUE, startLoginSite } from '../fixtures/sites/login-site.js';

/** The `pagewright` command as a child process: stdout, files and exit codes. */

const CLI = path.join(import.meta.dirname, '..', '..', 'src', 'cli', 'main.ts');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(t: TestContext, args: string[], env: Record<string, string> = {}): Promise<Run> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pagewright-cli-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', CLI, ...args],
      {
        env: {
          ...process.env,
          ALLOW_PRIVATE_NETWORKS: 'true',
          DATA_DIR: dataDir,
          CONTENT_WORKERS: '1',
          LOG_LEVEL: 'silent',
          ...env,
        },
        maxBuffer: 50 * 1024 * 1024,
      },
      (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function site(t: TestContext) {
  const s = await startCrawlSite({ bare: true });
  t.after(() => s.close());
  // Named hosts need the tests' resolver, which a child process does not have: loopback by address.
  return { ...s, base: `http://127.0.0.1:${s.port}` };
}

describe('pagewright CLI', () => {
  test('scrape prints the Markdown; --json the whole answer; --help; exit 0', async (t) => {
    const s = await site(t);
    const [md, json, help] = await Promise.all([
      cli(t, ['scrape', `${s.base}/gen/0`, '--only-main-content']),
      cli(t, ['scrape', `${s.base}/gen/0`, '--formats', 'markdown,links', '--json']),
      cli(t, ['scrape', '--help']),
    ]);
    assert.equal(md.code, 0, md.stderr);
    assert.match(md.stdout, /^This is Page 0/);
    assert.equal(json.code, 0, json.stderr);
    const reply = JSON.parse(json.stdout) as { data: { links: string[]; metadata: { statusCode: number } } };
    assert.equal(reply.data.metadata.statusCode, 200);
    assert.ok(reply.data.links.includes(`${s.base}/gen/1`));
    assert.equal(help.code, 0);
    assert.match(help.stdout, /pagewright scrape URL/);
  });

  test('bad usage exits 2 with the field named; a failed operation exits 1 with its code', async (t) => {
    const s = await site(t);
    const [unknown, badValue, noUrl, unreachable, command] = await Promise.all([
      cli(t, ['scrape', `${s.base}/`, '--formatz', 'markdown']),
      cli(t, ['scrape', `${s.base}/`, '--timeout', 'soon']),
      cli(t, ['scrape']),
      cli(t, ['scrape', 'http://127.0.0.1:1/']),
      cli(t, ['fetch', `${s.base}/`]),
    ]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown field 'formatz'/);
    assert.equal(badValue.code, 2);
    assert.match(badValue.stderr, /timeout must be integer/);
    assert.equal(noUrl.code, 2);
    assert.equal(unreachable.code, 1);
    assert.match(unreachable.stderr, /^TARGET_UNREACHABLE: /m);
    assert.equal(command.code, 2);
    assert.match(command.stderr, /unknown command 'fetch'/);
  });

  test('crawl --output writes one .md per page (path from the URL) and index.json', async (t) => {
    const s = await site(t);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewright-out-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const run = await cli(t, ['crawl', `${s.base}/`, '--limit', '4', '--output', dir]);
    assert.equal(run.code, 0, run.stderr);
    const index = JSON.parse(readFileSync(path.join(dir, 'index.json'), 'utf8')) as {
      url: string;
      file: string;
    }[];
    assert.equal(index.length, 4);
    const home = index.find((e) => e.url === `${s.base}/`)!;
    assert.equal(home.file, path.join(`127.0.0.1_${s.port}`, 'index.md'));
    const gen = index.find((e) => e.url === `${s.base}/gen/0`)!;
    assert.equal(gen.file, path.join(`127.0.0.1_${s.port}`, 'gen', '0.md'));
    assert.match(readFileSync(path.join(dir, gen.file), 'utf8'), /This is Page 0/);
  });

  test('map, search, extract and llmstxt', async (t) => {
    const s = await site(t);
    const stub = await startSearchStub();
    t.after(() => stub.close());
    stub.hits = [{ title: 'Zero', url: `${s.base}/gen/0`, snippet: 'The first page.' }];
    const schemaFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'pagewright-schema-')), 'schema.json');
    writeFileSync(schemaFile, JSON.stringify({ type: 'object', properties: { title: { type: 'string' } } }));
    const [map, search, extract, llmstxt] = await Promise.all([
      cli(t, ['map', `${s.base}/`, '--limit', '3']),
      cli(t, ['search', 'first page'], { SEARXNG_URL: `${stub.url}/searxng` }),
      cli(t, ['extract', `${s.base}/gen/0`, '--schema', schemaFile, '--selectors', '{"title":"h1"}']),
      cli(t, ['llmstxt', `${s.base}/`, '--max-urls', '2']),
    ]);
    assert.equal(map.code, 0, map.stderr);
    assert.equal(map.stdout.trim().split('\n').length, 3);
    assert.equal(search.code, 0, search.stderr);
    assert.equal(search.stdout, `- [Zero](${s.base}/gen/0)\n  The first page.\n`);
    assert.equal(extract.code, 0, extract.stderr);
    assert.match(extract.stdout, /"title": "Page 0"/);
    assert.equal(llmstxt.code, 0, llmstxt.stderr);
    assert.match(llmstxt.stdout, /^# /);
  });

  test('parse converts a local file; a type it cannot convert is exit 1 with the code', async (t) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewright-parse-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(path.join(dir, 'notes.html'), '<title>Notes</title><h2>Local</h2><p>A file on disk.</p>');
    writeFileSync(path.join(dir, 'data.bin'), Buffer.from([0, 1, 2, 3, 0, 255, 254, 0]));
    writeFileSync(path.join(dir, 'prices.docx'), docx());
    const [html, binary, word] = await Promise.all([
      cli(t, ['parse', path.join(dir, 'notes.html')]),
      cli(t, ['parse', path.join(dir, 'data.bin')]),
      cli(t, ['parse', path.join(dir, 'prices.docx')]),
    ]);
    assert.equal(word.code, 0, word.stderr);
    assert.match(word.stdout, /^# Price list\n\nAll prices are in euros\./);
    assert.equal(html.code, 0, html.stderr);
    assert.match(html.stdout, /## Local\n\nA file on disk\./);
    assert.equal(binary.code, 1);
    assert.match(binary.stderr, /^UNSUPPORTED_CONTENT: /m);
  });

  test('serve starts the HTTP API with the Node flags of npm start; SIGTERM stops it cleanly', async (t) => {
    const port = await freePort();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pagewright-serve-'));
    t.after(() => rmSync(dataDir, { recursive: true, force: true }));
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve'], {
      env: {
        ...process.env,
        PORT: String(port),
        DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        CONTENT_WORKERS: '1',
      },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let health = '';
    for (let i = 0; i < 600 && health !== 'ok'; i++) {
      health = await fetch(`http://127.0.0.1:${port}/health`).then(
        (r) => r.text(),
        () => '',
      );
      if (health !== 'ok') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(health, 'ok');
    // The collector's settings can only be given as V8 starts: the process became one that has them.
    const argv = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
    for (const flag of serviceNodeFlags()) assert.ok(argv.includes(flag), `${flag} in ${argv.join(' ')}`);
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  });

  test('--api sends the same request to a running service', async (t) => {
    const s = await site(t);
    const svc = await startService(t, { env: { API_KEYS: 'cli-key' } });
    const ok = await cli(t, ['scrape', `${s.base}/gen/0`, '--api', svc.url], {
      PAGEWRIGHT_API_KEY: 'cli-key',
    });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /This is Page 0/);
    const refused = await cli(t, ['scrape', `${s.base}/gen/0`, '--api', svc.url]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^UNAUTHORIZED: /m);
  });

  test('pagewright profiles list | show NAME | delete NAME, through --api and in this process', async (t) => {
    const site = await startLoginSite();
    t.after(() => site.close());
    const svc = await startService(t);
    const login = await svc.post('/api/v1/scrape', {
      url: `${site.url}/login?user=ada`,
      engine: 'http',
      profile: { name: 'acme', saveChanges: true },
    });
    assert.equal(login.status, 200);
    const api = ['--api', svc.url];
    const [list, show, json, missing, usage, local] = await Promise.all([
      cli(t, ['profiles', 'list', ...api]),
      cli(t, ['profiles', 'show', 'acme', ...api]),
      cli(t, ['profiles', 'show', 'acme', '--json', ...api]),
      cli(t, ['profiles', 'show', 'nobody', ...api]),
      cli(t, ['profiles', 'show']),
      cli(t, ['profiles', 'list']),
    ]);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^acme\t2 cookies\t127\.0\.0\.1\tupdated /);
    assert.match(show.stdout, /^acme\t2 cookies/);
    assert.equal((JSON.parse(json.stdout) as { profile: { cookies: number } }).profile.cookies, 2);
    assert.deepEqual([missing.code, /NOT_FOUND/.test(missing.stderr)], [1, true]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /usage: pagewright profiles list \| show NAME \| delete NAME/);
    assert.deepEqual([local.code, local.stdout], [0, ''], 'an empty DATA_DIR has no profiles');
    for (const run of [list, show, json]) assert.ok(!run.stdout.includes(SESSION_VALUE));
    const deleted = await cli(t, ['profiles', 'delete', 'acme', ...api]);
    assert.deepEqual([deleted.code, deleted.stdout], [0, 'deleted acme\n']);
    assert.equal((await cli(t, ['profiles', 'list', ...api])).stdout, '');
  });
});
