import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

const ROOT = path.join(import.meta.dirname, '..');

test('npm ci accepts the committed lock file as it is (no fallback that rewrites it)', (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewright-ci-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const file of ['package.json', 'package-lock.json'])
    copyFileSync(path.join(ROOT, file), path.join(dir, file));
  const ci = spawnSync('npm', ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: dir,
    encoding: 'utf8',
  });
  assert.equal(ci.status, 0, ci.stderr);
});
