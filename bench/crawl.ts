// Crawl throughput: the service crawls a generated loopback site (http engine, no politeness delay,
// useParallel) and a bare loop of undici fetches gets the same URLs at the same concurrency, in one run.
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { startCrawlSite } from '../test/fixtures/sites/crawl-site.js';
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

/** Reads an answer as a client that keeps nothing: its bytes, and how many pages it holds. */
async function drain(res: Response): Promise<{ bytes: number; pages: number }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let bytes = 0;
  let pages = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    bytes += read.value.byteLength;
    pages += decoder.decode(read.value, { stream: true }).split('"statusCode":').length - 1;
  }
  return { bytes, pages };
}

interface CrawlRun {
  padBytes?: number;
  flakyEvery?: number;
  /** The site over https (h2 and HTTP/1.1), crawled with skipTlsVerification. */
  tls?: boolean;
  /** The service's settings beyond crawlBenchEnv's. */
  env?: Record<string, string>;
}

async function crawlOnce(
  pages: number,
  port: number,
  { padBytes = 0, flakyEvery = 0, tls = false, env = {} }: CrawlRun = {},
): Promise<{ ms: number; crawled: number; rssMb: number; answerMb: number }> {
  // The built service, as it runs in production (no TypeScript loader in the process).
  const service = fork(join(ROOT, 'dist/main.js'), [], {
    execArgv: SERVICE_NODE_FLAGS,
    env: { ...process.env, ...crawlBenchEnv(CONCURRENCY), ...env, PORT: String(port) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const site = await startCrawlSite({ pages, padBytes, flakyEvery, tls });
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
        url: `${tls ? 'https://localhost' : 'http://127.0.0.1'}:${site.port}/gen/0`,
        skipTlsVerification: tls,
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
    const answer = await drain(res);
    const ms = performance.now() - started;
    return { ms, crawled: answer.pages, rssMb: peakRssMb(service.pid!), answerMb: answer.bytes / 1e6 };
  } finally {
    service.kill();
    await site.close();
  }
}

/** Crawls of `pages` pages each padded with `padBytes` of text (0: the site's own small pages). */
export async function crawlBench(sizes: { pages: number; padBytes?: number }[]): Promise<string[]> {
  const lines = [
    '| pages | page size | answer | service: seconds | service: pages/s | service peak RSS | bare undici loop: seconds | bare: pages/s |',
    '|---|---|---|---|---|---|---|---|',
  ];
  let port = 3930;
  for (const { pages, padBytes = 0 } of sizes) {
    const run = await crawlOnce(pages, port++, { padBytes });
    const site = await startCrawlSite({ pages, padBytes });
    const urls = Array.from({ length: pages }, (_, i) => `http://127.0.0.1:${site.port}/gen/${i}`);
    const bareMs = await bareFetchLoop(urls);
    await site.close();
    lines.push(
      `| ${run.crawled} | ${padBytes ? `${padBytes / 1000} KB` : 'small'} | ${run.answerMb.toFixed(0)} MB | ${(run.ms / 1000).toFixed(2)} | ${((run.crawled / run.ms) * 1000).toFixed(0)} | ${run.rssMb.toFixed(0)} MB | ${(bareMs / 1000).toFixed(2)} | ${((pages / bareMs) * 1000).toFixed(0)} |`,
    );
  }
  return lines;
}

/**
 * The same crawl against the same site, clean and with one page in `flakyEvery` failing its first request (a
 * reset connection, retried through the frontier), alternated `rounds` times in one run: this machine's speed
 * swings by a third from one run to the next, so the ratio is of the medians.
 */
export async function retryCrawlBench(pages: number, flakyEvery: number, rounds = 3): Promise<string[]> {
  const rate = (r: { crawled: number; ms: number }): number => (r.crawled / r.ms) * 1000;
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const clean: { crawled: number; ms: number }[] = [];
  const flaky: { crawled: number; ms: number }[] = [];
  for (let round = 0; round < rounds; round++) {
    clean.push(await crawlOnce(pages, 3950 + 2 * round));
    flaky.push(await crawlOnce(pages, 3951 + 2 * round, { flakyEvery }));
  }
  const row = (name: string, runs: { crawled: number; ms: number }[], ratio: string): string =>
    `| ${name} | ${runs.map((r) => r.crawled).join(' / ')} | ${runs.map((r) => (r.ms / 1000).toFixed(2)).join(' / ')} | ${median(runs.map(rate)).toFixed(0)} | ${ratio} |`;
  const ratio = median(flaky.map(rate)) / median(clean.map(rate));
  return [
    `| site (${rounds} runs, alternated) | pages crawled | seconds | median pages/s | of the clean crawl |`,
    '|---|---|---|---|---|',
    row('clean', clean, '100 %'),
    row(`${(100 / flakyEvery).toFixed(0)} % of first requests reset`, flaky, `${(ratio * 100).toFixed(0)} %`),
  ];
}

/**
 * The same crawl over plain http and over https (h2), with the http engine's https client as Node's TLS
 * (HTTPS_CLIENT=node, the engine before Chromium's TLS) and as Chromium's (HTTPS_CLIENT=chromium), the four
 * alternated `rounds` times in one run; the ratio is of the medians, against HTTPS_CLIENT=node on the same site.
 */
export async function httpsClientCrawlBench(pages: number, rounds = 3): Promise<string[]> {
  const rate = (r: { crawled: number; ms: number }): number => (r.crawled / r.ms) * 1000;
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const configs = [
    { name: 'http', tls: false, client: 'node' },
    { name: 'http', tls: false, client: 'chromium' },
    { name: 'https', tls: true, client: 'node' },
    { name: 'https', tls: true, client: 'chromium' },
  ] as const;
  const runs = configs.map(() => [] as { crawled: number; ms: number }[]);
  let port = 3970;
  for (let round = 0; round < rounds; round++) {
    for (const [i, config] of configs.entries()) {
      runs[i]!.push(
        await crawlOnce(pages, port++, { tls: config.tls, env: { HTTPS_CLIENT: config.client } }),
      );
    }
  }
  const lines = [
    `| site | HTTPS_CLIENT | pages crawled (${rounds} runs, alternated) | seconds | median pages/s | of HTTPS_CLIENT=node |`,
    '|---|---|---|---|---|---|',
  ];
  for (const [i, config] of configs.entries()) {
    const own = median(runs[i]!.map(rate));
    const node = median(runs[i - (i % 2)]!.map(rate));
    lines.push(
      `| ${config.name} | ${config.client} | ${runs[i]!.map((r) => r.crawled).join(' / ')} | ${runs[i]!.map((r) => (r.ms / 1000).toFixed(2)).join(' / ')} | ${own.toFixed(0)} | ${((own / node) * 100).toFixed(0)} % |`,
    );
  }
  return lines;
}

// `tsx bench/crawl.ts 10000 30000`: one row, PAGES pages of PAD bytes (after `npm run build`).
// `tsx bench/crawl.ts retries 10000`: the clean crawl beside one where 5 % of first requests fail.
// `tsx bench/crawl.ts https 5000`: http and https crawls with HTTPS_CLIENT=node and =chromium, alternated.
if (process.argv[1] && import.meta.filename === process.argv[1]) {
  if (process.argv[2] === 'https') {
    console.log(
      (await httpsClientCrawlBench(Number(process.argv[3] ?? 2000), Number(process.argv[4] ?? 3))).join('\n'),
    );
    process.exit(0);
  }
  if (process.argv[2] === 'retries') {
    console.log(
      (await retryCrawlBench(Number(process.argv[3] ?? 10000), 20, Number(process.argv[4] ?? 3))).join('\n'),
    );
    process.exit(0);
  }
  const [pages = 10000, padBytes = 0] = process.argv.slice(2).map(Number);
  console.log((await crawlBench([{ pages, padBytes }])).join('\n'));
  process.exit(0);
}
