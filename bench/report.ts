import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FILE = join(import.meta.dirname, '..', 'BENCHMARKS.md');

/** Replaces the text between `<!-- name:start -->` and `<!-- name:end -->` in BENCHMARKS.md. */
export function writeSection(name: string, report: string): void {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const current = existsSync(FILE) ? readFileSync(FILE, 'utf8') : '# Benchmarks\n';
  if (!current.includes(start) || !current.includes(end)) {
    writeFileSync(FILE, `${current.trimEnd()}\n\n${start}\n${report}\n${end}\n`);
    return;
  }
  const before = current.slice(0, current.indexOf(start));
  const after = current.slice(current.indexOf(end) + end.length);
  writeFileSync(FILE, `${before}${start}\n${report}\n${end}${after}`);
}
