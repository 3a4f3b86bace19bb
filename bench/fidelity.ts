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

function run(service: string, concurrency: number, set?: string): string {
  return execFileSync(
    'node',
    [
      SCORER,
      '--service',
      service,
      '--worst',
      '0',
      '--concurrency',
      String(concurrency),
      ...(set ? ['--set', set] : []),
    ],
    {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
}

function score(service: string, concurrency: number): Score {
  const last = run(service, concurrency).trim().split('\n').pop() ?? '';
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
  const ours = await startServer('dist/main.js', 3922, { ALLOW_PRIVATE_NETWORKS: 'true' }, '/api/v1/scrape');
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
    // WCXB (1,211 pages of 7 kinds): F1 / precision / recall per kind, for both extractors.
    const wcxb = join(ROOT, '..', 'shared', 'fidelity', 'wcxb');
    const kinds: string[] = [];
    if (existsSync(wcxb)) {
      const byExtractor = [ours, baseline].map((_, i) =>
        run(i === 0 ? 'http://127.0.0.1:3922' : 'http://127.0.0.1:3923', 4, wcxb)
          .trim()
          .split('\n'),
      );
      const cell = (line: string | undefined): string => {
        const m = /F1 (\S+) (?:P|precision) (\S+) (?:R|recall) (\S+)/.exec(line ?? '');
        return m ? `${m[1]} / ${m[2]} / ${m[3]}` : '?';
      };
      const types = byExtractor[0]!.filter((l) => l.startsWith('type ')).map((l) => l.split(/\s+/)[1]!);
      for (const type of types) {
        const [a, b] = byExtractor.map((lines) => lines.find((l) => l.split(/\s+/)[1] === type));
        kinds.push(`| ${type} | ${cell(a)} | ${cell(b)} |`);
      }
      const [a, b] = byExtractor.map((lines) => lines.at(-1));
      const speed = /pages_per_s (\S+)/.exec(a ?? '')?.[1] ?? '?';
      kinds.push(`| **all** (${speed} pages/s through the service) | **${cell(a)}** | ${cell(b)} |`);
    }
    const cpu = os.cpus();
    const report = [
      `Machine: ${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}. Scorer, page server, service and baseline share the 2 cores; each figure is the second pass (the first warms up).`,
      '',
      '| extractor | F1 | precision | recall | pages/s (concurrency 4) | p50 (concurrency 4) | pages/s (1 at a time) | p50 (1 at a time) |',
      '|---|---|---|---|---|---|---|---|',
      ...rows,
      ...(kinds.length > 0
        ? [
            '',
            'WCXB set (`--set ../shared/fidelity/wcxb`), concurrency 4, F1 / precision / recall by page type:',
            '',
            '| type | this service | baseline (readability) |',
            '|---|---|---|',
            ...kinds,
          ]
        : []),
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
