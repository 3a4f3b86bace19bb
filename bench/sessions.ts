// npm run bench:sessions: browser sessions' cost, one sealed Chromium per session (SESSION_ISOLATION=namespaces)
// against one Chromium shared by the sessions (shared) and against bare Playwright (one launch, five contexts),
// in the same run: time to create a session, and the memory of five sessions idle and busy. Rewrites the
// `sessions` section of BENCHMARKS.md.
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { chromium } from 'playwright-core';
import { processTree, treeMemory } from '../src/sessions/host/process-memory.js';
import { startServer } from './children.js';
import { writeSection } from './report.js';

const SESSIONS = 5;
const PORT = 3960;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mb = (bytes: number): string => `${Math.round(bytes / 1e6)} MB`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A page that keeps its renderer busy: a 5,000-row table, 40 MB of arrays, an animation every frame. */
const BUSY = `<!DOCTYPE html><title>busy</title><canvas id=c width=800 height=600></canvas><table id=t></table>
<script>
const rows = []; for (let i = 0; i < 5000; i++) rows.push('<tr><td>' + i + '</td><td>' + 'x'.repeat(40) + '</td></tr>');
document.getElementById('t').innerHTML = rows.join('');
window.keep = []; for (let i = 0; i < 10; i++) window.keep.push(new Float64Array(5e5).fill(i));
const ctx = document.getElementById('c').getContext('2d');
(function draw(t) { ctx.fillStyle = 'hsl(' + (t % 360) + ',50%,50%)'; ctx.fillRect(0, 0, 800, 600); requestAnimationFrame(draw); })(0);
</script>`;

interface Figures {
  createMs: number;
  /** Created 2 s apart (a browser launched ahead has had time to start). */
  spacedMs: number;
  idle: number;
  busy: number;
}

async function site(): Promise<string> {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(BUSY));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/busy`;
}

async function call(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`http://127.0.0.1:${PORT}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await res.json()) as Record<string, unknown>;
}

/** The service with SESSION_ISOLATION=`isolation`: five sessions made one after another, idle, then busy. */
async function service(isolation: string, url: string): Promise<Figures> {
  const child: ChildProcess = await startServer(
    'dist/main.js',
    PORT,
    { ALLOW_PRIVATE_NETWORKS: 'true', SESSION_ISOLATION: isolation, MAX_BROWSER_SESSIONS: '8' },
    '/api/v1/scrape',
  );
  try {
    const before = treeMemory(child.pid!);
    const ids: string[] = [];
    const times: number[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const t0 = performance.now();
      const made = await call('POST', '/v2/browser', { ttl: 600 });
      times.push(performance.now() - t0);
      ids.push(String(made.id));
    }
    await sleep(2000);
    const idle = treeMemory(child.pid!) - before;
    await Promise.all(ids.map((id) => call('POST', `/v2/browser/${id}/execute`, { code: `open ${url}` })));
    await sleep(3000);
    const busy = treeMemory(child.pid!) - before;
    for (const id of ids) await call('DELETE', `/v2/browser/${id}`);
    const spaced: number[] = [];
    for (let i = 0; i < 3; i++) {
      await sleep(2000);
      const t0 = performance.now();
      const made = await call('POST', '/v2/browser', { ttl: 600 });
      spaced.push(performance.now() - t0);
      await call('DELETE', `/v2/browser/${String(made.id)}`);
    }
    return { createMs: median(times), spacedMs: median(spaced), idle, busy };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

/** Bare Playwright: one launch, then a context and page per session. */
async function bare(url: string): Promise<Figures> {
  const t0 = performance.now();
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu'],
  });
  const launchMs = performance.now() - t0;
  try {
    // Playwright's Chromium and its helpers: this process's descendants (the services above are gone).
    const memory = (): number =>
      treeMemory(
        process.pid,
        processTree(process.pid).filter((pid) => pid !== process.pid),
      );
    const times: number[] = [];
    const pages = [];
    for (let i = 0; i < SESSIONS; i++) {
      const t1 = performance.now();
      const context = await browser.newContext();
      pages.push(await context.newPage());
      times.push(performance.now() - t1);
    }
    await sleep(2000);
    const idle = memory();
    await Promise.all(pages.map((p) => p.goto(url)));
    await sleep(3000);
    const createMs = median(times) + launchMs / SESSIONS;
    return { createMs, spacedMs: createMs, idle, busy: memory() };
  } finally {
    await browser.close();
  }
}

const url = await site();
const rows: [string, Figures][] = [
  [
    'sealed: a Chromium per session in namespaces of its own (`SESSION_ISOLATION=namespaces`)',
    await service('namespaces', url),
  ],
  ['shared: one Chromium, a context per session (`SESSION_ISOLATION=shared`)', await service('shared', url)],
  [
    'bare playwright-core: one launch, a context and page per session (launch spread over the five)',
    await bare(url),
  ],
];
const report = [
  `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), Node ${process.versions.node}, ${SESSIONS} sessions made one after another; memory is the proportional set size of the service's processes above what it held before (sealed: the five browsers and the spare launched ahead for the next session; bare Playwright: its browser), idle 2 s after the last session, busy 3 s after each opened a page with a 5,000-row table, 40 MB of arrays and a canvas animation.`,
  '',
  `| ${SESSIONS} sessions | create, back to back (median) | create, 2 s apart (median of 3) | memory idle | memory busy |`,
  '|---|---|---|---|---|',
  ...rows.map(
    ([name, f]) =>
      `| ${name} | ${f.createMs.toFixed(0)} ms | ${f.spacedMs.toFixed(0)} ms | ${mb(f.idle)} | ${mb(f.busy)} |`,
  ),
].join('\n');
console.log(report);
if (process.argv.includes('--write')) writeSection('sessions', report);
process.exit(0);
