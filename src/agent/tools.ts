import { normalizeUrl } from '../crawl/normalize.js';
import type { Caller } from '../tenants/tenant.js';
import { BadRequestError, toAppError } from '../errors.js';
import type { LlmClient, LlmEndpoint } from '../extract/llm.js';
import { parseJsonAnswer } from '../extract/llm.js';
import type { ToolDefinition } from '../extract/llm-wire.js';
import { compileSchema, describeViolations } from '../extract/schema.js';
import { Deadline } from '../lib/deadline.js';
import type { Logger } from '../lib/logger.js';
import type { Services } from '../operations/services.js';
import type { SessionExecutor } from '../sessions/execute.js';
import { fenceNavigation } from './browser-fence.js';
import type { AgentRequest } from './request.js';
import { PAGE_CHARS } from './request.js';

/** What the tools run on: the operations every surface calls, and the server's LLM for `extract`. */
export interface AgentToolDeps {
  services: Pick<Services, 'scrape' | 'searchPages' | 'mapLinks' | 'sessions'>;
  /** Runs agent-browser commands in a session; null without Chromium (no `browser` tool then). */
  executor: SessionExecutor | null;
  llm: LlmClient;
  endpoint: LlmEndpoint;
  log: Logger;
}

/** What a tool call gave: the model's text, the pages it read (credits), tokens it cost. */
export interface ToolOutcome {
  ok: boolean;
  output: string;
  pages: string[];
  tokens: number;
  sessionId?: string;
}

/** What one call of a run's tools knows: whether pages may still be read. */
export interface ToolCallContext {
  /** False once the run's credits are spent: tools that read pages refuse. */
  mayRead: boolean;
  signal: AbortSignal;
}

/** What one run's tools know: its request, its owner, and the call's context. */
interface ToolContext extends ToolCallContext {
  request: AgentRequest;
  /** The run's owner (its job's): whose pages, sessions and usage the tools' work is. */
  caller: Caller;
}

/**
 * The tools of one run: those offered to the model, and the only ones `run` runs. A call of any other name
 * (one the model was never offered, as `search` on a strict run) answers the model that no such tool exists.
 */
export interface Toolbox {
  /** What the model is offered (`final_answer` included). */
  readonly offered: ToolDefinition[];
  /** Runs one call of the model (not `final_answer`); a failure is the model's to read, never a throw. */
  run(name: string, args: Record<string, unknown>, context: ToolCallContext): Promise<ToolOutcome>;
}

/** Time one tool call may take (a browser script included). */
const TOOL_TIMEOUT_MS = 90_000;
const SEARCH_MAX = 10;
const MAP_MAX = 200;

const fail = (output: string): ToolOutcome => ({ ok: false, output, pages: [], tokens: 0 });

/** The toolbox of a run of `request` for `caller` (the run's owner). */
export function toolboxFor(request: AgentRequest, caller: Caller, deps: AgentToolDeps): Toolbox {
  const offered = toolsFor(request, deps);
  const runnable = new Set(offered.map((t) => t.name).filter((name) => name !== 'final_answer'));
  return {
    offered,
    run: async (name, args, context) => {
      if (!runnable.has(name)) {
        deps.log.warn(
          {
            op: 'agent',
            tool: name.slice(0, 100),
            reason: 'not offered to this run',
            strict: request.strict,
          },
          'agent tool call refused',
        );
        return fail(`There is no tool named ${name.slice(0, 100)}.`);
      }
      return runTool(name, args, { ...context, request, caller }, deps);
    },
  };
}

/**
 * The tools offered to the model for a request: strict runs get no tool that reaches outside `urls` (no
 * `search` or `map`; `browser` fenced to them).
 */
function toolsFor(request: AgentRequest, deps: AgentToolDeps): ToolDefinition[] {
  const url = { type: 'string', description: 'An absolute http(s) URL.' };
  const tools: ToolDefinition[] = [];
  if (!request.strict) {
    tools.push(
      {
        name: 'search',
        description: 'Searches the web; answers titles, URLs and snippets of the results (no page is read).',
        parameters: {
          type: 'object',
          properties: {
            query: { type: 'string' },
            limit: { type: 'integer', minimum: 1, maximum: SEARCH_MAX },
          },
          required: ['query'],
        },
      },
      {
        name: 'map',
        description:
          "Lists a site's URLs (sitemaps and links), optionally those containing a word. One credit.",
        parameters: {
          type: 'object',
          properties: {
            url,
            search: { type: 'string' },
            limit: { type: 'integer', minimum: 1, maximum: MAP_MAX },
          },
          required: ['url'],
        },
      },
    );
  }
  tools.push({
    name: 'scrape',
    description: 'Reads one page and answers its main content as Markdown. One credit.',
    parameters: { type: 'object', properties: { url }, required: ['url'] },
  });
  if (request.schema) {
    tools.push({
      name: 'extract',
      description:
        "Reads one page and answers the data of the caller's schema found on it, as JSON. One credit.",
      parameters: {
        type: 'object',
        properties: { url, prompt: { type: 'string', description: 'What to look for on this page.' } },
        required: ['url'],
      },
    });
  }
  if (deps.executor) {
    tools.push({
      name: 'browser',
      description:
        'Opens a page in a browser and runs agent-browser commands on it (for pages that need clicks, typing or scrolling): e.g. "snapshot -i", "click @e3 && wait 1000 && get text body", "fill @e2 \\"query\\" && press Enter". Answers what the commands printed. One credit.' +
        (request.strict
          ? ' It cannot leave the pages this run may read: other navigations are refused.'
          : ''),
      parameters: {
        type: 'object',
        properties: { url, commands: { type: 'string' } },
        required: ['url', 'commands'],
      },
    });
  }
  tools.push(finalAnswerTool(request));
  return tools;
}

/** The tool that ends a run: its `data` follows the caller's schema. */
export function finalAnswerTool(request: AgentRequest): ToolDefinition {
  return {
    name: 'final_answer',
    description:
      'Ends the run with the answer. `data` is the result (it must follow the requested schema); `message` a short reply in prose; `sources` the URLs each top-level field of data was read on.',
    parameters: {
      type: 'object',
      properties: {
        data: request.schema ?? { type: 'object' },
        message: { type: 'string' },
        sources: {
          type: 'array',
          items: {
            type: 'object',
            properties: { field: { type: 'string' }, urls: { type: 'array', items: { type: 'string' } } },
            required: ['field', 'urls'],
          },
        },
      },
      required: request.mode === 'chat' ? ['message'] : ['data'],
    },
  };
}

/** Whether a strict run may read `url`: only the pages it was given. */
function allowed(url: string, context: ToolContext): boolean {
  if (!context.request.strict) return true;
  const wanted = normalizeUrl(url);
  return wanted !== null && context.request.urls.some((u) => normalizeUrl(u) === wanted);
}

/** Runs one call of a tool the run offered (not `final_answer`); a failure is the model's to read, never a throw. */
async function runTool(
  name: string,
  args: Record<string, unknown>,
  context: ToolContext,
  deps: AgentToolDeps,
): Promise<ToolOutcome> {
  const readsPages = name === 'map' || name === 'scrape' || name === 'extract' || name === 'browser';
  const url = typeof args.url === 'string' ? args.url : '';
  if (readsPages) {
    if (!context.mayRead) return fail('The credit limit of this run is reached: answer with what you have.');
    if (!url) return fail(`${name} needs "url"`);
    if (!allowed(url, context))
      return fail(
        `${url} is outside the URLs this run may read (strictConstrainToURLs): ${context.request.urls.join(', ')}`,
      );
  }
  const deadline = Deadline.after(TOOL_TIMEOUT_MS, context.signal);
  try {
    switch (name) {
      case 'search':
        return await search(String(args.query ?? ''), Number(args.limit ?? 5), context, deps);
      case 'map': {
        const links = await deps.services.mapLinks(
          {
            url,
            limit: Math.min(MAP_MAX, Math.max(1, Number(args.limit ?? 50) || 50)),
            ...(typeof args.search === 'string' && args.search ? { search: args.search.slice(0, 200) } : {}),
          },
          deadline,
          context.caller,
        );
        return {
          ok: true,
          output: links.map((l) => `${l.url}${l.title ? ` — ${l.title}` : ''}`).join('\n'),
          pages: [url],
          tokens: 0,
        };
      }
      case 'scrape': {
        const markdown = await pageMarkdown(url, context, deadline, deps);
        return { ok: true, output: `URL: ${url}\n\n${markdown}`, pages: [url], tokens: 0 };
      }
      case 'extract':
        return await extract(
          url,
          typeof args.prompt === 'string' ? args.prompt : undefined,
          context,
          deadline,
          deps,
        );
      case 'browser':
        return await browse(url, String(args.commands ?? ''), context, deps);
      default:
        return fail(`There is no tool named ${name}.`);
    }
  } catch (err) {
    if (context.signal.aborted) throw err;
    return fail(`${name} failed: ${toAppError(err).message}`);
  } finally {
    deadline.dispose();
  }
}

async function search(
  query: string,
  limit: number,
  context: ToolContext,
  deps: AgentToolDeps,
): Promise<ToolOutcome> {
  if (!query.trim()) return fail('search needs "query"');
  const n = Math.min(SEARCH_MAX, Math.max(1, Math.trunc(limit) || 5));
  const hits = await deps.services.searchPages(query.slice(0, 500), n, null, context.signal, context.caller);
  const output = hits
    .map((h, i) => `${i + 1}. ${h.hit.title}\n   ${h.hit.url}\n   ${h.hit.snippet}`)
    .join('\n');
  return { ok: true, output: output || 'No results.', pages: [], tokens: 0 };
}

async function pageMarkdown(
  url: string,
  context: ToolContext,
  deadline: Deadline,
  deps: AgentToolDeps,
): Promise<string> {
  const doc = await deps.services.scrape(
    { url, formats: ['markdown'], onlyMainContent: true },
    deadline,
    context.caller,
  );
  // A page of `urls` that redirected elsewhere: what it landed on is not the run's to read.
  if (!allowed(doc.metadata.url, context)) {
    throw new BadRequestError(
      `${url} redirected to ${doc.metadata.url}, outside the URLs this run may read (strictConstrainToURLs)`,
    );
  }
  const markdown = doc.markdown ?? '';
  return markdown.length > PAGE_CHARS
    ? `${markdown.slice(0, PAGE_CHARS)}\n\n[page cut at ${PAGE_CHARS} characters]`
    : markdown;
}

async function extract(
  url: string,
  prompt: string | undefined,
  context: ToolContext,
  deadline: Deadline,
  deps: AgentToolDeps,
): Promise<ToolOutcome> {
  const markdown = await pageMarkdown(url, context, deadline, deps);
  const schema = context.request.schema!;
  const answer = await deps.llm.chat(
    deps.endpoint,
    [
      {
        role: 'system',
        content:
          'You extract structured data from a web page. Answer with a single JSON object valid against the JSON Schema given, using only what the page says; leave out what it does not say.',
      },
      {
        role: 'user',
        content: `${prompt ?? context.request.prompt}\n\nJSON Schema:\n${JSON.stringify(schema)}\n\nURL: ${url}\n\nPage (Markdown):\n${markdown}`,
      },
    ],
    [],
    deadline,
    'agent',
  );
  const tokens = answer.usage.prompt + answer.usage.completion;
  let data: unknown;
  try {
    data = parseJsonAnswer(answer.content ?? '');
  } catch {
    return { ok: false, output: `extract on ${url}: the answer was not JSON`, pages: [url], tokens };
  }
  const validate = compileSchema(schema);
  const note = validate(data)
    ? ''
    : `\n(not yet valid against the schema: ${describeViolations(validate.errors).join('; ')})`;
  return {
    ok: true,
    output: `URL: ${url}\nData found:\n${JSON.stringify(data)}${note}`,
    pages: [url],
    tokens,
  };
}

/**
 * The browser tool: a session of its own for the call, ended with it. A strict run's session is fenced to its
 * URLs before the first command runs (browser-fence.ts); what the fence refused ends the answer.
 */
async function browse(
  url: string,
  commands: string,
  context: ToolContext,
  deps: AgentToolDeps,
): Promise<ToolOutcome> {
  if (!commands.trim()) return fail('browser needs "commands"');
  const { request, signal, caller } = context;
  const session = await deps.services.sessions.create({ ttl: 300, activityTtl: 120, owner: caller.tenant });
  try {
    const fence = request.strict
      ? await deps.services.sessions.withPage(session.id, caller, (page) =>
          fenceNavigation(page, (u) => allowed(u, context), request.urls),
        )
      : null;
    const quoted = `"${url.replace(/["\\]/g, '\\$&')}"`;
    const out = await deps.executor!.execute(
      session.id,
      { code: `open ${quoted} && ${commands}`, timeout: 60 },
      signal,
      caller,
    );
    const text = [out.stdout, out.stderr && `stderr: ${out.stderr}`].filter(Boolean).join('\n');
    let output = text.length > PAGE_CHARS ? `${text.slice(0, PAGE_CHARS)}\n[output cut]` : text;
    if (fence && fence.refused.length > 0) {
      deps.log.warn(
        {
          op: 'agent',
          tool: 'browser',
          refused: fence.refused.slice(0, 20),
          reason: 'outside urls (strict)',
        },
        'agent browser navigation refused',
      );
      output += `\nRefused, outside the URLs this run may read (strictConstrainToURLs): ${fence.refused.join(', ')}`;
    }
    return {
      ok: out.exitCode === 0,
      output: output || `(exit code ${out.exitCode})`,
      pages: [url],
      tokens: 0,
      sessionId: session.id,
    };
  } finally {
    await deps.services.sessions.end(session.id, 'deleted', caller).catch(() => undefined);
  }
}
