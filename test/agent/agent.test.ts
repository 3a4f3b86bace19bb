import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import type { AgentStatusResponse } from '@mendable/firecrawl-js';
import { firecrawlMcp } from '../fixtures/firecrawl-mcp.js';
import { startFactsSite } from '../fixtures/sites/facts-site.js';
import { startLlmStub } from '../fixtures/llm-stub.js';
import { REDIS_MISSING, redisAvailable, startRedis } from '../fixtures/redis.js';
import { startSearchStub } from '../fixtures/search-stub.js';
import { until } from '../fixtures/until.js';
import { startService } from '../helpers.js';
import {
  FACTS,
  FACTS_SCHEMA,
  agentTurns,
  researchThenFollowUp,
  messagesOf,
  researchScript,
  toolAnswers,
  toolNamesOf,
} from './script.js';

/**
 * The research agent through Firecrawl's routes and its real clients (the SDK, firecrawl-mcp over stdio), on
 * the LLM stub's scripted tool calls, the search stub and a loopback site: a run, a follow-up on its thread,
 * the credit limit, cancel, a schema the model never meets, strict URLs, no LLM.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function setup(t: TestContext, env: Record<string, string> = {}) {
  const site = await startFactsSite();
  t.after(() => site.close());
  const search = await startSearchStub();
  t.after(() => search.close());
  search.hits = [
    { title: 'Acme history', url: `${site.url}/founder`, snippet: 'Acme Rockets was founded in 1999' },
    { title: 'Acme offices', url: `${site.url}/hq`, snippet: 'The headquarters of Acme Rockets' },
  ];
  const llm = await startLlmStub();
  t.after(() => llm.close());
  const svc = await startService(t, {
    env: { OPENAI_BASE_URL: llm.url, MODEL_NAME: 'stub-model', SEARXNG_URL: `${search.url}/searxng`, ...env },
  });
  const fc = new Firecrawl({ apiKey: 'test', apiUrl: svc.url });
  const status = (id: string) => fc.getAgentStatus(id);
  const ended = (id: string) =>
    until(
      () => status(id),
      (s) => s.status !== 'processing',
    );
  return { site, search, llm, svc, fc, ended };
}

describe('the research agent (/v2/agent)', () => {
  test('a run: search, scrape two pages, fill the schema; status, sources, trace, list, tokens', async (t) => {
    const { site, llm, svc, fc } = await setup(t);
    llm.reply = researchScript(site.url);
    const done = (await fc.agent({
      prompt: 'Who founded Acme Rockets, when, and where is it based?',
      schema: FACTS_SCHEMA,
      pollInterval: 0.2,
      timeout: 120,
    })) as AgentStatusResponse & { id: string; sources: Record<string, string[]> };
    assert.equal(done.status, 'completed', done.error);
    assert.deepEqual(done.data, FACTS);
    assert.equal(done.creditsUsed, 2);
    assert.equal(done.model, 'stub-model');
    assert.equal(done.mode, 'extract');
    assert.equal(done.threadTurn, 1);
    assert.deepEqual(done.sources.founder, [`${site.url}/founder`], 'named by the model, unread URL dropped');
    assert.deepEqual(done.sources.city, [`${site.url}/hq`], 'found by its value in the page read');
    assert.deepEqual(done.sources.founded, [`${site.url}/founder`]);
    assert.equal(site.hits.get('/founder'), 1);
    assert.equal(site.hits.get('/hq'), 1);
    // The loop offered its tools by name, and the model read the pages' text.
    const turns = agentTurns(llm.requests);
    assert.equal(turns.length, 3);
    const browser = existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium') ? ['browser'] : [];
    assert.deepEqual(toolNamesOf(turns[0]!), [
      'search',
      'map',
      'scrape',
      'extract',
      ...browser,
      'final_answer',
    ]);
    const seen = messagesOf(turns[2]!)
      .filter((m) => m.role === 'tool')
      .map((m) => m.content)
      .join('\n');
    assert.match(seen, /founded in 1999 by Jane Doe/);
    assert.match(seen, /headquarters of Acme Rockets are in Lisbon/);

    const id = done.id ?? (await fc.listAgents()).agents![0]!.id;
    const trace = await fc.getAgentTrace(id);
    const calls = trace.events!.filter((e) => e.type === 'tool_call.finished') as {
      toolName: string;
      result: { outcome: string; durationMs: number };
    }[];
    assert.deepEqual(
      calls.map((c) => c.toolName),
      ['search', 'scrape', 'scrape', 'final_answer'],
    );
    assert.ok(calls.every((c) => c.result.outcome === 'ok' && c.result.durationMs >= 0));
    const started = trace.events!.find((e) => e.type === 'tool_call.started') as { parameters: unknown };
    assert.deepEqual(started.parameters, { query: 'Acme Rockets founder headquarters' });
    assert.equal(trace.events!.at(-1)!.type, 'run.finished');

    const list = await fc.listAgents();
    assert.equal(list.agents![0]!.id, id);
    assert.equal(list.agents![0]!.status, 'completed');
    assert.equal(list.agents![0]!.options!.prompt, 'Who founded Acme Rockets, when, and where is it based?');
    assert.deepEqual((await fc.listAgents({ before: Date.parse(list.agents![0]!.createdAt) })).agents, []);

    const metrics = await (await fetch(`${svc.url}/metrics`)).text();
    assert.match(metrics, /pagewright_llm_tokens_total\{purpose="agent",kind="prompt"\} 30/);
    const usage = (await (await fetch(`${svc.url}/v2/team/token-usage`)).json()) as {
      data: { tokensUsed: number };
    };
    assert.equal(usage.data.tokensUsed, 60);
  });

  test('a follow-up on the thread carries the previous result; chat mode answers in message', async (t) => {
    const { site, llm, fc, ended } = await setup(t);
    const { first, second, answer } = await researchThenFollowUp(fc, llm, site.url, ended);
    assert.equal(second.threadId, first.threadId);
    assert.equal(second.threadTurn, 2);
    assert.equal(answer.status, 'completed', answer.error);
    assert.equal(answer.message, 'Jane Doe founded it in 1999.');
    assert.equal(answer.mode, 'chat');
    const thread = await fc.getAgentThread(first.threadId!, { includeData: true });
    assert.deepEqual(
      thread.thread!.runs.map((r) => [r.turn, r.status, r.mode]),
      [
        [1, 'succeeded', 'extract'],
        [2, 'succeeded', 'chat'],
      ],
    );
    assert.deepEqual(thread.thread!.runs[0]!.data, FACTS);
    assert.equal(thread.thread!.status, 'idle');
    // The follow-up kept the thread's schema and read no page: its conversation held the first result.
    assert.equal(agentTurns(llm.requests).at(-1)!.body.tools !== undefined, true);
  });

  test('maxCredits stops reading pages; the run completes with what it has', async (t) => {
    const { site, llm, fc, ended } = await setup(t);
    let lastTools: string[] = [];
    llm.reply = (req) => {
      lastTools = toolNamesOf(req);
      if (toolAnswers(req) === 0)
        return {
          toolCalls: [
            { name: 'scrape', arguments: { url: `${site.url}/founder` } },
            { name: 'scrape', arguments: { url: `${site.url}/hq` } },
          ],
        };
      return {
        toolCalls: [
          {
            name: 'final_answer',
            arguments: { data: { founder: 'Jane Doe', founded: 1999, city: 'unknown' } },
          },
        ],
      };
    };
    const run = await fc.startAgent({
      prompt: 'Acme facts',
      schema: FACTS_SCHEMA,
      urls: [`${site.url}/founder`],
      maxCredits: 1,
    });
    const done = await ended(run.id);
    assert.equal(done.status, 'completed', done.error);
    assert.equal(done.creditsUsed, 1);
    assert.equal(site.hits.get('/hq') ?? 0, 0, 'the second page was never fetched');
    assert.deepEqual(lastTools, ['final_answer'], 'past the limit only the final answer is offered');
    const thread = await fc.getAgentThread(run.threadId!);
    assert.equal(thread.thread!.runs[0]!.status, 'credit_limit_reached');
  });

  test('MAX_AGENT_TOKENS: past 80 % only final_answer is offered; at 100 % the run fails saying so', async (t) => {
    const { llm, fc, ended } = await setup(t, { MAX_AGENT_TOKENS: '1000' });
    const offered: string[][] = [];
    llm.reply = (req) => {
      offered.push(toolNamesOf(req));
      return offered.length === 1
        ? {
            toolCalls: [{ name: 'search', arguments: { query: 'acme' } }],
            usage: { prompt: 700, completion: 150 },
          }
        : { toolCalls: [{ name: 'final_answer', arguments: { data: { ok: true } } }] };
    };
    const done = await ended((await fc.startAgent({ prompt: 'x' })).id);
    assert.equal(done.status, 'completed', done.error);
    assert.deepEqual(offered[1], ['final_answer']);
    llm.reply = () => ({
      toolCalls: [{ name: 'search', arguments: { query: 'acme' } }],
      usage: { prompt: 900, completion: 200 },
    });
    const spent = await ended((await fc.startAgent({ prompt: 'y' })).id);
    assert.equal(spent.status, 'failed');
    assert.match(spent.error!, /used its 1000 tokens \(MAX_AGENT_TOKENS\)/);
  });

  test('cancel ends the run within seconds with no further LLM call; it reads as failed: Cancelled', async (t) => {
    const { llm, fc, ended } = await setup(t);
    llm.reply = () => ({ delayMs: 60_000, text: '{}' });
    const run = await fc.startAgent({ prompt: 'Take your time' });
    await until(
      async () => llm.requests.length,
      (n) => n === 1,
    );
    assert.equal(await fc.cancelAgent(run.id), true);
    const done = await ended(run.id);
    assert.equal(done.status, 'failed');
    assert.equal(done.error, 'Cancelled');
    await sleep(300);
    assert.equal(llm.requests.length, 1);
    const trace = await fc.getAgentTrace(run.id);
    assert.deepEqual(
      trace.events!.slice(-1).map((e) => [e.type, (e as { outcome?: string }).outcome]),
      [['run.finished', 'cancelled']],
    );
  });

  test('a result that never follows the schema fails the run saying why, within the effort budget', async (t) => {
    const { llm, fc, ended } = await setup(t);
    llm.reply = () => ({ toolCalls: [{ name: 'final_answer', arguments: { data: { founder: 42 } } }] });
    const run = await fc.startAgent({ prompt: 'Acme facts', schema: FACTS_SCHEMA, effort: 'low' });
    const done = await ended(run.id);
    assert.equal(done.status, 'failed');
    assert.match(done.error!, /6 steps \(effort low\)/);
    assert.equal(agentTurns(llm.requests).length, 6);
    const refused = messagesOf(llm.requests.at(-1)!).filter((m) => m.role === 'tool');
    assert.match(String(refused.at(-1)!.content), /does not follow the schema/);
  });

  test('strictConstrainToURLs: no search or map offered; a page outside urls is never fetched', async (t) => {
    const { site, llm, fc, ended } = await setup(t);
    let tools: string[] = [];
    llm.reply = (req) => {
      tools = toolNamesOf(req);
      if (toolAnswers(req) === 0)
        return {
          toolCalls: [
            { name: 'scrape', arguments: { url: `${site.url}/hq` } },
            { name: 'scrape', arguments: { url: `${site.url}/founder` } },
          ],
        };
      return { text: JSON.stringify({ founder: 'Jane Doe', founded: 1999, city: 'unknown' }) };
    };
    const run = await fc.startAgent({
      prompt: 'Acme facts',
      schema: FACTS_SCHEMA,
      urls: [`${site.url}/founder`],
      strictConstrainToURLs: true,
    });
    const done = await ended(run.id);
    assert.equal(done.status, 'completed', done.error);
    assert.deepEqual(
      done.data,
      { founder: 'Jane Doe', founded: 1999, city: 'unknown' },
      'ended by the model text',
    );
    const browser = existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium') ? ['browser'] : [];
    assert.deepEqual(tools, ['scrape', 'extract', ...browser, 'final_answer'], 'browser fenced to urls');
    assert.equal(site.hits.get('/hq') ?? 0, 0);
    assert.equal(site.hits.get('/founder'), 1);
  });

  test('fields this server cannot serve are told in message, never a 400; bad input is a 400 naming the field', async (t) => {
    const { llm, fc, svc, ended } = await setup(t);
    llm.reply = () => ({ toolCalls: [{ name: 'final_answer', arguments: { data: { ok: true } } }] });
    const run = await fc.startAgent({
      prompt: 'x',
      model: 'spark-1-pro',
      exchange: { enabled: true, toolkits: ['finance'] },
    });
    const done = (await ended(run.id)) as AgentStatusResponse & { exchange?: { enabled: boolean } };
    assert.equal(done.status, 'completed');
    assert.match(done.message!, /Alexandria providers \(exchange\)/);
    assert.match(done.message!, /this server's model \(stub-model\)/);
    assert.equal(done.exchange!.enabled, false);
    const bad = await svc.post('/v2/agent', { prompt: 'x', urls: ['ftp://a'] });
    assert.equal(bad.status, 400);
    assert.match(String(bad.json.error), /urls\[0\]/);
    const strict = await svc.post('/v2/agent', { prompt: 'x', strictConstrainToURLs: true });
    assert.match(String(strict.json.error), /strictConstrainToURLs/);
    const unknown = await fetch(`${svc.url}/v2/agent/threads/00000000-0000-4000-8000-000000000000`);
    assert.equal(unknown.status, 404);
  });

  test('the browser tool: a fact behind a click, read through a session that ends with the call', async (t) => {
    if (!existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'))
      return t.skip('chromium is not installed');
    const { site, llm, fc, ended } = await setup(t);
    llm.reply = (req) =>
      toolAnswers(req) === 0
        ? {
            toolCalls: [
              {
                name: 'browser',
                arguments: { url: `${site.url}/reveal`, commands: 'click "#show" && get text "#secret"' },
              },
            ],
          }
        : { toolCalls: [{ name: 'final_answer', arguments: { data: { ceo: 'Ada Park' } } }] };
    const run = await fc.startAgent({ prompt: 'Who is the CEO of Acme Rockets?' });
    const done = (await ended(run.id)) as AgentStatusResponse & { sources: Record<string, string[]> };
    assert.equal(done.status, 'completed', done.error);
    assert.deepEqual(done.sources.ceo, [`${site.url}/reveal`]);
    const seen = messagesOf(llm.requests.at(-1)!).find((m) => m.role === 'tool')!.content;
    assert.match(String(seen), /The CEO of Acme Rockets is Ada Park/);
    const trace = await fc.getAgentTrace(run.id);
    const types = trace.events!.map((e) => e.type);
    assert.ok(types.includes('browser.session.started') && types.includes('browser.session.finished'));
  });

  test(
    'on Redis: the run is a fleet job, its steps in Redis',
    { skip: redisAvailable ? false : REDIS_MISSING },
    async (t) => {
      const redis = await startRedis();
      const { site, llm, fc, ended } = await setup(t, { REDIS_URL: redis.url });
      t.after(() => redis.close()); // after the service closed its connections (hooks run in order)
      llm.reply = researchScript(site.url);
      // The store's connection opens as the service starts: a 503 until then.
      const run = await until(
        () =>
          fc.startAgent({ prompt: 'Acme facts', schema: FACTS_SCHEMA }).catch((err: { status?: number }) => {
            if (err.status !== 503) throw err;
            return null;
          }),
        (started) => started !== null,
      );
      const done = await ended(run!.id);
      assert.equal(done.status, 'completed', done.error);
      assert.deepEqual(done.data, FACTS);
      assert.equal((await fc.getAgentThread(run!.threadId!)).thread!.runs.length, 1);
    },
  );

  test('without the server LLM every agent route is a 400 naming OPENAI_BASE_URL', async (t) => {
    const svc = await startService(t);
    const res = await svc.post('/v2/agent', { prompt: 'x' });
    assert.equal(res.status, 400);
    assert.match(String(res.json.error), /OPENAI_BASE_URL/);
    const list = await fetch(`${svc.url}/v2/agent`);
    assert.equal(list.status, 400);
  });

  test("firecrawl-mcp's firecrawl_agent and firecrawl_agent_status over stdio", async (t) => {
    const { site, llm, svc } = await setup(t);
    llm.reply = researchScript(site.url);
    const client = await firecrawlMcp(t, svc.url, 'test');
    type Reply = {
      isError?: boolean;
      content: { text: string }[];
      structuredContent?: Record<string, unknown>;
    };
    const started = (await client.callTool({
      name: 'firecrawl_agent',
      arguments: { prompt: 'Who founded Acme Rockets?', schema: FACTS_SCHEMA },
    })) as Reply;
    assert.ok(!started.isError, started.content[0]?.text);
    const id = String(JSON.parse(started.content[0]!.text).id);
    const status = await until(
      async () => (await client.callTool({ name: 'firecrawl_agent_status', arguments: { id } })) as Reply,
      (r) => r.isError === true || JSON.parse(r.content[0]!.text).status !== 'processing',
    );
    assert.ok(!status.isError, status.content[0]?.text);
    const body = JSON.parse(status.content[0]!.text) as Record<string, unknown>;
    assert.equal(body.status, 'completed');
    assert.deepEqual(body.data, FACTS);
  });
});
