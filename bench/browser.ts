// Browser engine latency (warm) against bare playwright (new context, goto, content) on the same page.
import { chromium } from 'playwright-core';
import { startServer } from './children.js';
import { startSite } from '../test/fixtures/site.js';

const RUNS = 20;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function browserBench(chromiumPath: string): Promise<string[]> {
  const site = await startSite();
  const url = `${site.url}/app/csr`;
  const service = await startServer(
    'dist/main.js',
    3940,
    { ALLOW_PRIVATE_NETWORKS: 'true' },
    '/api/v1/scrape',
  );
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu'],
  });
  try {
    const scrape = async (): Promise<number> => {
      const t0 = performance.now();
      const res = await fetch('http://127.0.0.1:3940/api/v1/scrape', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url, engine: 'browser', formats: ['markdown'] }),
      });
      await res.json();
      return performance.now() - t0;
    };
    const bare = async (): Promise<number> => {
      const t0 = performance.now();
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(url, { waitUntil: 'load' });
      await page.content();
      await context.close();
      return performance.now() - t0;
    };
    for (let i = 0; i < 3; i++) {
      await scrape();
      await bare();
    }
    const ours: number[] = [];
    const theirs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      ours.push(await scrape());
      theirs.push(await bare());
    }
    return [
      '| | p50 (warm, 1 at a time) |',
      '|---|---|',
      `| this service, \`engine: "browser"\` (goto, settle until 150 ms without requests, Markdown) | ${median(ours).toFixed(0)} ms |`,
      `| bare playwright-core: new context, goto (load), content() | ${median(theirs).toFixed(0)} ms |`,
      '',
      `Ratio ${(median(ours) / median(theirs)).toFixed(2)} (target ≤ 2).`,
    ];
  } finally {
    await browser.close();
    service.kill();
    await site.close();
  }
}
