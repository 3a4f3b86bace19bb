import { join } from 'node:path';
import prettier from 'prettier';
import { renderCdp } from './cdp.js';
import { renderConfiguration } from './configuration.js';
import { renderErrors } from './errors.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** The reference pages generated from the code's tables, by path from the repository's root. */
export const REFERENCE_PAGES: { file: string; render: () => string }[] = [
  { file: 'docs/reference/configuration.md', render: renderConfiguration },
  { file: 'docs/reference/errors.md', render: renderErrors },
  { file: 'docs/reference/cdp.md', render: renderCdp },
];

/** A page as it is committed: rendered, then formatted as `prettier --write` would (tables aligned). */
export async function committedForm(page: { file: string; render: () => string }): Promise<string> {
  const path = join(ROOT, page.file);
  const options = (await prettier.resolveConfig(path)) ?? {};
  return prettier.format(page.render(), { ...options, filepath: path });
}
