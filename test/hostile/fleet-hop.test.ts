import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FLEET_HEADER, signHop, verifyHop } from '../../src/http/fleet-forward.js';
import { startService } from '../helpers.js';

/**
 * The fleet's forwarding header as an attacker would send it: a call that claims to come from another process
 * is refused unless it carries a signature made with FLEET_SECRET for this very method and path, recently.
 */
test('a call claiming to be forwarded by the fleet is refused without a valid signature', async (t) => {
  // One process without FLEET_SECRET: no call can claim to be forwarded, even with a well-formed signature.
  const svc = await startService(t, { env: { API_KEYS: 'the-key' } });
  const forged = signHop('guessed-secret', 'GET', '/v2/browser');
  for (const value of [forged, 'x', `t=${Date.now()},sig=${'0'.repeat(64)}`]) {
    const res = await fetch(`${svc.url}/v2/browser`, {
      headers: { authorization: 'Bearer the-key', [FLEET_HEADER]: value },
    });
    assert.equal(res.status, 401, value);
    await res.body?.cancel();
  }
  const plain = await fetch(`${svc.url}/v2/browser`, { headers: { authorization: 'Bearer the-key' } });
  assert.equal(plain.status, 200);
  await plain.body?.cancel();

  // The signature binds secret, method, path and time: a captured one serves for nothing else.
  const now = Date.now();
  const signed = signHop('s', 'POST', '/v2/browser/a/execute', now);
  assert.equal(verifyHop('s', signed, 'POST', '/v2/browser/a/execute', now), true);
  assert.equal(verifyHop('other', signed, 'POST', '/v2/browser/a/execute', now), false);
  assert.equal(verifyHop('s', signed, 'DELETE', '/v2/browser/a/execute', now), false);
  assert.equal(verifyHop('s', signed, 'POST', '/v2/browser/b/execute', now), false);
  assert.equal(
    verifyHop('s', signed, 'POST', '/v2/browser/a/execute', now + 31_000),
    false,
    'replayed later',
  );
});
