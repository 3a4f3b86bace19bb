// CPU per page: the built service crawls a site of ~35 KB article pages as a Firecrawl v2 job (embedded SQLite
// store), with and without onlyMainContent, beside a bare undici loop fetching the same pages with no parsing,
// alternated in one run. CPU is what the kernel counted for each process tree (every thread: the main thread,
// content workers, undici) between the start of the crawl and its end; RSS is the tree's, sampled every 100 ms.
//
// `tsx bench/cpu-per-page.ts [pages] [repetitions]` (after `npm run build`) prints the table;
// BENCH_CPU_PROF=DIR writes CPU profiles of the service (its main thread and each content worker) there;
// BENCH_WARM=N adds the same jobs measured after an unmeasured job of N pages in the same service.
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import { basename, join } from 'node:path';
import { startArticleSite } from './article-site.js';
import { crawlBenchEnv, startFlags } from './children.js';
import { crawlAsJob, waitForHealth } from './crawl-job.js';

const ROOT = join(import.meta.dirname, '..');
const CONCURRENCY = 8;
/** Kernel clock ticks per second (`getconf CLK_TCK`: 100 on Linux). */
const TICK_MS = 10;

/** The process and its descendants. */
function tree(pid: number): number[] {
  const all = [pid];
  for (let i = 0; i < all.length; i++) {
    for (const task of safeList(`/proc/${all[i]}/task`)) {
      const children = safeRead(`/proc/${all[i]}/task/${task}/children`).trim();
      if (children) all.push(...children.split(' ').map(Number));
    }
  }
  return all;
}

const safeRead = (file: string): string => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};
const safeList = (dir: string): string[] => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};

/** CPU ms (user + system, every thread) of the tree so far. */
function cpuMs(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    const stat = safeRead(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  }
  return ticks * TICK_MS;
}

/** CPU ms of each thread of `pid` by its name (BENCH_THREADS=1 prints them: where the CPU went). */
function threadCpuMs(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const task of safeList(`/proc/${pid}/task`)) {
    const stat = safeRead(`/proc/${pid}/task/${task}/stat`);
    const name = task === String(pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ms = (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) * TICK_MS;
    byName.set(name, (byName.get(name) ?? 0) + ms);
  }
  return byName;
}

/** Resident MB of the tree now. */
function rssMb(pids: number[]): number {
  let kb = 0;
  for (const pid of pids) kb += Number(/VmRSS:\s+(\d+)/.exec(safeRead(`/proc/${pid}/status`))?.[1] ?? 0);
  return kb / 1024;
}

export interface PerPage {
  pages: number;
  pagesPerSecond: number;
  cpuMsPerPage: number;
  peakRssMb: number;
}

/** Runs `work` while sampling the tree of `pid`: CPU from its start to its end, and the highest RSS. */
async function measured(pid: number, work: () => Promise<number>): Promise<PerPage> {
  let peak = rssMb(tree(pid));
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(tree(pid)))), 100);
  const cpuBefore = cpuMs(tree(pid));
  const threadsBefore = threadCpuMs(pid);
  const started = performance.now();
  try {
    const pages = await work();
    if (process.env.BENCH_THREADS) {
      const spent = [...threadCpuMs(pid)].map(
        ([name, ms]) => [name, ms - (threadsBefore.get(name) ?? 0)] as const,
      );
      console.log(
        spent.map(([name, ms]) => `${name} ${(ms / pages).toFixed(2)}`).join(', '),
        'CPU-ms per page',
      );
    }
    const ms = performance.now() - started;
    const cpu = cpuMs(tree(pid)) - cpuBefore;
    peak = Math.max(peak, rssMb(tree(pid)));
    return { pages, pagesPerSecond: (pages / ms) * 1000, cpuMsPerPage: cpu / pages, peakRssMb: peak };
  } finally {
    clearInterval(sampler);
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
}

/** The service crawls `pages` pages from /a/0 as one v2 job; answers the pages it completed. */
async function serviceRun(
  pages: number,
  onlyMainContent: boolean,
  port: number,
  root = ROOT,
  warmPages = 0,
): Promise<PerPage> {
  const dataDir = mkdtempSync(join(os.tmpdir(), 'pagewright-cpu-'));
  const profile = process.env.BENCH_CPU_PROF;
  const service = fork(join(root, 'dist/main.js'), [], {
    execArgv: [
      ...startFlags(root),
      // BENCH_NODE_FLAGS: more flags for the service (to compare settings in one run).
      ...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? []),
      ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []),
    ],
    env: { ...process.env, ...crawlBenchEnv(CONCURRENCY), PORT: String(port), DATA_DIR: dataDir },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const site = await startArticleSite(pages);
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(base);
    const articles = { url: `http://127.0.0.1:${site.port}/a/0`, includePaths: ['^/a/'], onlyMainContent };
    // A process whose compiler has already optimised the pipeline, as in a service that has been up a while.
    if (warmPages > 0) await crawlAsJob(base, articles, warmPages);
    return await measured(service.pid!, async () => (await crawlAsJob(base, articles, pages)).completed);
  } finally {
    await stop(service);
    await site.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A bare loop in a process of its own: undici fetches every page, `CONCURRENCY` at a time, and reads it. */
async function bareRun(pages: number): Promise<PerPage> {
  const site = await startArticleSite(pages);
  const child = fork(join(import.meta.dirname, 'bare-loop.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    await new Promise((resolve) => child.once('message', resolve));
    return await measured(child.pid!, async () => {
      const done = new Promise<number>((resolve) => child.once('message', (m) => resolve(Number(m))));
      child.send({ base: `http://127.0.0.1:${site.port}`, pages, concurrency: CONCURRENCY });
      return done;
    });
  } finally {
    await stop(child);
    await site.close();
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const spread = (xs: number[], digits: number): string =>
  `${median(xs).toFixed(digits)} [${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}]`;

/** The table: each kind of work `repetitions` times, alternated, as median [min–max]. */
export async function cpuPerPageBench(pages: number, repetitions: number): Promise<string[]> {
  const kinds: { name: string; run: (port: number) => Promise<PerPage> }[] = [
    { name: 'Pagewright, `onlyMainContent: false`', run: (port) => serviceRun(pages, false, port) },
    {
      name: 'Pagewright, `onlyMainContent: true` (v2 default)',
      run: (port) => serviceRun(pages, true, port),
    },
    { name: 'bare undici loop, no parsing', run: () => bareRun(pages) },
  ];
  // BENCH_BEFORE=DIR[,DIR…]: built checkouts of other commits, run in the same alternation (a change's
  // before/after); each is named by its directory when there are several.
  const befores = (process.env.BENCH_BEFORE ?? '').split(',').filter((dir) => dir !== '');
  kinds.unshift(
    ...befores.flatMap((dir) => {
      const name = befores.length > 1 ? `before (${basename(dir)})` : 'before';
      return [false, true].map((onlyMainContent) => ({
        name: `${name}, \`onlyMainContent: ${onlyMainContent}\``,
        run: (port: number) => serviceRun(pages, onlyMainContent, port, dir),
      }));
    }),
  );
  // BENCH_WARM=N: the service's jobs again, each after an unmeasured job of N pages in the same process.
  const warm = Number(process.env.BENCH_WARM ?? 0);
  if (warm > 0) {
    kinds.splice(
      kinds.length - 1,
      0,
      ...[false, true].map((onlyMainContent) => ({
        name: `Pagewright, \`onlyMainContent: ${onlyMainContent}\`, after a ${warm}-page job`,
        run: (port: number) => serviceRun(pages, onlyMainContent, port, ROOT, warm),
      })),
    );
  }
  // BENCH_ONLY=0, 1 or 2 runs that kind alone (to profile it).
  const only = process.env.BENCH_ONLY;
  if (only !== undefined) kinds.splice(0, kinds.length, kinds[Number(only)]!);
  const results = kinds.map(() => [] as PerPage[]);
  let port = 3970;
  for (let r = 0; r < repetitions; r++) {
    for (const [i, kind] of kinds.entries()) results[i]!.push(await kind.run(port++));
  }
  const lines = [
    `| work (${pages} pages, ${repetitions} runs alternated) | pages/s | CPU-ms per page | peak RSS (MB) |`,
    '|---|---|---|---|',
  ];
  for (const [i, kind] of kinds.entries()) {
    const runs = results[i]!;
    if (runs.some((run) => run.pages !== pages)) lines.push(`| ${kind.name}: some runs ended short |||`);
    lines.push(
      `| ${kind.name} | ${spread(
        runs.map((x) => x.pagesPerSecond),
        0,
      )} | ${spread(
        runs.map((x) => x.cpuMsPerPage),
        2,
      )} | ${spread(
        runs.map((x) => x.peakRssMb),
        0,
      )} |`,
    );
  }
  return lines;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const pages = Number(process.argv[2] ?? 10000);
  const repetitions = Number(process.argv[3] ?? 3);
  console.log((await cpuPerPageBench(pages, repetitions)).join('\n'));
  process.exit(0);
}
