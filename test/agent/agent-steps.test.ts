import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { AgentRequest, AgentResult } from '../../src/agent/request.js';
import { runAgent } from '../../src/agent/run.js';
import { StepLog } from '../../src/agent/steps.js';
import { LlmClient } from '../../src/extract/llm.js';
import { MemoryJobStore } from '../../src/jobs/stores/memory-job-store.js';
import type { Logger } from '../../src/lib/logger.js';
import { systemResolver } from '../../src/lib/ssrf-guard.js';
import { callerFor } from '../../src/tenants/tenant.js';
import { startFactsSite } from '../fixtures/sites/facts-site.js';
import { startLlmStub } from '../fixtures/llm-stub.js';
import { startService } from '../helpers.js';
import { FACTS, FACTS_SCHEMA, agentTurns, toolAnswers } from './script.js';

/** How a run pairs the model's calls with their recorded answers: by position, and a recorded final answer ends it. */

const quiet: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('agent steps', () => {
  test('a model that numbers its calls per turn (ids repeat across turns) gets every call run', async (t) => {
    const site = await startFactsSite();
    t.after(() => site.close());
    const llm = await startLlmStub();
    t.after(() => llm.close());
    llm.reply = (req) => {
      const id = 'call_0';
      switch (toolAnswers(req)) {
        case 0:
          return { toolCalls: [{ id, name: 'scrape', arguments: { url: `${site.url}/founder` } }] };
        case 1:
          return { toolCalls: [{ id, name: 'scrape', arguments: { url: `${site.url}/hq` } }] };
        default:
          return { toolCalls: [{ id, name: 'final_answer', arguments: { data: FACTS } }] };
      }
    };
    const svc = await startService(t, { env: { OPENAI_BASE_URL: llm.url, MODEL_NAME: 'stub-model' } });
    const { json: started } = await svc.post('/v2/agent', { prompt: 'Acme facts', schema: FACTS_SCHEMA });
    let status: Record<string, unknown> = {};
    for (let i = 0; i < 1200; i++) {
      status = (await (await fetch(`${svc.url}/v2/agent/${String(started.id)}`)).json()) as Record<
        string,
        unknown
      >;
      if (status.status !== 'processing') break;
      await sleep(100);
    }
    assert.equal(status.status, 'completed', String(status.error));
    assert.deepEqual(status.data, FACTS);
    assert.equal(status.creditsUsed, 2);
    assert.equal(agentTurns(llm.requests).length, 3, 'one turn per call: none asked again');
    assert.equal(site.hits.get('/hq'), 1);
  });

  test('a run resumed after its final answer was recorded ends with it, asking the model nothing', async (t) => {
    const llm = await startLlmStub();
    t.after(() => llm.close());
    const store = new MemoryJobStore(60_000);
    const request: AgentRequest = {
      prompt: 'Acme facts',
      urls: [],
      schema: FACTS_SCHEMA,
      strict: false,
      maxCredits: 10,
      effort: null,
      mode: 'extract',
      threadId: randomUUID(),
      turn: 1,
      history: [],
      notes: [],
      webhook: null,
    };
    const job = await store.create({
      id: randomUUID(),
      kind: 'agent',
      owner: 'default',
      request,
      listed: true,
      total: 0,
    });
    const steps = new StepLog(store, job.id);
    await steps.load();
    const call = { id: 'call_1', name: 'final_answer', arguments: JSON.stringify({ data: FACTS }) };
    await steps.append({ type: 'llm', at: Date.now(), content: null, toolCalls: [call], tokens: 20 });
    await steps.append({
      type: 'tool',
      callId: call.id,
      name: call.name,
      args: { data: FACTS },
      startedAt: Date.now(),
      finishedAt: Date.now(),
      outcome: 'ok',
      output: 'Accepted.',
      pages: [],
    });
    const client = new LlmClient({ allowPrivateNetworks: true, resolver: systemResolver });
    t.after(() => client.close());
    const run = { signal: new AbortController().signal, jobId: job.id, caller: callerFor('default') };
    const result: AgentResult = await runAgent(request, run, {
      // Never reached: the run has nothing left to do but answer.
      services: null as never,
      executor: null,
      llm: client,
      endpoint: { baseUrl: llm.url, model: 'stub-model' },
      store,
      maxTokens: 10_000,
      log: quiet,
    });
    assert.deepEqual(result.data, FACTS);
    assert.equal(result.tokensUsed, 20);
    assert.equal(llm.requests.length, 0);
    assert.equal((await StepLog.read(store, job.id)).length, 2, 'no step recorded twice');
  });
});
