// tsx bench/fidelity-offline.ts [zyte|wcxb] [scorer flags...]: scores the content pipeline on a fidelity corpus
// through a bare in-process /api/v1/scrape (fetch, decode, buildContent; no workers, no engines), so a change to
// main content is measured in seconds. The figure that counts is the one through the service (bench:fidelity).
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildContent } from '../src/content/build.js';
import { decodeHtml } from '../src/content/parse/decode.js';

const [set = 'zyte', ...scorerFlags] = process.argv.slice(2);
const dir = join(import.meta.dirname, '..', '..', 'shared', 'fidelity', set);

const server = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString()));
  req.on('end', () => {
    void (async () => {
      const { url } = JSON.parse(body) as { url: string };
      const page = await fetch(url);
      const html = decodeHtml(Buffer.from(await page.arrayBuffer()), page.headers.get('content-type') ?? '');
      const content = buildContent(html, new URL(url), {
        onlyMainContent: true,
        removeBase64Images: true,
        html: false,
        links: false,
        images: false,
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: { markdown: content.markdown, pageType: content.pageKind } }));
    })().catch((err: unknown) => res.writeHead(500).end(String(err)));
  });
});
await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
const service = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const { stdout } = await promisify(execFile)(
  'node',
  [join(dir, '..', 'score.mjs'), '--set', dir, '--service', service, '--concurrency', '1', ...scorerFlags],
  { maxBuffer: 64 * 1024 * 1024 },
);
console.log(stdout.trim());
server.close();
