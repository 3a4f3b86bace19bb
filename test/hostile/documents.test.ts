import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import { type Service, startService } from '../helpers.js';
import { docx } from '../fixtures/files/office.js';
import { security } from '../fixtures/files/pdf-encryption.js';
import { bombPdf, textPdf } from '../fixtures/files/pdf-files.js';
import { bigDocx, lyingDocx } from '../fixtures/files/zip-files.js';

/**
 * Documents built to exhaust memory when they are unpacked: a 1 MB PDF whose content stream inflates to
 * 1 GiB, a Word file whose zip headers understate its document part (1,000 bytes claimed, 1 GiB inside),
 * and an honest 95 MB document part. Each is scraped from a loopback site and uploaded to both parse routes;
 * each must be a 4xx that names the limit, the process must stay near its own size, and the next document
 * must convert (the content worker pool recovered).
 */

const MB = 1024 * 1024;
/** How far the RSS may rise above its level before a probe: a few hundred MB, never the gigabytes unpacked. */
const MARGIN_MB = 400;

const PDF = 'application/pdf';
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** Serves `files` (path → [content type, bytes]) on loopback; answers the base URL. */
async function serveFiles(t: TestContext, files: Record<string, [string, Buffer]>): Promise<string> {
  const server = createServer((req, res) => {
    const file = files[req.url ?? ''];
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file[0] }).end(file[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The highest RSS (sampled every 50 ms) while `probe` runs, in MB above the RSS just before it. */
async function peakRise<T>(probe: () => Promise<T>): Promise<{ result: T; riseMb: number; baseMb: number }> {
  const base = process.memoryUsage().rss;
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  try {
    const result = await probe();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, riseMb: (peak - base) / MB, baseMb: base / MB };
  } finally {
    clearInterval(timer);
  }
}

type Reply = { status: number; json: Record<string, unknown> };

async function upload(
  svc: Service,
  route: string,
  bytes: Buffer,
  name: string,
  options?: Record<string, unknown>,
): Promise<Reply> {
  const form = new FormData();
  if (options) form.append('options', JSON.stringify(options));
  form.append('file', new Blob([new Uint8Array(bytes)]), name);
  const res = await fetch(svc.url + route, { method: 'POST', body: form });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** The same document scraped from the site and uploaded to the native and Firecrawl's parse routes. */
async function everyWay(svc: Service, base: string, path: string, bytes: Buffer): Promise<Reply[]> {
  const name = path.slice(1);
  return [
    await svc.post('/api/v1/scrape', { url: base + path, formats: ['markdown'] }),
    await upload(svc, '/api/v1/parse', bytes, name),
    await upload(svc, '/v2/parse', bytes, name),
  ];
}

function within(t: TestContext, riseMb: number, baseMb: number): void {
  const line = `RSS rose ${riseMb.toFixed(0)} MB above ${baseMb.toFixed(0)} MB`;
  t.diagnostic(line);
  assert.ok(riseMb < MARGIN_MB, line);
}

function refused(reply: Reply, limit: RegExp, label: string): void {
  assert.equal(reply.status, 422, `${label}: ${JSON.stringify(reply.json)}`);
  assert.equal(reply.json.code, 'CONTENT_TOO_LARGE', label);
  assert.match(String(reply.json.error), limit, label);
}

async function convertsNormally(svc: Service, base: string): Promise<void> {
  const pdf = await svc.post('/api/v1/scrape', { url: `${base}/report.pdf` });
  assert.equal(pdf.status, 200, JSON.stringify(pdf.json));
  assert.match(String((pdf.json.data as { markdown: string }).markdown), /# Chapter 1/);
  const word = await upload(svc, '/api/v1/parse', docx(), 'prices.docx');
  assert.equal(word.status, 200, JSON.stringify(word.json));
  assert.match(String((word.json.data as { markdown: string }).markdown), /^# Price list/);
}

describe('hostile documents', () => {
  const normal = (): Record<string, [string, Buffer]> => ({
    '/report.pdf': [PDF, textPdf(3)],
    '/prices.docx': [DOCX, docx()],
  });

  test('a 1 MB PDF whose content stream inflates to 1 GiB is a 422 naming MAX_DOCUMENT_BYTES, every way in', async (t) => {
    const bomb = bombPdf();
    assert.ok(bomb.length < 1.2 * MB, `${bomb.length} bytes`);
    const base = await serveFiles(t, { ...normal(), '/bomb.pdf': [PDF, bomb] });
    const svc = await startService(t);
    await convertsNormally(svc, base); // the worker has loaded pdf.js: the baseline includes it
    const { result, riseMb, baseMb } = await peakRise(() => everyWay(svc, base, '/bomb.pdf', bomb));
    for (const [i, reply] of result.entries()) refused(reply, /MAX_DOCUMENT_BYTES/, `way ${i}`);
    within(t, riseMb, baseMb);
    await convertsNormally(svc, base);
  });

  test('three PDF bombs at once, on three workers, stay within a few hundred MB', async (t) => {
    const bomb = bombPdf();
    const base = await serveFiles(t, { ...normal(), '/bomb.pdf': [PDF, bomb] });
    const svc = await startService(t, { env: { CONTENT_WORKERS: '3' } });
    await Promise.all([0, 1, 2].map(() => convertsNormally(svc, base)));
    const { result, riseMb, baseMb } = await peakRise(() =>
      Promise.all([
        svc.post('/api/v1/scrape', { url: `${base}/bomb.pdf` }),
        upload(svc, '/api/v1/parse', bomb, 'bomb.pdf'),
        upload(svc, '/v2/parse', bomb, 'bomb.pdf'),
      ]),
    );
    for (const [i, reply] of result.entries()) refused(reply, /MAX_DOCUMENT_BYTES/, `bomb ${i}`);
    within(t, riseMb, baseMb);
    await convertsNormally(svc, base);
  });

  test('a Word file whose zip headers claim 1,000 bytes of a 1 GiB document part is a 422', async (t) => {
    const lying = lyingDocx();
    const base = await serveFiles(t, { ...normal(), '/lying.docx': [DOCX, lying] });
    const svc = await startService(t);
    await convertsNormally(svc, base);
    const { result, riseMb, baseMb } = await peakRise(() => everyWay(svc, base, '/lying.docx', lying));
    for (const [i, reply] of result.entries()) refused(reply, /MAX_DOCUMENT_BYTES/, `way ${i}`);
    within(t, riseMb, baseMb);
    await convertsNormally(svc, base);
  });

  test('an honest 95 MB document part (a few hundred KB uploaded) is a 422, never a 500', async (t) => {
    const big = bigDocx(95);
    assert.ok(big.length < 600_000, `${big.length} bytes`);
    const base = await serveFiles(t, { ...normal(), '/big.docx': [DOCX, big] });
    const svc = await startService(t);
    await convertsNormally(svc, base);
    const { result, riseMb, baseMb } = await peakRise(() => everyWay(svc, base, '/big.docx', big));
    for (const [i, reply] of result.entries()) refused(reply, /MAX_DOCUMENT_BYTES/, `way ${i}`);
    within(t, riseMb, baseMb);
    await convertsNormally(svc, base);
  });

  test('a conversion that runs its worker out of memory is a 422 naming the heap cap; the pool recovers', async (t) => {
    const big = bigDocx(95);
    const base = await serveFiles(t, normal());
    // The unpacking limit raised far enough for the document part to reach the parser, on a small heap. Not
    // smaller: Node ends a worker at its heap cap only when the allocation that reaches it is small, and at
    // 160 MB the 95 MB string mammoth reads aborts the whole process instead (nodejs/node#47224).
    const svc = await startService(t, {
      env: { MAX_DOCUMENT_BYTES: String(512 * MB), CONTENT_WORKER_HEAP_MB: '256' },
    });
    await convertsNormally(svc, base);
    for (const route of ['/api/v1/parse', '/v2/parse']) {
      // A generous deadline: on a slow machine, reaching the heap cap must not turn into a 408.
      const { result, riseMb, baseMb } = await peakRise(() =>
        upload(svc, route, big, 'big.docx', { timeout: 300_000 }),
      );
      refused(result, /CONTENT_WORKER_HEAP_MB/, route);
      t.diagnostic(`${route}: RSS rose ${riseMb.toFixed(0)} MB above ${baseMb.toFixed(0)} MB`);
      await convertsNormally(svc, base);
    }
  });

  test('an encrypted PDF bomb (no user password, an owner password) is decrypted and refused', async (t) => {
    const locked = bombPdf(1024, security('aes-128'));
    const readable = textPdf(2, security('rc4-128'));
    const base = await serveFiles(t, {
      ...normal(),
      '/locked.pdf': [PDF, locked],
      '/notes.pdf': [PDF, readable],
    });
    const svc = await startService(t);
    await convertsNormally(svc, base);
    const { result, riseMb, baseMb } = await peakRise(() => everyWay(svc, base, '/locked.pdf', locked));
    for (const [i, reply] of result.entries()) refused(reply, /MAX_DOCUMENT_BYTES/, `way ${i}`);
    within(t, riseMb, baseMb);
    const notes = await svc.post('/api/v1/scrape', { url: `${base}/notes.pdf` });
    assert.equal(notes.status, 200, JSON.stringify(notes.json));
    assert.match(String((notes.json.data as { markdown: string }).markdown), /# Chapter 2/);
  });
});
