import assert from 'node:assert/strict';
import { test } from 'node:test';
import { site, startService } from '../helpers.js';

test('one access-log line per request with route, status, duration and target host; no secrets', async (t) => {
  const s = await site(t);
  const logLines: string[] = [];
  const svc = await startService(t, { logLines });
  await fetch(`${svc.url}/api/v1/scrape`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer fc-secret-token' },
    body: JSON.stringify({
      url: `${s.url}/blog/backpressure?session=secret-session-id`,
      headers: { Cookie: 'sid=secret-cookie' },
      formats: [],
    }),
  });
  await svc.post('/api/v1/scrape', { url: 'ftp://nope' });
  const entries = logLines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((e) => e.msg === 'request');
  assert.equal(entries.length, 2, 'one line per request');
  const [ok, bad] = entries;
  assert.equal(ok!.route, '/api/v1/scrape');
  assert.equal(ok!.method, 'POST');
  assert.equal(ok!.status, 200);
  assert.equal(typeof ok!.durationMs, 'number');
  assert.equal(ok!.target, new URL(s.url).host);
  assert.equal(bad!.status, 400);
  const all = logLines.join('\n');
  for (const secret of ['fc-secret-token', 'secret-session-id', 'secret-cookie']) {
    assert.ok(!all.includes(secret), `${secret} is not logged`);
  }
});
