import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import { fixtureResolver } from '../fixtures/sites/crawl-site.js';
import { freePort } from '../fixtures/free-port.js';
import { selfSignedCertificate } from '../fixtures/tls.js';
import { startService } from '../helpers.js';
import { call, json, over, poll } from '../jobs/http.js';
import type { Json } from '../jobs/http.js';

/** robots.txt as RFC 9309 reads it, against loopback sites named *.site.test (resolved to 127.0.0.1). */

const ROBOTS = 'User-agent: *\nDisallow: /private/\n';
const HOME =
  '<html><head><title>Home</title></head>' +
  '<body><a href="/public">Public</a> <a href="/private/x">Private</a></body></html>';

interface TestSite {
  url: string;
  /** Paths asked for, in order. */
  hits: string[];
}

/** A site of three pages whose robots.txt answers as `robots` says; over TLS (self-signed) with `tls`. */
async function startSite(
  t: TestContext,
  host: string,
  robots: (res: ServerResponse) => void,
  tls = false,
): Promise<TestSite> {
  const hits: string[] = [];
  const handler: RequestListener = (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.push(path);
    if (path === '/robots.txt') return robots(res);
    const title = path === '/' ? null : path;
    res.writeHead(path === '/sitemap.xml' ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(title ? `<html><head><title>${title}</title></head><body><p>${title}</p></body></html>` : HOME);
  };
  const server = tls ? createHttpsServer(selfSignedCertificate(host), handler) : createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `${tls ? 'https' : 'http'}://${host}:${(server.address() as AddressInfo).port}`, hits };
}

const answer =
  (status: number, body = '') =>
  (res: ServerResponse) =>
    res.writeHead(status, { 'content-type': 'text/plain' }).end(body);

async function service(t: TestContext, logLines?: string[]) {
  const svc = await startService(t, {
    resolver: fixtureResolver,
    env: { CRAWL_MIN_DELAY_MS: '0' },
    logLines,
  });
  /** A Firecrawl crawl job to its end: its final status and its errors reply. */
  const crawlJob = async (body: Json) => {
    const id = json(await call(`${svc.url}/v2/crawl`, 'POST', body)).id as string;
    const end = json(await poll(`${svc.url}/v2/crawl/${id}`, over));
    return { end, errors: json(await call(`${svc.url}/v2/crawl/${id}/errors`)) };
  };
  /** The paths of a native crawl's pages, and its answer. */
  const crawl = async (body: Json) => {
    const { status, json: reply } = await svc.post('/api/v1/crawl', { formats: [], ...body });
    assert.equal(status, 200, JSON.stringify(reply));
    return { paths: (reply.data as { url: string }[]).map((p) => new URL(p.url).pathname), reply };
  };
  return { svc, crawlJob, crawl };
}

describe('robots.txt (RFC 9309)', () => {
  for (const status of [500, 503, 429]) {
    test(`robots.txt answering ${status}: no page is fetched, the start is reported blocked`, async (t) => {
      const site = await startSite(t, `r${status}.site.test`, answer(status));
      const logLines: string[] = [];
      const { crawlJob } = await service(t, logLines);
      const { end, errors } = await crawlJob({ url: `${site.url}/` });
      assert.equal(end.status, 'completed');
      assert.deepEqual(end.data, []);
      assert.deepEqual(site.hits, ['/robots.txt'], 'robots.txt only: no page, no sitemap');
      assert.deepEqual(errors.robotsBlocked, [`${site.url}/`]);
      const why = logLines.find((l) => l.includes('url dropped') && l.includes('robots.txt unreachable'));
      assert.ok(why?.includes(`answered HTTP ${status}`), `the reason is logged: ${why}`);
    });
  }

  test('a robots.txt answering 404 (or another 4xx) allows everything', async (t) => {
    const site = await startSite(t, 'r404.site.test', answer(404));
    const { crawl } = await service(t);
    const { paths } = await crawl({ url: `${site.url}/`, ignoreSitemap: true });
    assert.deepEqual(paths.sort(), ['/', '/private/x', '/public']);
  });

  test('a refused connection disallows the site', async (t) => {
    const url = `http://refused.site.test:${await freePort()}/`;
    const { crawlJob, crawl } = await service(t);
    const { end, errors } = await crawlJob({ url });
    assert.equal(end.status, 'completed');
    assert.deepEqual(errors.robotsBlocked, [url]);
    assert.deepEqual(errors.errors, [], 'blocked by robots, not a failed page');
    const { paths } = await crawl({ url });
    assert.deepEqual(paths, []);
  });

  test("over TLS, robots.txt is read with the pages' skipTlsVerification and honoured", async (t) => {
    const site = await startSite(t, 'tls.site.test', answer(200, ROBOTS), true);
    const { crawl } = await service(t);
    const { paths } = await crawl({ url: `${site.url}/`, skipTlsVerification: true, ignoreSitemap: true });
    assert.deepEqual(paths.sort(), ['/', '/public']);
    assert.equal(site.hits[0], '/robots.txt', 'robots.txt read first, through the self-signed certificate');
    assert.ok(!site.hits.includes('/private/x'), 'its Disallow honoured');
    // Verified (the default), the certificate fails for robots.txt as for the pages: nothing is fetched.
    const before = site.hits.length;
    const verified = await crawl({ url: `${site.url}/`, ignoreSitemap: true });
    assert.deepEqual(verified.paths, []);
    assert.equal(site.hits.length, before, 'no request got past the TLS handshake');
  });
});
