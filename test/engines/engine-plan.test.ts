import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planEngine } from '../../src/engines/plan.js';
import type { PageNeeds } from '../../src/engines/plan.js';

const none: PageNeeds = { screenshot: false, waitFor: false, waitForSelector: false, actions: false };
const shot: PageNeeds = { ...none, screenshot: true };

test('planEngine: choice x needs x browser availability', () => {
  assert.deepEqual(planEngine('http', none, true), { engine: 'http', detectionReason: null });
  assert.deepEqual(planEngine('browser', none, true), { engine: 'browser', detectionReason: null });
  assert.equal(planEngine('auto', none, true).engine, 'http');
  assert.equal(planEngine('auto', shot, true).engine, 'browser');
  assert.match(planEngine('auto', shot, true).detectionReason!, /screenshot/);
  assert.match(planEngine('auto', none, false).detectionReason!, /not available/);
  assert.throws(() => planEngine('http', shot, true), { code: 'UNSUPPORTED_FEATURE' });
  assert.throws(() => planEngine('browser', none, false), { code: 'SERVICE_UNAVAILABLE' });
  assert.throws(() => planEngine('auto', { ...none, actions: true }, false), { code: 'SERVICE_UNAVAILABLE' });
});
