// npm run soak: mixed traffic against the built service on loopback for a bounded time (SOAK_SECONDS,
// default 60), then p50/p99 per operation, errors, and the service's RSS over time. With --write the
// figures go to BENCHMARKS.md. Not part of the test command.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { startServer } from './children.js';
import { writeSection } from './report.js';
import { startCrawlSite } from '../test/fixtures/sites/crawl-site.js';
import { startSite } from '../test/fixtures/site.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 60);
const CONCURRENCY = 8;
const PORT = 3950;

function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

const percentile = (xs: number[], p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
};

async function main(): Promise<void> {
  const site = await startSite();
  const crawlSite = await startCrawlSite({ pages: 200, bare: true });
  const gen = `http://127.0.0.1:${crawlSite.port}`;
  const service = await startServer(
    'dist/main.js',
    PORT,
    { ALLOW_PRIVATE_NETWORKS: 'true', CRAWL_MIN_DELAY_MS: '0', LOG_LEVEL: 'warn' },
    '/api/v1/scrape',
  );
  const pages = [
    '/blog/backpressure',
    '/news/typical',
    '/docs/v2/configuration',
    '/shop',
    '/forum/t/42',
    '/cp1251',
    '/gzip/blog',
  ];
  const operations: Record<string, () => { path: string; body: unknown }> = {
    scrape: () => ({
      path: '/api/v1/scrape',
      body: { url: site.url + pages[Math.floor(Math.random() * pages.length)], engine: 'http' },
    }),
    scrapeMain: () => ({
      path: '/api/v1/scrape',
      body: {
        url: `${site.url}/news/typical`,
        onlyMainContent: true,
        formats: ['markdown', 'links'],
        engine: 'http',
      },
    }),
    map: () => ({ path: '/api/v1/map', body: { url: `${gen}/`, ignoreSitemap: true, limit: 100 } }),
    crawl: () => ({
      path: '/api/v1/crawl',
      body: {
        url: `${gen}/gen/0`,
        allowBackwardLinks: true,
        includePaths: ['/gen/*'],
        limit: 20,
        maxDepth: 6,
        ignoreSitemap: true,
        useParallel: true,
        engine: 'http',
      },
    }),
    extract: () => ({
      path: '/api/v1/extract',
      body: {
        urls: [`${site.url}/product/alpin-gtx`],
        selectors: { title: 'h1', price: '.price' },
        engine: 'http',
      },
    }),
    failing: () => ({
      path: '/api/v1/scrape',
      body: { url: `${site.url}/slow?ms=2000`, timeout: 200, engine: 'http' },
    }),
  };
  const weights = [
    'scrape',
    'scrape',
    'scrape',
    'scrape',
    'scrapeMain',
    'scrapeMain',
    'extract',
    'map',
    'crawl',
    'failing',
  ];
  const latencies: Record<string, number[]> = Object.fromEntries(Object.keys(operations).map((k) => [k, []]));
  const errors: Record<string, number> = Object.fromEntries(Object.keys(operations).map((k) => [k, 0]));
  const rss: [number, number][] = [[0, rssMb(service.pid!)]];
  const started = Date.now();
  const end = started + SECONDS * 1000;
  const sampler = setInterval(
    () => rss.push([Math.round((Date.now() - started) / 1000), rssMb(service.pid!)]),
    10_000,
  );
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < end) {
        const name = weights[Math.floor(Math.random() * weights.length)]!;
        const { path, body } = operations[name]!();
        const t0 = performance.now();
        try {
          const res = await fetch(`http://127.0.0.1:${PORT}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          await res.arrayBuffer();
          const expected = name === 'failing' ? 408 : 200;
          if (res.status !== expected) errors[name]!++;
        } catch {
          errors[name]!++;
        }
        latencies[name]!.push(performance.now() - t0);
      }
    }),
  );
  clearInterval(sampler);
  rss.push([Math.round((Date.now() - started) / 1000), rssMb(service.pid!)]);
  const health = await fetch(`http://127.0.0.1:${PORT}/health`).then((r) => r.text());
  service.kill();
  await site.close();
  await crawlSite.close();
  const cpu = os.cpus();
  const lines = [
    `Machine: ${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}. ${SECONDS} s of mixed traffic, ${CONCURRENCY} clients, built service, loopback fixtures. /health after: ${health}.`,
    '',
    '| operation | requests | p50 | p99 | unexpected answers |',
    '|---|---|---|---|---|',
    ...Object.keys(operations).map(
      (k) =>
        `| ${k} | ${latencies[k]!.length} | ${percentile(latencies[k]!, 50).toFixed(0)} ms | ${percentile(latencies[k]!, 99).toFixed(0)} ms | ${errors[k]} |`,
    ),
    '',
    `RSS of the service over time (s → MB): ${rss.map(([t, mb]) => `${t}→${mb.toFixed(0)}`).join(', ')}.`,
    '("failing" are scrapes of a slow page with a 200 ms timeout: 408 is the expected answer.)',
  ];
  const report = lines.join('\n');
  console.log(report);
  if (process.argv.includes('--write')) writeSection('soak', report);
}

await main();
process.exit(0);
