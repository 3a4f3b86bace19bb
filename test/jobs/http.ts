import assert from 'node:assert/strict';

/** Small HTTP helpers for the job route tests. */

export type Json = Record<string, unknown>;
export type Reply = { status: number; json: Json };

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One HTTP call; a body (and its JSON content type) only when given. */
export async function call(url: string, method = 'GET', body?: unknown): Promise<Reply> {
  const init =
    body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
  const res = await fetch(url, { method, ...init });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Json) : {} };
}

/** The reply's JSON once its status is checked (the body is the failure message). */
export function json(r: Reply, status = 200): Json {
  assert.equal(r.status, status, JSON.stringify(r.json));
  return r.json;
}

/** Polls `url` until `done`, with small sleeps and a generous bound (the suite must pass on a slow machine). */
export async function poll(url: string, done: (r: Reply) => boolean, boundMs = 60_000): Promise<Reply> {
  const end = Date.now() + boundMs;
  for (;;) {
    const r = await call(url);
    if (done(r)) return r;
    if (Date.now() > end) assert.fail(`gave up on ${url}: ${r.status} ${JSON.stringify(r.json)}`);
    await sleep(50);
  }
}

/** A job's status reply once it left `scraping` / `processing` (or is no longer a 200). */
export const over = (r: Reply) =>
  r.status !== 200 || !['scraping', 'processing'].includes(r.json.status as string);
