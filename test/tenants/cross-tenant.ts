import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { TestContext } from 'node:test';

/**
 * Two tenants and an operator on one service, and what a route naming a record answers each: tenant `a` owns
 * the records; `b` gets exactly what an id never given gets (404, the same body but for the id); `a` and the
 * operator get the record. Rows are tables, so a test file reads as its list of routes.
 */

export const KEYS = { a: 'ka', b: 'kb', op: 'kop' } as const;
export type Who = keyof typeof KEYS;
export const TENANT_ENV = { API_KEYS: 'a:ka,b:kb', ADMIN_API_KEYS: 'kop' };

export interface Reply {
  status: number;
  json: Record<string, unknown>;
}

/**
 * A stand-in for a test's context (what startService takes) in a suite's `before`: what it registers with
 * `after` runs when `cleanUp` is called, last first, in the suite's `after`.
 */
export function suiteCleanup(): { t: TestContext; cleanUp(): Promise<void> } {
  const steps: (() => unknown)[] = [];
  const t = { after: (step: () => unknown) => void steps.push(step) } as unknown as TestContext;
  return {
    t,
    async cleanUp() {
      for (const step of steps.reverse()) await step();
    },
  };
}

/** One request with `who`'s key. */
export async function call(base: string, who: Who, method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: {
      authorization: `Bearer ${KEYS[who]}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : {}) as Record<string, unknown> } as Reply;
}

/** An id of the same shape that no record has (its hex digits drawn anew). */
export const randomLike = (id: string): string =>
  id.replace(/[0-9a-f]/g, () => '0123456789abcdef'[Math.floor(Math.random() * 16)]!);

/** `text` with each of `ids` replaced by `<id>`: two answers compared but for the ids they name. */
export const withoutIds = (text: string, ids: string[]): string =>
  ids.reduce((s, id) => s.split(id).join('<id>'), text);

const tokensOf = (text: string): string[] => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

/** `{token}`s of `template` filled from `ids`. */
export const fill = (template: string, ids: Record<string, string>): string =>
  template.replace(/\{(\w+)\}/g, (_, token: string) => {
    assert.ok(ids[token], `no record for {${token}}`);
    return ids[token];
  });

/** What each `{token}` stands for: a's records, and makers of new ones (for rows that change theirs). */
export interface Records {
  ids: Record<string, string>;
  fresh: Record<string, () => Promise<string>>;
  /** What rows name that is no record (the site's origin): never swapped for an unknown one. */
  given?: Record<string, string>;
}

/** A route naming a's records by the `{token}`s of its path (and body). */
export interface Row {
  name: string;
  method: string;
  path: string;
  body?: unknown;
  /** Changes its record (cancel, delete): the operator is given a record of its own, made by `fresh`. */
  fresh?: true;
  /** Acts as the caller's own tenant (opens a session with the caller's profile): no operator step. */
  ownerOnly?: true;
}

async function idsFor(text: string, fresh: boolean | undefined, records: Records) {
  const ids: Record<string, string> = { ...records.ids, ...records.given };
  for (const token of tokensOf(text)) {
    const make = fresh ? records.fresh[token] : undefined;
    if (make) ids[token] = await make();
  }
  return ids;
}

const request = (row: Row, ids: Record<string, string>) => ({
  path: fill(row.path, ids),
  body: row.body === undefined ? undefined : (JSON.parse(fill(JSON.stringify(row.body), ids)) as unknown),
});

/**
 * A test per row: `b` gets the answer of ids never given (404, the same body but for the ids), `a` a success,
 * then the operator a success.
 */
export function crossTenantRows(base: () => string, rows: Row[], records: () => Records): void {
  for (const row of rows) {
    test(`${row.method} ${row.path}: ${row.name}`, async () => {
      const text = row.path + JSON.stringify(row.body ?? '');
      const ids = await idsFor(text, row.fresh, records());
      const given = records().given ?? {};
      const tokens = tokensOf(text).filter((t) => !(t in given));
      const unknown = { ...given, ...Object.fromEntries(tokens.map((t) => [t, randomLike(ids[t]!)])) };
      const real = request(row, ids);
      const fake = request(row, unknown);
      const other = await call(base(), 'b', row.method, real.path, real.body);
      const never = await call(base(), 'b', row.method, fake.path, fake.body);
      assert.equal(other.status, 404, `b: ${JSON.stringify(other.json)}`);
      assert.equal(never.status, 404, `unknown ids: ${JSON.stringify(never.json)}`);
      assert.equal(
        withoutIds(
          JSON.stringify(other.json),
          tokens.map((t) => ids[t]!),
        ),
        withoutIds(
          JSON.stringify(never.json),
          tokens.map((t) => unknown[t]!),
        ),
        'b learns nothing an unknown id would not tell',
      );
      const own = await call(base(), 'a', row.method, real.path, real.body);
      assert.equal(own.status, 200, `a: ${JSON.stringify(own.json)}`);
      if (row.ownerOnly) return;
      const mine = row.fresh ? request(row, await idsFor(text, true, records())) : real;
      const op = await call(base(), 'op', row.method, mine.path, mine.body);
      assert.equal(op.status, 200, `operator: ${JSON.stringify(op.json)}`);
    });
  }
}

/** A list route and the `{token}` of a's record it lists. */
export interface ListRow {
  name: string;
  path: string;
  token: string;
  /** The record must be made just before (a crawl still running). */
  fresh?: true;
}

/**
 * A test per list: a's record is in a's list and the operator's (and under `?tenant=a`), never in b's (not
 * even with `?tenant=a`) nor in the operator's `?tenant=b`.
 */
export function crossTenantLists(base: () => string, rows: ListRow[], records: () => Records): void {
  for (const row of rows) {
    test(`GET ${row.path}: ${row.name}`, async () => {
      const id = (await idsFor(`{${row.token}}`, row.fresh, records()))[row.token]!;
      const lists = async (who: Who, tenant?: string): Promise<boolean> => {
        const query = tenant ? `${row.path.includes('?') ? '&' : '?'}tenant=${tenant}` : '';
        const reply = await call(base(), who, 'GET', row.path + query);
        assert.equal(reply.status, 200, JSON.stringify(reply.json));
        return JSON.stringify(reply.json).includes(id);
      };
      assert.equal(await lists('a'), true, "a's list");
      assert.equal(await lists('op'), true, "the operator's list");
      assert.equal(await lists('op', 'a'), true, "the operator's list of tenant a");
      assert.equal(await lists('op', 'b'), false, "the operator's list of tenant b");
      assert.equal(await lists('b'), false, "b's list");
      assert.equal(await lists('b', 'a'), false, "b's list, naming tenant a");
    });
  }
}

/** What a WebSocket met: whether it opened, its first messages (binary ones as `<binary>`), how it closed. */
export interface WsOutcome {
  opened: boolean;
  messages: string[];
  code: number;
  reason: string;
}

/**
 * Opens a WebSocket (the key as a header or as the subprotocol), sends `first` once open, and collects what
 * comes until the server closes it, a moment after its first message, or after `ms`.
 */
export function wsOutcome(
  url: string,
  auth: { headers: Record<string, string> } | { protocol: string },
  first?: string,
  ms = 5000,
): Promise<WsOutcome> {
  const init = 'headers' in auth ? { headers: auth.headers } : { protocols: [auth.protocol] };
  const ws = new WebSocket(url, init as unknown as string[]);
  ws.binaryType = 'arraybuffer';
  const outcome: WsOutcome = { opened: false, messages: [], code: 0, reason: '' };
  return new Promise((resolve) => {
    const timer = setTimeout(() => ws.close(), ms);
    ws.onopen = () => {
      outcome.opened = true;
      if (first) ws.send(first);
    };
    ws.onmessage = (e) => {
      outcome.messages.push(typeof e.data === 'string' ? e.data : '<binary>');
      setTimeout(() => ws.close(), 300);
    };
    ws.onclose = (e) => {
      clearTimeout(timer);
      resolve({ ...outcome, code: e.code, reason: e.reason });
    };
  });
}

/** A's record through a WebSocket: `b` meets what an unknown id meets; `a` and the operator are served. */
export interface WsRow {
  name: string;
  path: string;
  /** The key goes as the subprotocol (browsers, Firecrawl's watcher) or in a header (CDP clients). */
  keyIn: 'protocol' | 'header';
  first?: string;
  /** Whether the outcome is the record served. */
  served: (o: WsOutcome) => boolean;
}

const authOf = (who: Who, keyIn: WsRow['keyIn']) =>
  keyIn === 'header' ? { headers: { authorization: `Bearer ${KEYS[who]}` } } : { protocol: KEYS[who] };

export function crossTenantSockets(base: () => string, rows: WsRow[], records: () => Records): void {
  for (const row of rows) {
    test(`WebSocket ${row.path}: ${row.name}`, async () => {
      const tokens = tokensOf(row.path);
      const { ids } = records();
      const unknown = Object.fromEntries(tokens.map((t) => [t, randomLike(ids[t]!)]));
      const ws = base().replace(/^http/, 'ws');
      const open = (who: Who, fromIds: Record<string, string>) =>
        wsOutcome(ws + fill(row.path, fromIds), authOf(who, row.keyIn), row.first);
      const other = await open('b', ids);
      const never = await open('b', unknown);
      const shown = (o: WsOutcome, named: string[]) => withoutIds(JSON.stringify(o), named);
      assert.equal(
        shown(
          other,
          tokens.map((t) => ids[t]!),
        ),
        shown(
          never,
          tokens.map((t) => unknown[t]!),
        ),
        'b meets what an unknown id meets',
      );
      assert.equal(row.served(other), false, `b is not served: ${JSON.stringify(other)}`);
      for (const who of ['a', 'op'] as const) {
        const o = await open(who, ids);
        assert.ok(row.served(o), `${who} is served: ${JSON.stringify(o)}`);
      }
    });
  }
}

/**
 * A loopback site: `/` links to `/one` and `/two`; `/hang` never answers (a job on it runs until cancelled);
 * `/counter` says how often it was read. Everything else is a 404.
 */
export async function startTenantSite(): Promise<{ url: string; close(): Promise<void> }> {
  const hanging = new Set<ServerResponse>();
  let reads = 0;
  const page = (res: ServerResponse, title: string, body: string) =>
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<!doctype html><title>${title}</title><main><h1>${title}</h1>${body}</main>`);
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/') return page(res, 'Home', '<a href="/one">one</a> <a href="/two">two</a>');
    if (path === '/one' || path === '/two') return page(res, `Page ${path}`, `<p>Text of ${path}.</p>`);
    if (path === '/counter') return page(res, 'Counter', `<p>Read ${++reads} times.</p>`);
    if (path === '/hang') return void hanging.add(res);
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
