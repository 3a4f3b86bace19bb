import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { AppError, ContentTooLargeError, ERRORS, errorFromCode } from '../src/errors.js';
import type { ErrorCode } from '../src/errors.js';
import { ContentPool } from '../src/pipeline/content-pool.js';
import runInWorker from '../src/pipeline/content-worker.js';
import type { ContentTask } from '../src/pipeline/content-tasks.js';
import { Deadline } from '../src/lib/deadline.js';
import { docx } from './fixtures/files/office.js';

/** The error table (src/errors.ts): documented, rebuilt across boundaries, the same on both sides of a worker. */

const CODES = Object.keys(ERRORS) as ErrorCode[];
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** A Word file converted with a budget of 100 bytes: its conversion throws CONTENT_TOO_LARGE. */
function tooLargeTask(): Extract<ContentTask, { kind: 'page' }> {
  return {
    kind: 'page',
    page: {
      url: 'https://a.test/f.docx',
      status: 200,
      headers: { 'content-type': DOCX },
      body: docx(),
      redirects: [],
    },
    options: {
      sourceUrl: 'https://a.test/f.docx',
      formats: ['markdown'],
      onlyMainContent: true,
      removeBase64Images: false,
      detectionReason: null,
    },
    maxDocumentBytes: 100,
  };
}

describe('error table', () => {
  test('every code is in docs/reference/errors.md', () => {
    const page = readFileSync(join(import.meta.dirname, '..', 'docs', 'reference', 'errors.md'), 'utf8');
    for (const code of CODES) assert.ok(page.includes(`\`${code}\``), `${code} is not documented`);
  });

  test('errorFromCode rebuilds every code with its class, status and retryable', () => {
    for (const code of CODES) {
      const e = errorFromCode(code, `message of ${code}`);
      assert.ok(e instanceof AppError, code);
      assert.equal(e.code, code);
      assert.equal(e.status, ERRORS[code].status, code);
      assert.equal(e.retryable, ERRORS[code].retryable, code);
      assert.equal(e.message, `message of ${code}`);
      if (code !== 'INTERNAL') assert.notEqual(e.name, 'InternalError', code);
    }
  });

  test('an unknown code, or a name of Object.prototype, comes back as INTERNAL', () => {
    for (const code of ['NO_SUCH_CODE', 'toString', 'constructor', '__proto__']) {
      const e = errorFromCode(code, 'lost');
      assert.equal(e.code, 'INTERNAL', code);
      assert.equal(e.status, 500);
      assert.equal(e.message, 'lost');
    }
  });
});

describe('errors across the content worker boundary', () => {
  const envelope = (task: ContentTask) => ({
    task,
    deadlineAt: Date.now() + 30_000,
  });

  test("the worker's entry answers a task's AppError as its code and message", async () => {
    const result = await runInWorker(envelope(tooLargeTask()));
    assert.equal(result.ok, false);
    assert.ok(!result.ok && !result.expired);
    assert.equal(result.code, 'CONTENT_TOO_LARGE');
    assert.match(result.message, /MAX_DOCUMENT_BYTES/);
  });

  test('a task thrown on a worker thread comes back with its class, code and status', async (t) => {
    const pool = new ContentPool({
      threads: 1,
      maxHeapMb: 256,
      graceMs: 1000,
      maxDocumentBytes: 100,
      log: quiet,
    });
    t.after(() => pool.close());
    const task = tooLargeTask();
    await assert.rejects(pool.render(task.page, task.options, Deadline.after(30_000)), (err: unknown) => {
      assert.ok(err instanceof ContentTooLargeError, String(err));
      assert.equal(err.code, 'CONTENT_TOO_LARGE');
      assert.equal(err.status, 422);
      assert.match(err.message, /MAX_DOCUMENT_BYTES/);
      return true;
    });
  });
});
