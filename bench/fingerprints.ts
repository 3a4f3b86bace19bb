/**
 * How each HTTP client looks to a server next to the Debian Chromium the service ships: JA4, ALPN, the HTTP/2
 * preface (Akamai format) and header order, recorded by test/fixtures/fingerprint/fingerprint-site.ts; then requests/s of
 * 500 GETs of a 35 KB page over https (sequential, then 8 at a time, keep-alive) and memory.
 *
 *   npx tsx bench/fingerprints.ts            # everything
 *   FP_SKIP_THROUGHPUT=1 npx tsx bench/fingerprints.ts
 *
 * The throughput server runs in a child process, so that the client under test does not share its event loop.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createSecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  chromiumClients,
  cycleTlsClient,
  httpEngineClient,
  impitClient,
  undiciFetchClient,
  wreqClient,
} from './fingerprint-clients.js';
import type { BenchClient } from './fingerprint-clients.js';
import { startFingerprintSite } from '../test/fixtures/fingerprint/fingerprint-site.js';
import type { Fingerprint, SeenRequest } from '../test/fixtures/fingerprint/fingerprint-site.js';
import { selfSignedCertificate } from '../test/fixtures/tls.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const REQUESTS = Number(process.env.FP_REQUESTS ?? 500);
const CONCURRENCY = 8;
const PAGE = `<!doctype html><html><head><title>35 KB</title></head><body>${'<p>lorem ipsum dolor sit amet</p>'.repeat(1090)}</body></html>`;

/** Child mode: an h2 + HTTP/1.1 https server of the 35 KB page; prints its port. */
async function serve(): Promise<void> {
  const server = createSecureServer(
    { ...selfSignedCertificate('localhost'), allowHTTP1: true },
    (_req, res) => {
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-length': Buffer.byteLength(PAGE),
      });
      res.end(PAGE);
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
}

async function main(): Promise<void> {
  const version = execFileSync(CHROMIUM, ['--version'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const site = await startFingerprintSite();
  const chromium = await chromiumClients(CHROMIUM, site.url);
  const rows: Array<{ name: string; seen: Fingerprint | null; request: SeenRequest | null; error?: string }> =
    [];
  const probe = async (client: BenchClient, path: string): Promise<void> => {
    try {
      await client.get(`${site.url}${path}`);
      const seen = site.seen().find((fp) => fp.requests.some((r) => r.path === path)) ?? null;
      rows.push({ name: client.name, seen, request: seen?.requests.find((r) => r.path === path) ?? null });
    } catch (err) {
      rows.push({ name: client.name, seen: null, request: null, error: String(err).slice(0, 120) });
    }
  };
  await probe(chromium.navigate, '/reference');
  const reference = rows[0]!.seen!;
  await probe(chromium.pageFetch, '/page-fetch');
  await probe(chromium.cdpLoad, '/cdp-load');
  const clients = await candidateClients(reference);
  for (const [i, client] of clients.entries()) await probe(client, `/probe-${i}`);

  console.log(`# Reference: ${version.trim()}\n`);
  console.log('| client | JA4 | = | ALPN | h2 (Akamai) | = | header order |');
  console.log('|---|---|---|---|---|---|---|');
  for (const row of rows) {
    if (!row.seen) {
      console.log(`| ${row.name} | failed: ${row.error ?? 'not seen'} | | | | | |`);
      continue;
    }
    const sameJa4 = row.seen.tls.ja4 === reference.tls.ja4 ? 'yes' : 'no';
    const akamai = row.seen.http2?.akamai ?? '-';
    const sameH2 = akamai === reference.http2?.akamai ? 'yes' : 'no';
    const order = (row.request?.headers ?? []).map(([name]) => name).join(' ');
    console.log(
      `| ${row.name} | \`${row.seen.tls.ja4}\` | ${sameJa4} | ${row.seen.alpn || '-'} | \`${akamai}\` | ${sameH2} | ${order} |`,
    );
  }
  console.log('\n## Differences from the reference\n');
  for (const row of rows.slice(1))
    if (row.seen) console.log(`- **${row.name}**: ${differences(reference, row.seen)}`);
  console.log(`\n## Reference in clear\n\n- JA4_r: \`${reference.tls.ja4r}\``);
  console.log(`- headers priority: ${reference.http2?.headersPriority ?? '-'}`);
  console.log(`- groups: ${reference.tls.supportedGroups.map(hex).join(',')}`);
  console.log(`- navigation headers: ${JSON.stringify(rows[0]!.request?.headers)}`);
  await site.close();

  if (!process.env.FP_SKIP_THROUGHPUT) {
    // CDP first: its host page is still on the fingerprint site, so its loads are cross-origin (no CORS).
    await throughput([...clients, chromium.cdpLoad, chromium.pageFetch, chromium.navigate]);
  }
  await Promise.all(clients.map((c) => c.close()));
  await chromium.browser.close();
}

async function candidateClients(reference: Fingerprint): Promise<BenchClient[]> {
  const found = await Promise.all([
    Promise.resolve(httpEngineClient('node')),
    Promise.resolve(httpEngineClient('chromium')),
    Promise.resolve(undiciFetchClient()),
    impitClient(),
    wreqClient('wreq-js 3.1 chrome_149 preset', 'chrome_149'),
    cycleTlsClient(reference),
  ]);
  return found.filter((c): c is BenchClient => c !== null);
}

const hex = (n: number): string => n.toString(16).padStart(4, '0');

function differences(reference: Fingerprint, other: Fingerprint): string {
  const [ref, got] = [reference.tls, other.tls];
  const notIn = (a: number[], b: number[]): string =>
    a
      .filter((v) => !b.includes(v) && (v & 0x0f0f) !== 0x0a0a)
      .map(hex)
      .join(',') || '-';
  const parts = [
    `ciphers missing ${notIn(ref.ciphers, got.ciphers)} extra ${notIn(got.ciphers, ref.ciphers)}`,
    `extensions missing ${notIn(ref.extensions, got.extensions)} extra ${notIn(got.extensions, ref.extensions)}`,
    ref.signatureAlgorithms.join() === got.signatureAlgorithms.join()
      ? 'sigalgs same'
      : `sigalgs ${got.signatureAlgorithms.map(hex).join(',')}`,
    ref.supportedGroups.filter((g) => (g & 0x0f0f) !== 0x0a0a).join() ===
    got.supportedGroups.filter((g) => (g & 0x0f0f) !== 0x0a0a).join()
      ? 'groups same'
      : `groups ${got.supportedGroups.map(hex).join(',')}`,
    `ALPN offered ${got.alpn.join(',') || '-'}`,
  ];
  if (other.http2 && reference.http2) {
    const [a, b] = [reference.http2, other.http2];
    if (a.akamai !== b.akamai) parts.push(`h2 ${b.akamai}`);
    if (a.headersPriority !== b.headersPriority)
      parts.push(`HEADERS priority ${b.headersPriority ?? 'none'}`);
  }
  return parts.join('; ');
}

/**
 * Summed RSS of this process's descendants but `except` (the page server): Chromium's processes and CycleTLS's
 * Go process live there. Linux only; shared pages are counted once per process, so Chromium's is an upper bound.
 */
function childrenRss(except: number | undefined): number {
  const parents = new Map<number, number>();
  const rss = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Fields after the command name (which may hold spaces): state ppid … rss is the 22nd of them.
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ');
      parents.set(Number(entry), Number(fields[1]));
      rss.set(Number(entry), Number(fields[21]) * 4096);
    } catch {
      // The process ended while we looked.
    }
  }
  const inTree = (pid: number): boolean => {
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p)) {
      if (p === except) return false;
      if (p === process.pid) return pid !== except;
    }
    return false;
  };
  let total = 0;
  for (const [pid, bytes] of rss) if (inTree(pid)) total += bytes;
  return total;
}

/** 500 GETs one after another, then 500 with 8 in flight, on one warm client; RSS of this process. */
async function throughput(clients: BenchClient[]): Promise<void> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), 'serve'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve) =>
    child.stdout.once('data', (d: Buffer) => resolve(d.toString().trim())),
  );
  const url = `https://localhost:${port}/page`;
  console.log(
    `\n## Throughput: ${REQUESTS} GETs of ${Buffer.byteLength(PAGE)} B over https (server in a child)\n`,
  );
  console.log(
    '| client | sequential req/s | c=8 req/s | ms/req (seq) | RSS after (MB) | RSS growth (MB) | children RSS (MB) |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const client of clients) {
    try {
      for (let i = 0; i < 10; i++) await client.get(url);
      const rssBefore = process.memoryUsage().rss;
      let t0 = performance.now();
      for (let i = 0; i < REQUESTS; i++) await client.get(url);
      const sequential = REQUESTS / ((performance.now() - t0) / 1000);
      t0 = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next++ < REQUESTS) await client.get(url);
        }),
      );
      const concurrent = REQUESTS / ((performance.now() - t0) / 1000);
      const rss = process.memoryUsage().rss;
      console.log(
        `| ${client.name} | ${sequential.toFixed(0)} | ${concurrent.toFixed(0)} | ${(1000 / sequential).toFixed(2)} | ${(rss / 2 ** 20).toFixed(0)} | ${((rss - rssBefore) / 2 ** 20).toFixed(1)} | ${(childrenRss(child.pid) / 2 ** 20).toFixed(0)} |`,
      );
    } catch (err) {
      console.log(`| ${client.name} | failed: ${String(err).slice(0, 100)} | | | | | |`);
    }
  }
  child.stdin.end();
}

if (process.argv[2] === 'serve') await serve();
else await main();
