import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import { startLlmStub } from '../fixtures/llm-stub.js';
import type { LlmRequest, StubReply } from '../fixtures/llm-stub.js';
import { startSearchStub } from '../fixtures/search-stub.js';
import { until } from '../fixtures/until.js';
import { startService } from '../helpers.js';
import { messagesOf } from '../agent/script.js';

/**
 * A research agent run whose model calls what it was not offered, or steers the browser tool off the run's
 * URLs (strictConstrainToURLs): nothing outside them is requested, and the model reads why.
 */

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const noChromium = existsSync(chromiumPath) ? false : `chromium is not installed at ${chromiumPath}`;

interface Recorder {
  url: string;
  paths: string[];
}

/** A loopback server answering `pages` by path (a function: its status and headers too), recording each path. */
async function startServer(
  t: TestContext,
  pages: Record<string, string | ((base: string) => { status: number; headers: Record<string, string> })>,
): Promise<Recorder> {
  const recorder: Recorder = { url: '', paths: [] };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    recorder.paths.push(path);
    const page = pages[path];
    if (typeof page === 'function') {
      const { status, headers } = page(recorder.url);
      return void res.writeHead(status, headers).end();
    }
    res.writeHead(page === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page ?? '<title>Not found</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  recorder.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return recorder;
}

/** The model's turns (its calls, by how many times it has answered so far); past them, a final answer. */
const scripted =
  (turns: StubReply['toolCalls'][]) =>
  (req: LlmRequest): StubReply => {
    const turn = messagesOf(req).filter((m) => m.role === 'assistant').length;
    return turn < turns.length
      ? { toolCalls: turns[turn] }
      : { toolCalls: [{ name: 'final_answer', arguments: { data: { done: true } } }] };
  };

async function setup(t: TestContext, turns: StubReply['toolCalls'][]) {
  const search = await startSearchStub();
  t.after(() => search.close());
  const llm = await startLlmStub();
  t.after(() => llm.close());
  llm.reply = scripted(turns);
  const logLines: string[] = [];
  const svc = await startService(t, {
    env: { OPENAI_BASE_URL: llm.url, MODEL_NAME: 'stub-model', SEARXNG_URL: `${search.url}/searxng` },
    logLines,
  });
  /** Starts a strict run on `urls` and waits for its end; answers its status and the tool answers the model read. */
  const run = async (urls: string[]) => {
    const started = await svc.post('/v2/agent', {
      prompt: 'Find the facts',
      urls,
      strictConstrainToURLs: true,
    });
    assert.equal(started.status, 200, JSON.stringify(started.json));
    const status = await until(
      async () =>
        (await (await fetch(`${svc.url}/v2/agent/${String(started.json.id)}`)).json()) as Record<
          string,
          unknown
        >,
      (s) => s.status !== 'processing',
    );
    const answers = messagesOf(llm.requests.at(-1)!)
      .filter((m) => m.role === 'tool')
      .map((m) => String(m.content));
    return { status, answers };
  };
  return { search, llm, svc, logLines, run };
}

describe('the research agent runs only the tools it offered', () => {
  test('a strict run whose model calls search and map: neither runs; the model reads that no such tool exists', async (t) => {
    const site = await startServer(t, { '/facts': '<title>Facts</title><p>Acme was founded in 1999.</p>' });
    const { search, logLines, run } = await setup(t, [
      [
        { name: 'search', arguments: { query: 'acme founded' } },
        { name: 'map', arguments: { url: `${site.url}/facts` } },
      ],
    ]);
    const { status, answers } = await run([`${site.url}/facts`]);
    assert.equal(status.status, 'completed', String(status.error));
    assert.deepEqual(search.requests, [], 'the search provider was never asked');
    assert.deepEqual(site.paths, [], 'the site was never mapped (no sitemap, robots.txt or page read)');
    assert.deepEqual(answers, ['There is no tool named search.', 'There is no tool named map.']);
    const refused = logLines.filter((line) => line.includes('agent tool call refused'));
    assert.equal(refused.length, 2);
    assert.match(refused[0]!, /"reason":"not offered to this run"/);
  });
});

describe("a strict run's browser tool stays within its urls", { skip: noChromium }, () => {
  test('open, a redirect, a clicked link, a form and a popup to outside are refused before any request; an allowed redirect is followed', async (t) => {
    const outside = await startServer(t, { '/': '<title>Outside</title>' });
    const out = (path: string): string => `${outside.url}${path}`;
    const site = await startServer(t, {
      '/start': `<title>Start</title><p>Allowed page.</p>
        <a id="link" href="${out('/clicked')}">elsewhere</a>
        <form id="form" action="${out('/posted')}" method="post"><button id="send">Send</button></form>
        <button id="popup" onclick="window.open('${out('/popup')}')">Open</button>
        <button id="popup-hop" onclick="window.open('/hop')">Open a hop</button>
        <button id="fetch" onclick="fetch('${out('/fetched')}').catch(() => {})">Fetch</button>`,
      '/hop': () => ({ status: 302, headers: { location: out('/redirected') } }),
      '/hop-in': (base) => ({ status: 302, headers: { location: `${base}/start` } }),
    });
    const start = `${site.url}/start`;
    const { run } = await setup(t, [
      [
        { name: 'browser', arguments: { url: start, commands: `open ${out('/opened')}` } },
        { name: 'browser', arguments: { url: `${site.url}/hop`, commands: 'get url' } },
        { name: 'browser', arguments: { url: start, commands: 'click "#link" && wait 300 && get url' } },
      ],
      [
        { name: 'browser', arguments: { url: start, commands: 'click "#send" && wait 300' } },
        {
          name: 'browser',
          arguments: {
            url: start,
            commands: 'click "#popup" && click "#popup-hop" && click "#fetch" && wait 500',
          },
        },
        { name: 'browser', arguments: { url: `${site.url}/hop-in`, commands: 'get url' } },
      ],
    ]);
    const { status, answers } = await run([start, `${site.url}/hop`, `${site.url}/hop-in`]);
    assert.equal(status.status, 'completed', String(status.error));
    assert.deepEqual(outside.paths, [], 'the outside server saw no request');
    assert.equal(answers.length, 6, answers.join('\n---\n'));
    const refusals = ['/opened', '/redirected', '/clicked', '/posted', '/popup'];
    for (const [i, path] of refusals.entries()) {
      assert.match(
        answers[i]!,
        new RegExp(`Refused, outside the URLs this run may read \\(strictConstrainToURLs\\): .*${out(path)}`),
        `call ${i}: ${answers[i]}`,
      );
    }
    assert.match(answers[4]!, new RegExp(out('/fetched')), "a script's fetch to outside is refused too");
    assert.match(answers[4]!, new RegExp(out('/redirected')), "a popup's redirect to outside is refused");
    assert.match(answers[5]!, new RegExp(`${site.url}/start`), 'a redirect within urls lands');
    assert.doesNotMatch(answers[5]!, /Refused/);
    assert.ok(site.paths.includes('/start'));
  });
});
