import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REFERENCE_PAGES, committedForm } from '../scripts/reference/pages.js';

const ROOT = join(import.meta.dirname, '..');

for (const page of REFERENCE_PAGES) {
  test(`${page.file} is what the code's table says (npm run docs writes it)`, async () => {
    const committed = readFileSync(join(ROOT, page.file), 'utf8');
    assert.equal(
      committed,
      await committedForm(page),
      `${page.file} drifted from the code: run \`npm run docs\``,
    );
  });
}
