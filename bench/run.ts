// npm run bench: the service against a plain baseline (undici fetch + turndown) in the same run, on the
// same loopback fixture site, plus in-process conversion throughput. Prints figures and rewrites the
// generated section of BENCHMARKS.md.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import autocannon from 'autocannon';
import TurndownService from 'turndown';
import { gfm } from '@joplin/turndown-plugin-gfm';
import { buildContent } from '../src/content/build.js';
import { longArticle, page, startSite, typicalArticle } from '../test/fixtures/site.js';
import { startServer } from './children.js';
import { browserBench } from './browser.js';
import { crawlBench, httpsClientCrawlBench, retryCrawlBench } from './crawl.js';
import { jobCrawlBench } from './crawl-job.js';
import { cpuPerPageBench } from './cpu-per-page.js';
import { fleetBench } from './fleet.js';
import { mixedLoadBench } from './mixed.js';
import { writeSection } from './report.js';

const ROOT = join(import.meta.dirname, '..');
const FIDELITY = join(ROOT, '..', 'shared', 'fidelity', 'zyte', 'pages');
const quick = process.argv.includes('--quick');
const seconds = quick ? 3 : 10;

interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function load(url: string, body: unknown, connections: number, duration: number): Promise<Load> {
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    connections,
    duration,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

function corpus(): { name: string; html: string }[] {
  const pages = ['article.html', 'docs.html', 'shop.html'].map((name) => ({ name, html: page(name) }));
  pages.push({ name: 'long-read-100k', html: longArticle(100_000) });
  pages.push({ name: 'typical-100k', html: typicalArticle(100_000) });
  if (existsSync(FIDELITY)) {
    for (const file of readdirSync(FIDELITY).sort()) {
      pages.push({ name: file, html: gunzipSync(readFileSync(join(FIDELITY, file))).toString('utf8') });
    }
  } else {
    console.log(`(fidelity corpus not found at ${FIDELITY}: conversion bench uses the fixture pages only)`);
  }
  return pages;
}

function timePerPage(pages: { html: string }[], convert: (html: string) => unknown): number {
  for (const p of pages.slice(0, 5)) convert(p.html);
  const started = performance.now();
  let n = 0;
  const rounds = quick ? 1 : 3;
  for (let r = 0; r < rounds; r++) {
    for (const p of pages) {
      convert(p.html);
      n++;
    }
  }
  return (performance.now() - started) / n;
}

function conversionBench(): Record<string, number> {
  const pages = corpus();
  const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
  turndown.use(gfm);
  turndown.remove(['script', 'style', 'noscript']);
  const pageUrl = new URL('http://127.0.0.1/page');
  const options = { removeBase64Images: true, html: false, links: true, images: true };
  return {
    pages: pages.length,
    turndownMs: timePerPage(pages, (html) => turndown.turndown(html)),
    oursFullMs: timePerPage(pages, (html) =>
      buildContent(html, pageUrl, { ...options, onlyMainContent: false }),
    ),
    oursMainMs: timePerPage(pages, (html) =>
      buildContent(html, pageUrl, { ...options, onlyMainContent: true }),
    ),
  };
}

const fmt = (n: number, digits = 1): string => n.toFixed(digits);

interface Target {
  name: string;
  path: string;
}

const TARGETS: Target[] = [
  {
    name: 'typical 100 KB article page (15 KB of text in menus, scripts, JSON state)',
    path: '/news/typical',
  },
  {
    name: 'dense 100 KB long read (all article text, 60 KB of Markdown out)',
    path: '/blog/long-read?bytes=100000',
  },
];

async function measure(serviceUrl: string, baselineUrl: string, url: string): Promise<string[]> {
  const body = { url, engine: 'http', formats: ['markdown'] };
  await load(serviceUrl, body, 4, 3);
  await load(baselineUrl, { url }, 4, 3);
  const serviceSerial = await load(serviceUrl, body, 1, seconds);
  const baselineSerial = await load(baselineUrl, { url }, 1, seconds);
  const service16 = await load(serviceUrl, body, 16, seconds);
  const baseline16 = await load(baselineUrl, { url }, 16, seconds);
  return [
    `| this service (\`/api/v1/scrape\`, markdown) | ${serviceSerial.p50} ms | ${serviceSerial.p99} ms | ${fmt(service16.rps)} | ${service16.p50} ms | ${service16.errors + serviceSerial.errors} |`,
    `| baseline (undici fetch + turndown-gfm server) | ${baselineSerial.p50} ms | ${baselineSerial.p99} ms | ${fmt(baseline16.rps)} | ${baseline16.p50} ms | ${baseline16.errors + baselineSerial.errors} |`,
    '',
    `p50 ratio service/baseline (1 client): ${fmt(serviceSerial.p50 / Math.max(0.001, baselineSerial.p50), 2)} (target ≤ 1.5); throughput ratio at 16 clients: ${fmt(service16.rps / Math.max(0.001, baseline16.rps), 1)}×.`,
  ];
}

async function main(): Promise<void> {
  const site = await startSite();
  const service = await startServer(
    'dist/main.js',
    3912,
    { ALLOW_PRIVATE_NETWORKS: 'true' },
    '/api/v1/scrape',
  );
  const baseline = await startServer('bench/baseline-server.ts', 3913);
  try {
    const cpu = os.cpus();
    const lines = [
      `Machine: ${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}. The load generator (autocannon) and the fixture site run on the same 2 cores as the service.`,
    ];
    for (const target of TARGETS) {
      lines.push(
        '',
        `### Scrape, http engine: ${target.name}, loopback fixture, ${seconds} s per run`,
        '',
        '| | p50 latency, 1 client | p99, 1 client | req/s, 16 clients | p50, 16 clients | errors |',
        '|---|---|---|---|---|---|',
        ...(await measure(
          'http://127.0.0.1:3912/api/v1/scrape',
          'http://127.0.0.1:3913/',
          site.url + target.path,
        )),
      );
    }
    lines.push(
      '',
      `### Scrape under hostile load: 16 clients, ${seconds} s per run, one request in ten a pathological page (issue 13)`,
      '',
      ...(await mixedLoadBench('http://127.0.0.1:3912', site.url, seconds)),
    );
    const conversion = conversionBench();
    lines.push(
      '',
      `### HTML → Markdown in-process, ${conversion.pages} pages (fixture pages${existsSync(FIDELITY) ? ' + the 136 fidelity pages' : ''}), one thread`,
      '',
      '| converter | ms per page | pages/s (one core) |',
      '|---|---|---|',
      `| turndown + gfm (baseline, its own domino parse) | ${fmt(conversion.turndownMs!, 2)} | ${fmt(1000 / conversion.turndownMs!)} |`,
      `| ours: parse + metadata + links + images + markdown, whole page | ${fmt(conversion.oursFullMs!, 2)} | ${fmt(1000 / conversion.oursFullMs!)} |`,
      `| ours: the same with onlyMainContent | ${fmt(conversion.oursMainMs!, 2)} | ${fmt(1000 / conversion.oursMainMs!)} |`,
    );
    lines.push(
      '',
      `### Crawl (POST /api/v1/crawl, the answer read as it streams), http engine, generated loopback site, useParallel (concurrency ${8}), no politeness delay`,
      '',
      ...(await crawlBench(
        quick ? [{ pages: 1000 }] : [{ pages: 1000 }, { pages: 10000 }, { pages: 10000, padBytes: 30_000 }],
      )),
      '',
      '### Crawl with transient failures: the same crawl clean, then with 5 % of first requests reset (retried through the frontier), alternated',
      '',
      ...(await retryCrawlBench(quick ? 1000 : 10000, 20, quick ? 1 : 3)),
      '',
      "### Crawl over http and https by the http engine's https client (HTTPS_CLIENT), same site and concurrency, alternated",
      '',
      ...(await httpsClientCrawlBench(quick ? 1000 : 5000, quick ? 1 : 3)),
      '',
      '### CPU per page: a crawl job (POST /v2/crawl) of ~35 KB article pages beside a bare undici loop, alternated; CPU and RSS of each process tree',
      '',
      ...(await cpuPerPageBench(quick ? 1000 : 10000, quick ? 1 : 3)),
      '',
      '### Crawl as a job (POST /v2/crawl, embedded SQLite store), same site and concurrency; RSS sampled',
      '',
      ...(await jobCrawlBench(quick ? [1000] : [10000, 100000])),
      '',
      '### Crawl as a job on each engine (embedded; Redis with 1 and 2 worker processes), same site, one run',
      '',
      ...(await fleetBench(quick ? 1000 : 10000)),
    );
    const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
    if (existsSync(chromiumPath)) {
      lines.push(
        '',
        `### Browser engine, client-rendered page on loopback, ${20} runs`,
        '',
        ...(await browserBench(chromiumPath)),
      );
    } else {
      lines.push('', `(browser bench skipped: no chromium at ${chromiumPath})`);
    }
    const report = lines.join('\n');
    console.log(report);
    if (!quick) writeSection('bench', report);
  } finally {
    service.kill();
    baseline.kill();
    await site.close();
  }
}

await main();
process.exit(0);
