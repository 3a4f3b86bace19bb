import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import websocket from '@fastify/websocket';
import Fastify from 'fastify';
import { loadConfig } from '../../src/config/config.js';
import { registerApiKeys } from '../../src/http/auth.js';
import { startLlmStub } from '../fixtures/llm-stub.js';
import { startService } from '../helpers.js';
import type { Service } from '../helpers.js';

/**
 * Callers that ask for more than their share: monitors by the hundred on one-second schedules, agent runs by
 * the burst. Each cap is counted when it is asked for (simultaneous requests cannot all take the last slot),
 * per API key.
 */

const KEY_ONE = 'first-secret-key';
const KEY_TWO = 'second-secret-key';
const tenantOf = (key: string): string =>
  `key-${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;

/** A POST as a caller with `key` (none: no key). */
async function post(svc: Service, route: string, body: unknown, key?: string) {
  const res = await fetch(svc.url + route, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const monitorBody = (name: string, schedule: Record<string, string> = { text: 'daily at 9am' }) => ({
  name,
  schedule,
  targets: [{ type: 'scrape', urls: ['http://127.0.0.1:9/price'] }],
});

/** An LLM that never answers within the test: every run started stays in flight. */
async function stuckLlm(t: TestContext): Promise<string> {
  const llm = await startLlmStub();
  t.after(() => llm.close());
  llm.reply = () => ({ delayMs: 600_000, text: '{}' });
  return llm.url;
}

const statuses = (answers: { status: number }[]): number[] => answers.map((a) => a.status).sort();

describe('the caller of a request', () => {
  test('req.tenant: "key-" and 12 hex digits of the key\'s SHA-256 on HTTP and WebSocket upgrades; "default" without keys', async (t) => {
    const app = Fastify();
    t.after(() => app.close());
    await app.register(websocket);
    registerApiKeys(app, loadConfig({ API_KEYS: `${KEY_ONE},${KEY_TWO}` }).tenants);
    app.get('/who', async (req) => ({ tenant: req.tenant }));
    app.get('/who/ws', { websocket: true }, (socket, req) => {
      socket.send(req.tenant);
      socket.close();
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const base = `127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const who = async (key: string) =>
      (
        (await (await fetch(`http://${base}/who`, { headers: { 'x-api-key': key } })).json()) as {
          tenant: string;
        }
      ).tenant;
    assert.equal(await who(KEY_ONE), tenantOf(KEY_ONE));
    assert.equal(await who(KEY_TWO), tenantOf(KEY_TWO));
    assert.match(await who(KEY_ONE), /^key-[0-9a-f]{12}$/);
    assert.ok(!(await who(KEY_ONE)).includes(KEY_ONE));
    const overSocket = (socket: WebSocket): Promise<string> =>
      new Promise((resolve, reject) => {
        socket.onmessage = (event) => resolve(String(event.data));
        socket.onerror = () => reject(new Error('refused'));
      });
    const headers = { authorization: `Bearer ${KEY_ONE}` };
    const byHeader = new WebSocket(`ws://${base}/who/ws`, { headers } as unknown as string[]);
    assert.equal(await overSocket(byHeader), tenantOf(KEY_ONE));
    assert.equal(await overSocket(new WebSocket(`ws://${base}/who/ws`, [KEY_TWO])), tenantOf(KEY_TWO));

    const open = Fastify();
    t.after(() => open.close());
    registerApiKeys(open, loadConfig({}).tenants);
    open.get('/who', async (req) => ({ tenant: req.tenant }));
    assert.deepEqual((await open.inject({ url: '/who' })).json(), { tenant: 'default' });
  });
});

describe('monitors per key and their shortest interval', () => {
  test('a burst of 10 simultaneous creates with MAX_MONITORS_PER_TENANT=3: exactly 3 succeed, the rest are 429s naming it', async (t) => {
    const svc = await startService(t, { env: { MAX_MONITORS_PER_TENANT: '3' } });
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => post(svc, '/v2/monitor', monitorBody(`m${i}`))),
    );
    assert.deepEqual(statuses(answers), [200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
    for (const refused of answers.filter((a) => a.status === 429)) {
      assert.equal(refused.json.code, 'LIMIT_REACHED');
      assert.match(String(refused.json.error), /MAX_MONITORS_PER_TENANT=3/);
    }
    const list = (await (await fetch(`${svc.url}/v2/monitor`)).json()) as { pagination: { total: number } };
    assert.equal(list.pagination.total, 3);
    // A delete frees its slot.
    const kept = answers.find((a) => a.status === 200)!.json.data as { id: string };
    assert.equal((await fetch(`${svc.url}/v2/monitor/${kept.id}`, { method: 'DELETE' })).status, 200);
    assert.equal((await post(svc, '/v2/monitor', monitorBody('again'))).status, 200);
    assert.equal((await post(svc, '/v2/monitor', monitorBody('one more'))).status, 429);
  });

  test('a schedule whose ticks come closer than MIN_MONITOR_INTERVAL_SECONDS is a 400 naming it and the field, on create and PATCH', async (t) => {
    const svc = await startService(t);
    const refusals: [Record<string, string>, RegExp][] = [
      [{ cron: '* * * * * *' }, /^schedule\.cron: "\* \* \* \* \* \*" ticks 1 s apart/],
      [{ text: 'every 10 seconds' }, /^schedule\.text: "every 10 seconds" ticks 10 s apart/],
      [{ cron: '*/4 * * * *' }, /^schedule\.cron: .* ticks 240 s apart/],
      [{ cron: '0,1 9 * * *' }, /^schedule\.cron: .* ticks 60 s apart/],
    ];
    for (const [schedule, message] of refusals) {
      const res = await post(svc, '/v2/monitor', monitorBody('too often', schedule));
      assert.equal(res.status, 400, JSON.stringify(schedule));
      assert.match(String(res.json.error), message);
      assert.match(String(res.json.error), /at least 300 s apart \(MIN_MONITOR_INTERVAL_SECONDS\)/);
    }
    const created = await post(svc, '/v2/monitor', monitorBody('every 5 minutes', { cron: '*/5 * * * *' }));
    assert.equal(created.status, 200);
    const { id } = created.json.data as { id: string };
    const patch = await fetch(`${svc.url}/v2/monitor/${id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ schedule: { cron: '* * * * *' } }),
    });
    assert.equal(patch.status, 400);
    assert.match(
      String(((await patch.json()) as { error: string }).error),
      /^schedule\.cron: .* ticks 60 s apart.*MIN_MONITOR_INTERVAL_SECONDS/,
    );
    const list = (await (await fetch(`${svc.url}/v2/monitor`)).json()) as {
      data: { schedule: { cron: string } }[];
    };
    assert.deepEqual(
      list.data.map((m) => m.schedule.cron),
      ['*/5 * * * *'],
      'nothing refused was stored',
    );
  });
});

describe('agent runs in flight per key', () => {
  test('a burst of 8 simultaneous starts with MAX_AGENT_RUNS_PER_TENANT=2: exactly 2 run, the rest are 429s naming it', async (t) => {
    const llm = await stuckLlm(t);
    const svc = await startService(t, {
      env: { OPENAI_BASE_URL: llm, MODEL_NAME: 'stub-model', MAX_AGENT_RUNS_PER_TENANT: '2' },
    });
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => post(svc, '/v2/agent', { prompt: `task ${i}` })),
    );
    assert.deepEqual(statuses(answers), [200, 200, 429, 429, 429, 429, 429, 429]);
    for (const refused of answers.filter((a) => a.status === 429)) {
      assert.equal(refused.json.code, 'LIMIT_REACHED');
      assert.match(String(refused.json.error), /MAX_AGENT_RUNS_PER_TENANT=2/);
    }
    // A cancelled run has ended: its slot is free again.
    const running = answers.find((a) => a.status === 200)!.json.id as string;
    assert.equal((await fetch(`${svc.url}/v2/agent/${running}`, { method: 'DELETE' })).status, 200);
    assert.equal((await post(svc, '/v2/agent', { prompt: 'after a cancel' })).status, 200);
    assert.equal((await post(svc, '/v2/agent', { prompt: 'one more' })).status, 429);
  });

  test('the count survives a restart: a run in flight when the service stopped still holds its slot', async (t) => {
    const llm = await stuckLlm(t);
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pagewright-caps-'));
    t.after(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = {
      ...{ DATA_DIR: dataDir, API_KEYS: `${KEY_ONE},${KEY_TWO}`, MAX_AGENT_RUNS_PER_TENANT: '1' },
      ...{ OPENAI_BASE_URL: llm, MODEL_NAME: 'stub-model' },
    };
    await t.test('first life', async (life) => {
      const svc = await startService(life, { env });
      assert.equal((await post(svc, '/v2/agent', { prompt: 'long task' }, KEY_ONE)).status, 200);
    });
    const svc = await startService(t, { env });
    const again = await post(svc, '/v2/agent', { prompt: 'another' }, KEY_ONE);
    assert.equal(again.status, 429, JSON.stringify(again.json));
    assert.match(String(again.json.error), /MAX_AGENT_RUNS_PER_TENANT=1/);
    assert.equal((await post(svc, '/v2/agent', { prompt: 'of another key' }, KEY_TWO)).status, 200);
  });
});

describe('each key has its own count', () => {
  test('two keys: each holds MAX_MONITORS_PER_TENANT monitors and MAX_AGENT_RUNS_PER_TENANT runs of its own', async (t) => {
    const llm = await stuckLlm(t);
    const svc = await startService(t, {
      env: {
        API_KEYS: `${KEY_ONE},${KEY_TWO}`,
        MAX_MONITORS_PER_TENANT: '2',
        MAX_AGENT_RUNS_PER_TENANT: '1',
        OPENAI_BASE_URL: llm,
        MODEL_NAME: 'stub-model',
      },
    });
    const create = (key: string, name: string) => post(svc, '/v2/monitor', monitorBody(name), key);
    assert.deepEqual(statuses(await Promise.all([create(KEY_ONE, 'a'), create(KEY_ONE, 'b')])), [200, 200]);
    assert.equal((await create(KEY_ONE, 'c')).status, 429);
    assert.deepEqual(statuses(await Promise.all([create(KEY_TWO, 'a'), create(KEY_TWO, 'b')])), [200, 200]);
    assert.equal((await create(KEY_TWO, 'c')).status, 429);
    const start = (key: string) => post(svc, '/v2/agent', { prompt: 'task' }, key);
    assert.equal((await start(KEY_ONE)).status, 200);
    assert.equal((await start(KEY_ONE)).status, 429);
    assert.equal((await start(KEY_TWO)).status, 200);
    assert.equal((await start(KEY_TWO)).status, 429);
  });
});
