// Crawl as a job: the built service runs a Firecrawl-style crawl job (POST /v2/crawl) on a generated loopback
// site with its embedded SQLite store, while this process samples its resident memory; the synchronous seed
// crawl of the same site at 10,000 pages is the baseline in the same run (crawl.ts).
import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { startCrawlSite } from '../test/fixtures/sites/crawl-site.js';
import { SERVICE_NODE_FLAGS, crawlBenchEnv } from './children.js';

const ROOT = join(import.meta.dirname, '..');
const CONCURRENCY = 8;

const procStatus = (pid: number, field: string): number =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) /
  1024;

/** Waits until the service at `base` answers /health. */
export async function waitForHealth(base: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const up = await fetch(`${base}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${base} did not start`);
}

/** What a bench crawls: where it starts, the paths it keeps to, and whether it asks for main content only. */
export interface JobCrawl {
  url: string;
  includePaths: string[];
  onlyMainContent: boolean;
}

/** The generated site's tree of /gen pages, whole pages (the crawl of every job row). */
export const generatedSite = (sitePort: number): JobCrawl => ({
  url: `http://127.0.0.1:${sitePort}/gen/0`,
  includePaths: ['^/gen/'],
  onlyMainContent: false,
});

/**
 * Crawls `pages` pages of `crawl` as a Firecrawl job and polls its status every 100 ms until it ends; `onPoll`
 * sees the pages done so far.
 */
export async function crawlAsJob(
  base: string,
  crawl: JobCrawl,
  pages: number,
  onPoll: (completed: number) => void = () => undefined,
): Promise<{ completed: number; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${base}/v2/crawl`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      url: crawl.url,
      limit: pages,
      crawlEntireDomain: true,
      includePaths: crawl.includePaths,
      sitemap: 'skip',
      maxConcurrency: CONCURRENCY,
      scrapeOptions: { formats: ['markdown'], onlyMainContent: crawl.onlyMainContent },
    }),
  });
  const { id } = (await res.json()) as { id: string };
  for (;;) {
    await new Promise((r) => setTimeout(r, 100));
    const status = (await (await fetch(`${base}/v2/crawl/${id}?limit=1`)).json()) as {
      status: string;
      completed: number;
    };
    onPoll(status.completed);
    if (status.status !== 'scraping') return { completed: status.completed, ms: performance.now() - started };
  }
}

export interface JobCrawlRun {
  pages: number;
  ms: number;
  peakRssMb: number;
  /** Resident memory when a quarter, half, three quarters and all of the pages were done. */
  quarterRssMb: number[];
}

export async function jobCrawlOnce(pages: number, port: number): Promise<JobCrawlRun> {
  const dataDir = mkdtempSync(join(os.tmpdir(), 'pagewright-bench-'));
  const service = fork(join(ROOT, 'dist/main.js'), [], {
    // BENCH_CPU_PROF=DIR writes a CPU profile of the service's main thread there (to see where time goes).
    execArgv: [
      ...SERVICE_NODE_FLAGS,
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
    ],
    env: { ...process.env, ...crawlBenchEnv(CONCURRENCY), PORT: String(port), DATA_DIR: dataDir },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const site = await startCrawlSite({ pages, bare: true });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(base);
    const quarterRssMb: number[] = [];
    const { completed, ms } = await crawlAsJob(base, generatedSite(site.port), pages, (done) => {
      if (process.env.BENCH_RSS_TRACE) console.log(done, procStatus(service.pid!, 'VmRSS').toFixed(0));
      while (quarterRssMb.length < 4 && done >= (pages * (quarterRssMb.length + 1)) / 4) {
        quarterRssMb.push(procStatus(service.pid!, 'VmRSS'));
      }
    });
    return { pages: completed, ms, peakRssMb: procStatus(service.pid!, 'VmHWM'), quarterRssMb };
  } finally {
    service.kill('SIGTERM');
    await new Promise((resolve) => service.once('exit', resolve));
    await site.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function jobCrawlBench(sizes: number[]): Promise<string[]> {
  const lines = [
    '| pages (job) | seconds | pages/s | peak RSS | RSS at ¼ / ½ / ¾ / all of the pages |',
    '|---|---|---|---|---|',
  ];
  let port = 3960;
  for (const size of sizes) {
    const run = await jobCrawlOnce(size, port++);
    lines.push(
      `| ${run.pages} | ${(run.ms / 1000).toFixed(1)} | ${((run.pages / run.ms) * 1000).toFixed(0)} | ${run.peakRssMb.toFixed(0)} MB | ${run.quarterRssMb.map((m) => m.toFixed(0)).join(' / ')} MB |`,
    );
  }
  return lines;
}

// `tsx bench/crawl-job.ts 100000`: this row alone (after `npm run build`).
if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const sizes = process.argv.slice(2).map(Number);
  console.log((await jobCrawlBench(sizes.length > 0 ? sizes : [10000])).join('\n'));
  process.exit(0);
}
