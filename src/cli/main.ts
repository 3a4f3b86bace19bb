#!/usr/bin/env node
import { OPEN_CALLER } from '../tenants/tenant.js';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TSchema } from 'typebox';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ConfigError, loadCliConfig } from '../config/config.js';
import type { Config } from '../config/config.js';
import { BadRequestError, toAppError } from '../errors.js';
import { createMcpServer } from '../interfaces/mcp.js';
import { CORE_OPERATIONS, CRAWL } from '../interfaces/operations.js';
import type { CrawlRequest } from '../interfaces/operations.js';
import { validate } from '../lib/validate.js';
import type { CrawlPage } from '../schemas/crawl.js';
import { buildApp } from '../app/server.js';
import type { Services } from '../operations/services.js';
import { bodyFromFlags, isBooleanFlag, splitArgs } from './args.js';
import { PROFILES_HELP, profilesCommand } from './profiles.js';
import { runService } from './service-process.js';

/** Flags of the command line itself, not fields of a request. */
const OWN_FLAGS = new Set(['api', 'json', 'output', 'help', 'schema']);
const COMMANDS = [
  'scrape',
  'crawl',
  'map',
  'search',
  'extract',
  'llmstxt',
  'parse',
  'profiles',
  'serve',
  'worker',
  'mcp',
];

/** Bad usage: exit code 2, with the message on stderr. */
class UsageError extends Error {}

const HELP: Record<string, string> = {
  '': `pagewright: web pages to LLM-ready Markdown

  pagewright scrape URL [--formats markdown,links] [--only-main-content] [--engine browser] [--json]
  pagewright crawl URL [--limit 50] [--max-depth 2] [--output DIR] [--json]
  pagewright map URL [--search TEXT] [--limit N]
  pagewright search QUERY [--limit N] [--scrape-results]
  pagewright extract URL... --schema FILE [--prompt TEXT] [--llm-base-url URL] [--selectors JSON]
  pagewright llmstxt URL [--max-urls N]
  pagewright parse FILE [--only-main-content] [--formats markdown,html]
  pagewright profiles list | show NAME | delete NAME
  pagewright serve | worker | mcp

Runs in this process (no server needed); --api URL sends the same request to a running service.
Every request field is a flag: --only-main-content, --include-tags a,b, --headers '{"Cookie":"x"}'.
Exit codes: 0 done, 1 the operation failed, 2 bad usage. pagewright COMMAND --help for one command.`,
  scrape:
    'pagewright scrape URL [request fields as flags]: the page as Markdown on stdout (--json: the whole answer).',
  crawl:
    'pagewright crawl URL [--limit N] [--max-depth N] [--include-paths a,b] [--output DIR]: pages as they come; --output DIR writes one .md per page and index.json. Ctrl-C stops and keeps what was written.',
  map: 'pagewright map URL [--search TEXT] [--limit N] [--include-subdomains=false]: one URL per line.',
  search:
    'pagewright search QUERY [--limit N] [--scrape-results]: results as a Markdown list (--json: the whole answer).',
  extract:
    'pagewright extract URL... --schema FILE [--prompt TEXT] [--llm-base-url URL --llm-model M] [--selectors JSON] [--mode css|llm|auto]: JSON on stdout.',
  llmstxt: 'pagewright llmstxt URL [--max-urls N] [--show-full-text]: the llms.txt on stdout.',
  parse:
    'pagewright parse FILE [--only-main-content] [--formats ...]: a local file (PDF, Word, Excel, PowerPoint, HTML, Markdown, text) as Markdown on stdout.',
  profiles: PROFILES_HELP,
  serve:
    'pagewright serve: the HTTP API (as npm start), configured by the environment (docs/reference/configuration.md).',
  worker: 'pagewright worker: works jobs from Redis (REDIS_URL), as npm run worker.',
  mcp: 'pagewright mcp: the MCP server over stdio, for agents (Claude Desktop, Cursor...).',
};

/** The in-process service: the app without a listener, logging to stderr (stdout is the output). */
async function localServices(): Promise<{ services: Services; config: Config; close: () => Promise<void> }> {
  // Jobs started here keep their documents in the user's home, not wherever the command runs.
  const config = loadCliConfig();
  const app = await buildApp({ config, logger: { level: 'warn', stream: process.stderr } });
  await app.ready();
  return { services: app.services, config, close: () => app.close() };
}

/** A route of a running service: POST with a JSON body, or GET and DELETE without one. */
async function callApi(
  api: string,
  route: string,
  body: unknown,
  signal: AbortSignal,
  method: 'POST' | 'GET' | 'DELETE' = 'POST',
): Promise<unknown> {
  const headers: Record<string, string> = method === 'POST' ? { 'content-type': 'application/json' } : {};
  const { apiKey } = loadCliConfig();
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  const res = await fetch(new URL(route, api), {
    method,
    headers,
    ...(method === 'POST' ? { body: JSON.stringify(body) } : {}),
    signal,
  });
  const json = (await res.json().catch(() => ({}))) as { success?: boolean; code?: string; error?: string };
  if (!res.ok) {
    const e = new Error(json.error ?? `HTTP ${res.status}`) as Error & { code?: string; status?: number };
    e.code = json.code ?? `HTTP_${res.status}`;
    e.status = res.status;
    throw e;
  }
  return json;
}

/** A page's file under DIR, from its URL: /docs/a → docs/a.md, / → index.md; the query kept as a suffix. */
export function fileFor(dir: string, url: string): string {
  const u = new URL(url);
  let name = decodeURIComponent(u.pathname).replace(/\/+$/, '').replace(/^\/+/, '') || 'index';
  name = name.replace(/[^\w./-]+/g, '_').replace(/\.\.+/g, '_');
  if (u.search) name += `_${u.search.slice(1).replace(/[^\w-]+/g, '_')}`;
  return path.join(dir, u.host.replace(/[^\w.-]+/g, '_'), `${name}.md`);
}

function printResult(command: string, result: unknown, json: boolean): void {
  if (json) return void process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  const r = result as { data?: unknown; links?: string[] };
  switch (command) {
    case 'scrape':
    case 'parse': {
      const doc = r.data as { markdown?: string };
      if (doc.markdown !== undefined) return void process.stdout.write(`${doc.markdown}\n`);
      break;
    }
    case 'map':
      return void process.stdout.write(`${(r.links ?? []).join('\n')}\n`);
    case 'search': {
      const hits = r.data as { title: string; url: string; snippet: string }[];
      return void process.stdout.write(
        hits.map((h) => `- [${h.title}](${h.url})\n  ${h.snippet}`).join('\n') + '\n',
      );
    }
    case 'llmstxt':
      return void process.stdout.write(`${(r.data as { llmstxt: string }).llmstxt}\n`);
  }
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

/** Crawls, printing pages (or writing them under --output) as they come, progress on stderr when a TTY. */
async function crawl(
  body: CrawlRequest,
  opts: { api?: string; output?: string; json: boolean },
  signal: AbortSignal,
): Promise<number> {
  const pages: CrawlPage[] = [];
  const errors: { url: string; code: string; error: string }[] = [];
  const index: { url: string; title: string; file: string }[] = [];
  const started = Date.now();
  const tty = process.stderr.isTTY === true;
  const keep = (page: CrawlPage): void => {
    if (opts.output) {
      const file = fileFor(opts.output, page.url);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, page.markdown ?? '');
      index.push({ url: page.url, title: page.title, file: path.relative(opts.output, file) });
      writeFileSync(path.join(opts.output, 'index.json'), JSON.stringify(index, null, 2));
    } else if (opts.json) {
      pages.push(page);
    } else {
      process.stdout.write(`<!-- ${page.url} -->\n${page.markdown ?? ''}\n\n`);
    }
  };
  if (opts.output) mkdirSync(opts.output, { recursive: true });
  if (opts.api) {
    const reply = (await callApi(opts.api, CRAWL.api, body, signal)) as {
      data: CrawlPage[];
      errors: typeof errors;
    };
    reply.data.forEach(keep);
    errors.push(...reply.errors);
  } else {
    const local = await localServices();
    try {
      let done = 0;
      for await (const event of local.services.crawl(body, signal, OPEN_CALLER)) {
        if (event.type === 'document') {
          done++;
          keep(event.data);
        } else if (event.type === 'error') {
          errors.push({ url: event.url, code: event.code, error: event.error });
        } else if (event.type === 'status' && tty) {
          const rate = (done / Math.max(0.001, (Date.now() - started) / 1000)).toFixed(1);
          process.stderr.write(
            `\r\x1b[K${done} done, ${event.queued} queued, ${rate}/s  ${event.current_url}`.slice(0, 200),
          );
        }
      }
    } finally {
      if (tty) process.stderr.write('\r\x1b[K');
      await local.close();
    }
  }
  if (opts.json && !opts.output)
    process.stdout.write(`${JSON.stringify({ success: true, data: pages, errors }, null, 2)}\n`);
  for (const e of errors) process.stderr.write(`${e.code} ${e.url}: ${e.error}\n`);
  if (signal.aborted) process.stderr.write('stopped: what was crawled so far is kept\n');
  return 0;
}

async function run(argv: string[], signal: AbortSignal): Promise<number> {
  const command = argv[0] ?? '';
  if (command === '' || command === '--help' || command === 'help') {
    process.stdout.write(`${HELP['']}\n`);
    return command === '' ? 2 : 0;
  }
  if (!COMMANDS.includes(command))
    throw new UsageError(`unknown command '${command}' (${COMMANDS.join(', ')})`);
  const operation = CORE_OPERATIONS.find((o) => o.name === command);
  const schema: TSchema | null = command === 'crawl' ? CRAWL.schema : (operation?.schema ?? null);
  const { positionals, flags } = splitArgs(
    argv.slice(1),
    (flag) => flag === 'json' || flag === 'help' || isBooleanFlag(schema, flag),
  );
  const own = Object.fromEntries(flags.filter(([f]) => OWN_FLAGS.has(f)));
  if (own.help) {
    process.stdout.write(`${HELP[command]}\n`);
    return 0;
  }
  // These three keep running: the process ends with them, not with an exit code from here.
  if (command === 'serve' || command === 'worker') {
    await runService(command === 'serve' ? 'main' : 'worker');
    return -1;
  }
  if (command === 'mcp') {
    const local = await localServices();
    const transport = new StdioServerTransport();
    transport.onclose = () => void local.close().then(() => process.exit(0));
    await createMcpServer(local.services.tools, local.config.mcpMaxChars, OPEN_CALLER).connect(transport);
    return -1;
  }
  if (command === 'profiles') {
    const api = typeof own.api === 'string' ? own.api : undefined;
    const call = api
      ? (method: 'GET' | 'DELETE', route: string) => callApi(api, route, undefined, signal, method)
      : undefined;
    return profilesCommand(positionals, { call, json: own.json === true }, localServices);
  }
  const body = bodyFromFlags(
    schema!,
    flags.filter(([f]) => !OWN_FLAGS.has(f)),
  );
  if (
    command === 'search' ||
    command === 'map' ||
    command === 'scrape' ||
    command === 'crawl' ||
    command === 'llmstxt'
  ) {
    if (positionals.length !== 1)
      throw new UsageError(`${command} takes one ${command === 'search' ? 'QUERY' : 'URL'}`);
    body[command === 'search' ? 'query' : 'url'] = positionals[0];
  } else if (command === 'parse') {
    if (positionals.length !== 1) throw new UsageError('parse takes one FILE');
    body.filename = path.basename(positionals[0]!);
    body.content = readFileSync(positionals[0]!).toString('base64');
  } else if (command === 'extract') {
    if (positionals.length === 0) throw new UsageError('extract takes one or more URLs');
    body.urls = positionals;
    if (typeof own.schema === 'string') body.schema = JSON.parse(readFileSync(own.schema, 'utf8')) as unknown;
  }
  const api = typeof own.api === 'string' ? own.api : undefined;
  const json = own.json === true;
  if (command === 'crawl') {
    const request = validate<CrawlRequest>(schema!, body);
    return crawl(
      request,
      { api, output: typeof own.output === 'string' ? own.output : undefined, json },
      signal,
    );
  }
  const input = validate<never>(schema!, body);
  if (api) {
    if (!operation!.api) throw new UsageError(`${command} runs in this process only (no --api)`);
    printResult(command, await callApi(api, operation!.api, input, signal), json);
    return 0;
  }
  const local = await localServices();
  try {
    const tool = local.services.tools.find((t) => t.name === command)!;
    printResult(command, await tool.run(input, signal, OPEN_CALLER), json);
  } finally {
    await local.close();
  }
  return 0;
}

const controller = new AbortController();
process.once('SIGINT', () => controller.abort());
// A reader that went away (`| head`) ends the work quietly, as other commands do.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  controller.abort();
  process.exit(0);
});
// The service's timers (politeness delays, deadlines) do not keep a process alive, since a server has its
// listener for that; a command has only its work, so it holds the process open while that runs.
const alive = setInterval(() => undefined, 60_000);
try {
  const code = await run(process.argv.slice(2), controller.signal);
  clearInterval(alive);
  if (code >= 0) process.exit(code);
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`Configuration error: ${err.message}\n`);
    process.exit(2);
  }
  if (err instanceof UsageError || err instanceof BadRequestError || err instanceof SyntaxError) {
    process.stderr.write(`pagewright: ${err.message}\n`);
    process.exit(2);
  }
  const api = err as { code?: string; status?: number; message: string };
  if (api.status !== undefined) {
    process.stderr.write(`${api.code}: ${api.message}\n`);
    process.exit(api.status === 400 ? 2 : 1);
  }
  const e = toAppError(err);
  process.stderr.write(`${e.code}: ${e.message}\n`);
  process.exit(e.status === 400 ? 2 : 1);
}
