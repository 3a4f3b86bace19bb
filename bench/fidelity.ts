// npm run bench:fidelity: scores onlyMainContent Markdown on ../shared/fidelity (136 real pages) through
// the running service and through the linkedom + Readability + turndown baseline, in the same run.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { startServer } from './children.js';
import { writeSection } from './report.js';

const ROOT = join(import.meta.dirname, '..');
const SCORER = join(ROOT, '..', 'shared', 'fidelity', 'score.mjs');

interface Score {
  f1: string;
  precision: string;
  recall: string;
  p50: string;
  pagesPerSecond: string;
}

function score(service: string, concurrency: number): Score {
  const out = execFileSync(
    'node',
    [SCORER, '--service', service, '--worst', '0', '--concurrency', String(concurrency)],
    {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const last = out.trim().split('\n').pop() ?? '';
  const field = (name: string): string => new RegExp(`${name} (\\S+)`).exec(last)?.[1] ?? '?';
  return {
    f1: field('F1'),
    precision: field('precision'),
    recall: field('recall'),
    p50: field('p50_ms'),
    pagesPerSecond: field('pages_per_s'),
  };
}

async function main(): Promise<void> {
  if (!existsSync(SCORER)) {
    console.log(
      `bench:fidelity skipped: ${SCORER} not found (the shared fidelity corpus is not beside this checkout)`,
    );
    return;
  }
  const ours = await startServer('src/main.ts', 3922, { ALLOW_PRIVATE_NETWORKS: 'true' }, '/api/v1/scrape');
  const baseline = await startServer('bench/fidelity-baseline-server.ts', 3923, {}, '/api/v1/scrape');
  try {
    const rows: string[] = [];
    for (const [name, url] of [
      ['this service', 'http://127.0.0.1:3922'],
      ['baseline: linkedom + @mozilla/readability + turndown-gfm', 'http://127.0.0.1:3923'],
    ] as const) {
      score(url, 4); // warm-up pass: JIT and connection pools
      const c4 = score(url, 4);
      const c1 = score(url, 1);
      rows.push(
        `| ${name} | ${c4.f1} | ${c4.precision} | ${c4.recall} | ${c4.pagesPerSecond} | ${c4.p50} ms | ${c1.pagesPerSecond} | ${c1.p50} ms |`,
      );
    }
    const cpu = os.cpus();
    const report = [
      `Machine: ${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}. Scorer, page server, service and baseline share the 2 cores; each figure is the second pass (the first warms up).`,
      '',
      '| extractor | F1 | precision | recall | pages/s (concurrency 4) | p50 (concurrency 4) | pages/s (1 at a time) | p50 (1 at a time) |',
      '|---|---|---|---|---|---|---|---|',
      ...rows,
    ].join('\n');
    console.log(report);
    writeSection('fidelity', report);
  } finally {
    ours.kill();
    baseline.kill();
  }
}

await main();
process.exit(0);
