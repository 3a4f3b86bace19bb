import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startCrawlSite } from '../fixtures/sites/crawl-site.js';
import { startService } from '../helpers.js';

/** The MCP SDK's own Client against `pagewright mcp` (stdio, a child process) and /mcp (Streamable HTTP). */

const CLI = path.join(import.meta.dirname, '..', '..', 'src', 'cli', 'main.ts');
const TOOLS = [
  'batch_scrape',
  'check_crawl_status',
  'crawl',
  'extract',
  'llmstxt',
  'map',
  'parse',
  'scrape',
  'search',
];

type ToolReply = { isError?: boolean; content: { type: string; text: string }[] };
const textOf = (r: unknown): string => (r as ToolReply).content[0]!.text;

async function stdioClient(t: TestContext, env: Record<string, string> = {}): Promise<Client> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pagewright-mcp-'));
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', CLI, 'mcp'],
      env: {
        ...(process.env as Record<string, string>),
        ALLOW_PRIVATE_NETWORKS: 'true',
        DATA_DIR: dataDir,
        CONTENT_WORKERS: '1',
        CRAWL_MIN_DELAY_MS: '0',
        LOG_LEVEL: 'silent',
        ...env,
      },
      stderr: 'ignore',
    }),
  );
  t.after(async () => {
    await client.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return client;
}

/** Scrape, map, then a crawl job read to its end with check_crawl_status, as an agent would. */
async function exercise(client: Client, base: string): Promise<void> {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name).sort(), TOOLS);
  const scrape = tools.find((tool) => tool.name === 'scrape')!;
  assert.deepEqual(scrape.inputSchema.required, ['url']);
  assert.ok(scrape.description && scrape.description.length > 40, 'says when to use it');

  const page = await client.callTool({
    name: 'scrape',
    arguments: { url: `${base}/gen/0`, onlyMainContent: true },
  });
  assert.ok(!page.isError, textOf(page));
  assert.match(textOf(page), /This is Page 0/);

  const map = await client.callTool({ name: 'map', arguments: { url: `${base}/`, limit: 3 } });
  assert.equal((JSON.parse(textOf(map)) as { links: string[] }).links.length, 3);

  const started = await client.callTool({ name: 'crawl', arguments: { url: `${base}/`, limit: 3 } });
  const { id } = JSON.parse(textOf(started)) as { id: string };
  let status: { status: string; completed: number; data: unknown[] };
  for (;;) {
    const reply = await client.callTool({ name: 'check_crawl_status', arguments: { id } });
    status = JSON.parse(textOf(reply)) as typeof status;
    if (status.status !== 'scraping') break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  assert.equal(status.status, 'completed');
  assert.equal(status.completed, 3);
  assert.equal(status.data.length, 3);

  const html =
    '<html><head><title>Notes</title></head><body><h2>Local</h2><p>A file the agent has.</p></body></html>';
  const parsed = await client.callTool({
    name: 'parse',
    arguments: { filename: 'notes.html', content: Buffer.from(html).toString('base64') },
  });
  assert.ok(!parsed.isError, textOf(parsed));
  assert.match(textOf(parsed), /## Local/);

  const bad = await client.callTool({ name: 'scrape', arguments: { url: `${base}/`, formatz: ['x'] } });
  assert.equal(bad.isError, true, 'a tool error, not a protocol error');
  assert.match(textOf(bad), /^BAD_REQUEST: unknown field 'formatz'/);
  const failed = await client.callTool({ name: 'scrape', arguments: { url: 'http://127.0.0.1:1/' } });
  assert.equal(failed.isError, true);
  assert.match(textOf(failed), /^TARGET_UNREACHABLE: /);
}

describe('MCP server', () => {
  test('over stdio (pagewright mcp): tools, scrape, map, a crawl job; errors are tool errors', async (t) => {
    const site = await startCrawlSite({ bare: true });
    t.after(() => site.close());
    const client = await stdioClient(t);
    await exercise(client, `http://127.0.0.1:${site.port}`);
  });

  test('over Streamable HTTP at /mcp, behind API_KEYS', async (t) => {
    const site = await startCrawlSite({ bare: true });
    t.after(() => site.close());
    const svc = await startService(t, { env: { API_KEYS: 'mcp-key', CRAWL_MIN_DELAY_MS: '0' } });
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), {
        requestInit: { headers: { authorization: 'Bearer mcp-key' } },
      }),
    );
    t.after(() => client.close());
    await exercise(client, `http://127.0.0.1:${site.port}`);
    const anonymous = new Client({ name: 'test', version: '1.0.0' });
    await assert.rejects(anonymous.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`))));
  });

  test('a result over MCP_MAX_CHARS is cut with a note saying how to get the rest', async (t) => {
    const site = await startCrawlSite({ bare: true, padBytes: 5000 });
    t.after(() => site.close());
    const client = await stdioClient(t, { MCP_MAX_CHARS: '2000' });
    const reply = await client.callTool({
      name: 'scrape',
      arguments: { url: `http://127.0.0.1:${site.port}/gen/0` },
    });
    const text = textOf(reply);
    assert.ok(text.length < 2400);
    assert.match(text, /\[Cut at 2000 of \d+ characters \(MCP_MAX_CHARS\)/);
  });
});
