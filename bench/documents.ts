// Documents through the service (POST /api/v1/parse, the built server) beside the libraries' own text
// extraction called in-process, in one run: a 50-page text PDF (printed by Chromium) and a 20-page DOCX.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import mammoth from 'mammoth';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { chromium } from 'playwright-core';
import { strToU8, zipSync } from 'fflate';
import { freePort } from '../test/fixtures/free-port.js';
import { SERVICE_NODE_FLAGS } from './children.js';
import { waitForHealth } from './crawl-job.js';

const ROOT = join(import.meta.dirname, '..');
const ROUNDS = 10;

const paragraph = (i: number) =>
  `Paragraph ${i}: the quarterly figures show steady growth across every region, with costs held flat and ` +
  'the new products taking a larger share of revenue than planned; the team expects the trend to continue.';

/** A table on each page, so that finding columns is part of the measure. */
const TABLE = `<style>td,th{padding:3px 12px}</style><table><tr><th>Region</th><th>Revenue</th><th>Growth</th></tr>${['North', 'South', 'East', 'West', 'Islands'].map((r, i) => `<tr><td>${r}</td><td>${1000 + i * 37}</td><td>${i + 3}%</td></tr>`).join('')}</table>`;

export async function pdf50(): Promise<Buffer> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage();
    const pages = Array.from(
      { length: 50 },
      (_, p) =>
        `<section style="page-break-after: always"><h2>Section ${p + 1}</h2>${Array.from({ length: 5 }, (_, i) => `<p>${paragraph(p * 6 + i)}</p>`).join('')}${TABLE}</section>`,
    );
    await page.setContent(`<html><body><h1>Annual report</h1>${pages.join('')}</body></html>`);
    return await page.pdf({ format: 'A4' });
  } finally {
    await browser.close();
  }
}

function docx20(): Buffer {
  const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
  const body = Array.from(
    { length: 20 * 8 },
    (_, i) => `<w:p><w:r><w:t>${paragraph(i)}</w:t></w:r></w:p>`,
  ).join('');
  const x = (s: string) => strToU8(`<?xml version="1.0" encoding="UTF-8"?>${s}`);
  return Buffer.from(
    zipSync({
      '[Content_Types].xml': x(
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
      ),
      '_rels/.rels': x(
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
      ),
      'word/document.xml': x(`<w:document ${W}><w:body>${body}</w:body></w:document>`),
    }),
  );
}

async function timed(rounds: number, work: () => Promise<unknown>): Promise<number> {
  await work(); // warm up
  const start = performance.now();
  for (let i = 0; i < rounds; i++) await work();
  return (performance.now() - start) / rounds;
}

export async function documentsBench(): Promise<string[]> {
  const [pdf, docx] = [await pdf50(), docx20()];
  const port = await freePort();
  const dataDir = mkdtempSync(join(os.tmpdir(), 'pagewright-bench-docs-'));
  const child = fork(join(ROOT, 'dist/main.js'), [], {
    execArgv: SERVICE_NODE_FLAGS,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATA_DIR: dataDir },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    await waitForHealth(`http://127.0.0.1:${port}`);
    const upload = async (bytes: Buffer, name: string) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(bytes)]), name);
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/parse`, { method: 'POST', body: form });
      if (!res.ok) throw new Error(`parse ${name}: ${res.status} ${await res.text()}`);
      return res.json();
    };
    const rows: [string, number, number, number][] = [];
    const pdfService = await timed(ROUNDS, () => upload(pdf, 'report.pdf'));
    const pdfLibrary = await timed(ROUNDS, async () => {
      const doc = await getDocument({ data: new Uint8Array(pdf), isEvalSupported: false, verbosity: 0 })
        .promise;
      for (let n = 1; n <= doc.numPages; n++) await (await doc.getPage(n)).getTextContent();
      await doc.destroy();
    });
    rows.push(['50-page PDF', 50, pdfService, pdfLibrary]);
    const docxService = await timed(ROUNDS, () => upload(docx, 'report.docx'));
    const docxLibrary = await timed(ROUNDS, () => mammoth.extractRawText({ buffer: docx }));
    rows.push(['20-page DOCX', 20, docxService, docxLibrary]);
    return [
      '| document | through the service (ms, pages/s) | the library alone, in-process (ms, pages/s) | service / library |',
      '|---|---|---|---|',
      ...rows.map(
        ([name, pages, service, library]) =>
          `| ${name} | ${service.toFixed(0)} ms, ${((pages / service) * 1000).toFixed(0)} | ${library.toFixed(0)} ms, ${((pages / library) * 1000).toFixed(0)} | ${(service / library).toFixed(2)}× |`,
      ),
    ];
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// `tsx bench/documents.ts` (after `npm run build`): these rows alone.
if (process.argv[1] && import.meta.filename === process.argv[1]) {
  console.log((await documentsBench()).join('\n'));
  process.exit(0);
}
