import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { startFactsSite } from '../fixtures/sites/facts-site.js';
import { freePort } from '../fixtures/free-port.js';
import { startLlmStub } from '../fixtures/llm-stub.js';
import { spawnService } from '../fixtures/service-process.js';
import { FACTS, FACTS_SCHEMA, toolAnswers } from './script.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const json = async (url: string, init?: RequestInit): Promise<Record<string, unknown>> =>
  (await (await fetch(url, init)).json()) as Record<string, unknown>;

describe('an agent run survives kill -9', () => {
  test('resumes from its recorded steps after a restart: completes, and reads no page again', async (t) => {
    const site = await startFactsSite();
    const llm = await startLlmStub();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pagewright-agent-crash-'));
    const children: ChildProcess[] = [];
    t.after(async () => {
      for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
      await Promise.all([site.close(), llm.close()]);
      rmSync(dataDir, { recursive: true, force: true });
    });
    // Until the crash, the turn after the two scrapes never answers: the process dies waiting for it.
    let crashed = false;
    llm.reply = (req) => {
      if (toolAnswers(req) === 0)
        return {
          toolCalls: [
            { name: 'scrape', arguments: { url: `${site.url}/founder` } },
            { name: 'scrape', arguments: { url: `${site.url}/hq` } },
          ],
        };
      if (!crashed) return { delayMs: 600_000 };
      return { toolCalls: [{ name: 'final_answer', arguments: { data: FACTS } }] };
    };
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = { OPENAI_BASE_URL: llm.url, MODEL_NAME: 'stub-model' };
    children.push(await spawnService(dataDir, port, env));
    const started = await json(`${base}/v2/agent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'Acme facts', schema: FACTS_SCHEMA }),
    });
    const id = String(started.id);
    for (let i = 0; llm.requests.length < 2; i++) {
      assert.ok(i < 1200, 'the run reached its second turn');
      await sleep(100);
    }
    const before = await json(`${base}/v2/agent/${id}`);
    assert.equal(before.status, 'processing');
    assert.deepEqual(before.progress, { steps: 1, toolCalls: 2 });
    children[0]!.kill('SIGKILL');
    await new Promise((resolve) => children[0]!.once('exit', resolve));
    crashed = true;

    children.push(await spawnService(dataDir, port, env));
    let status: Record<string, unknown> = {};
    for (let i = 0; i < 1200; i++) {
      status = await json(`${base}/v2/agent/${id}`);
      if (status.status !== 'processing') break;
      await sleep(100);
    }
    assert.equal(status.status, 'completed', String(status.error));
    assert.deepEqual(status.data, FACTS);
    assert.equal(status.creditsUsed, 2);
    assert.equal(site.hits.get('/founder'), 1, 'no page read again');
    assert.equal(site.hits.get('/hq'), 1);
    // The resumed run asked for the second turn again with the recorded conversation (both pages' text).
    const resumed = llm.requests.at(-1)!.body.messages as { role: string; content: string }[];
    assert.equal(resumed.filter((m) => m.role === 'tool').length, 2);
  });
});
