// Crawl as a job on each engine, in one run: the embedded store (one process), Redis with 1 worker process, and
// Redis with 2 worker processes (plus an API process that works no jobs). Same generated loopback site,
// same crawl; pages/s and every process's peak RSS.
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { startCrawlSite } from '../test/fixtures/sites/crawl-site.js';
import { startRedis } from '../test/fixtures/redis.js';
import { SERVICE_NODE_FLAGS, crawlBenchEnv } from './children.js';
import { crawlAsJob, generatedSite, waitForHealth } from './crawl-job.js';

const ROOT = join(import.meta.dirname, '..');
const CONCURRENCY = 8;

const peakRssMb = (pid: number): number =>
  Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (100 Hz)
}

function start(script: string, env: Record<string, string>): ChildProcess {
  const profile = process.env.BENCH_CPU_PROF; // a directory: CPU profiles of every process go there
  return fork(join(ROOT, script), [], {
    execArgv: [...SERVICE_NODE_FLAGS, ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [])],
    env: { ...process.env, ...crawlBenchEnv(CONCURRENCY), ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

interface EngineRun {
  engine: string;
  pages: number;
  ms: number;
  rss: string;
}

async function crawlWith(engine: string, pages: number, workers: number, port: number): Promise<EngineRun> {
  const dataDir = mkdtempSync(join(os.tmpdir(), 'pagewright-bench-'));
  // Redis syncs its append-only file once a second, as SQLite in WAL mode with synchronous=NORMAL does.
  const redis = workers > 0 ? await startRedis('everysec') : null;
  const env: Record<string, string> = { PORT: String(port), DATA_DIR: dataDir };
  if (redis) Object.assign(env, { REDIS_URL: redis.url, JOB_SHARES: String(workers) });
  // With Redis the API process works no jobs: the workers do.
  const api = start('dist/main.js', redis ? { ...env, WORKERS: '0' } : env);
  // Worker processes on one machine share its cores: each gets its part of them for content threads, as the
  // README says to size them (one worker per machine keeps the default, every core).
  const contentThreads = String(Math.max(1, Math.floor(os.availableParallelism() / Math.max(1, workers))));
  const workerProcs = Array.from({ length: workers }, () =>
    start('dist/worker.js', { ...env, CONTENT_WORKERS: contentThreads }),
  );
  const site = await startCrawlSite({ pages, bare: true });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(base);
    await new Promise((r) => setTimeout(r, 1000)); // workers connect
    const pids = [api, ...workerProcs].map((p) => p.pid!);
    if (redis) pids.push(redis.pid);
    // CPU while the crawl runs (startup is not counted): where the 2 cores went.
    const cpuBefore = pids.map(cpuSeconds);
    const selfBefore = process.cpuUsage();
    const { completed, ms } = await crawlAsJob(base, generatedSite(site.port), pages);
    const cpu = pids.map((pid, i) => cpuSeconds(pid) - cpuBefore[i]!);
    const self = process.cpuUsage(selfBefore);
    const names = pids.map((_, i) => (i === 0 ? 'api' : i <= workers ? `worker ${i}` : 'redis'));
    const rss = pids.map(
      (pid, i) =>
        `${names[i]} ${i <= workers ? `${peakRssMb(pid).toFixed(0)} MB, ` : ''}${cpu[i]!.toFixed(1)} s`,
    );
    rss.push(`site ${((self.user + self.system) / 1e6).toFixed(1)} s`);
    return { engine, pages: completed, ms, rss: rss.join(' / ') };
  } finally {
    for (const p of [api, ...workerProcs]) {
      p.kill('SIGTERM');
      await new Promise((resolve) => p.once('exit', resolve));
    }
    await site.close();
    await redis?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function fleetBench(pages: number): Promise<string[]> {
  const runs = [
    await crawlWith('embedded (SQLite, one process)', pages, 0, 3990),
    await crawlWith('Redis + BullMQ, 1 worker process', pages, 1, 3991),
    await crawlWith('Redis + BullMQ, 2 worker processes', pages, 2, 3992),
  ];
  const base = runs[0]!;
  return [
    '| engine | pages | seconds | pages/s | time vs embedded | peak RSS and CPU seconds during the crawl, per process |',
    '|---|---|---|---|---|---|',
    ...runs.map(
      (r) =>
        `| ${r.engine} | ${r.pages} | ${(r.ms / 1000).toFixed(1)} | ${((r.pages / r.ms) * 1000).toFixed(0)} | ${(r.ms / base.ms).toFixed(2)}× | ${r.rss} |`,
    ),
  ];
}

// `tsx bench/fleet.ts [pages]` (after `npm run build`): these rows alone.
if (process.argv[1] && import.meta.filename === process.argv[1]) {
  console.log((await fleetBench(Number(process.argv[2] ?? 10000))).join('\n'));
  process.exit(0);
}
