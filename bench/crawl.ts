// Crawl throughput: the service crawls a generated loopback site (http engine, no politeness delay,
// useParallel) and a bare loop of undici fetches gets the same URLs at the same concurrency, in one run.
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { startCrawlSite } from '../test/fixtures/crawl-site.js';
import { SERVICE_NODE_FLAGS, crawlBenchEnv } from './children.js';

const ROOT = join(import.meta.dirname, '..');
const CONCURRENCY = 8;

/** Peak resident set size of a process, in MB (VmHWM). */
function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

async function bareFetchLoop(urls: string[]): Promise<number> {
  const dispatcher = new Agent({ connections: CONCURRENCY });
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < urls.length) {
        const res = await request(urls[next++]!, { dispatcher });
        await res.body.text();
      }
    }),
  );
  await dispatcher.close();
  return performance.now() - started;
}

async function crawlOnce(
  pages: number,
  port: number,
): Promise<{ ms: number; crawled: number; rssMb: number }> {
  // The built service, as it runs in production (no TypeScript loader in the process).
  const service = fork(join(ROOT, 'dist/main.js'), [], {
    execArgv: SERVICE_NODE_FLAGS,
    env: { ...process.env, ...crawlBenchEnv(CONCURRENCY), PORT: String(port) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const site = await startCrawlSite({ pages });
  try {
    for (let i = 0; i < 100; i++) {
      try {
        await fetch(`http://127.0.0.1:${port}/health`);
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const started = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/crawl`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        url: `http://127.0.0.1:${site.port}/gen/0`,
        limit: pages,
        maxDepth: 30,
        allowBackwardLinks: true,
        includePaths: ['/gen/*'],
        ignoreSitemap: true,
        useParallel: true,
        engine: 'http',
        formats: ['markdown'],
      }),
    });
    const json = (await res.json()) as { data: unknown[] };
    const ms = performance.now() - started;
    return { ms, crawled: json.data.length, rssMb: peakRssMb(service.pid!) };
  } finally {
    service.kill();
    await site.close();
  }
}

export async function crawlBench(sizes: number[]): Promise<string[]> {
  const lines = [
    '| pages | service: seconds | service: pages/s | service peak RSS | bare undici loop: seconds | bare: pages/s |',
    '|---|---|---|---|---|---|',
  ];
  let port = 3930;
  for (const pages of sizes) {
    const run = await crawlOnce(pages, port++);
    const site = await startCrawlSite({ pages });
    const urls = Array.from({ length: pages }, (_, i) => `http://127.0.0.1:${site.port}/gen/${i}`);
    const bareMs = await bareFetchLoop(urls);
    await site.close();
    lines.push(
      `| ${run.crawled} | ${(run.ms / 1000).toFixed(2)} | ${((run.crawled / run.ms) * 1000).toFixed(0)} | ${run.rssMb.toFixed(0)} MB | ${(bareMs / 1000).toFixed(2)} | ${((pages / bareMs) * 1000).toFixed(0)} |`,
    );
  }
  return lines;
}
