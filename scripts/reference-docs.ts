// Writes the reference pages derived from tables in the code: docs/reference/configuration.md from the settings
// table, docs/reference/errors.md from the error table. `npm run docs` runs it; test/docs-drift.test.ts fails when
// a committed page differs from what this writes.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REFERENCE_PAGES, committedForm } from './reference/pages.js';

const ROOT = join(import.meta.dirname, '..');
for (const page of REFERENCE_PAGES) {
  writeFileSync(join(ROOT, page.file), await committedForm(page));
  console.log(`wrote ${page.file}`);
}
