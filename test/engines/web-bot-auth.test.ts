import assert from 'node:assert/strict';
import { createHash, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import { fixtureResolver } from '../fixtures/sites/crawl-site.js';
import { startService } from '../helpers.js';

/**
 * Web Bot Auth against a loopback verifier written from the drafts, independently of the signer: it parses
 * Signature-Input, rebuilds the RFC 9421 signature base and checks the Ed25519 signature with node:crypto.
 */

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const noBrowser = existsSync(chromiumPath) ? false : `chromium is not installed at ${chromiumPath}`;
const AGENT = 'https://agent.pagewright.test';

function makeKey(): { jwk: Record<string, string>; x: string; kid: string } {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' }) as Record<string, string>;
  // RFC 7638 / RFC 8037 §A.3: the required members in lexicographic order, no whitespace.
  const canonical = `{"crv":"Ed25519","kty":"OKP","x":"${jwk.x}"}`;
  return { jwk, x: jwk.x!, kid: createHash('sha256').update(canonical).digest('base64url') };
}

interface Parsed {
  label: string;
  /** The covered component identifiers as serialized, e.g. `"@authority"`, `"signature-agent";key="sig1"`. */
  components: string[];
  /** The Inner List with its parameters, as the signature base's @signature-params line holds it. */
  signatureParams: string;
  params: Record<string, string | number>;
  signature: Buffer;
}

function parseSignature(headers: IncomingHttpHeaders): Parsed | null {
  const input = headers['signature-input'];
  const sig = headers['signature'];
  if (typeof input !== 'string' || typeof sig !== 'string') return null;
  const m =
    /^([a-z*][a-z0-9_.*-]*)=(\((?:[^()"]|"[^"]*")*\)(?:;[a-z*][a-z0-9_.*-]*=(?:"[^"]*"|-?\d+))*)$/.exec(
      input,
    );
  const s = /^([a-z*][a-z0-9_.*-]*)=:([A-Za-z0-9+/=]+):$/.exec(sig);
  if (!m || !s || m[1] !== s[1]) return null;
  const list = m[2]!.slice(0, m[2]!.indexOf(')') + 1);
  const components = [...list.slice(1, -1).matchAll(/"[^"]+"(?:;[a-z]+(?:="[^"]*")?)*/g)].map((c) => c[0]);
  const params: Record<string, string | number> = {};
  for (const p of m[2]!.slice(list.length).matchAll(/;([a-z]+)=(?:"([^"]*)"|(-?\d+))/g)) {
    params[p[1]!] = p[2] ?? Number(p[3]);
  }
  return {
    label: m[1]!,
    components,
    signatureParams: m[2]!,
    params,
    signature: Buffer.from(s[2]!, 'base64'),
  };
}

/** Verifies a signed request as a Web Bot Auth origin would; the reason when it does not verify. */
function verifyRequest(headers: IncomingHttpHeaders, x: string, kid: string): string | null {
  const parsed = parseSignature(headers);
  if (!parsed) return 'no parsable Signature / Signature-Input';
  const { label, components, signatureParams, params, signature } = parsed;
  const now = Math.floor(Date.now() / 1000);
  if (params.tag !== 'web-bot-auth') return `tag ${params.tag}`;
  if (params.keyid !== kid) return `keyid ${params.keyid}`;
  if (typeof params.nonce !== 'string' || Buffer.from(params.nonce, 'base64').length < 32) return 'nonce';
  const created = Number(params.created);
  const expires = Number(params.expires);
  if (!(created <= now + 5 && now <= expires && expires - created <= 86_400)) return 'created/expires';
  const agent = /^([a-z*][a-z0-9_.*-]*)="((?:[^"\\]|\\.)*)"$/.exec(String(headers['signature-agent']));
  if (!agent || agent[1] !== label || agent[2] !== AGENT)
    return `signature-agent ${headers['signature-agent']}`;
  const expected = ['"@authority"', `"signature-agent";key="${label}"`];
  if (JSON.stringify(components) !== JSON.stringify(expected)) return `components ${components.join(' ')}`;
  const base = [
    `"@authority": ${String(headers.host).toLowerCase()}`,
    `"signature-agent";key="${label}": "${agent[2]}"`,
    `"@signature-params": ${signatureParams}`,
  ].join('\n');
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
  return verify(null, Buffer.from(base), key, signature) ? null : 'the signature does not verify';
}

/** A site answering every host it is asked for, recording each request with its verification. */
async function startVerifier(t: TestContext, x: string, kid: string) {
  const seen: { host: string; path: string; problem: string | null; caller?: string }[] = [];
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const caller = req.headers['x-caller'] as string | undefined;
    seen.push({ host: String(req.headers.host), path, problem: verifyRequest(req.headers, x, kid), caller });
    if (path === '/moved') return res.writeHead(302, { location: `${other}/landing` }).end();
    if (path === '/style.css') return res.writeHead(200, { 'content-type': 'text/css' }).end('p{color:red}');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      '<html><head><title>Signed</title><link rel="stylesheet" href="/style.css"></head>' +
        '<body><p>Verified by the origin.</p></body></html>',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const port = (server.address() as AddressInfo).port;
  const other = `http://other.site.test:${port}`;
  return { url: `http://signed.site.test:${port}`, other, seen };
}

describe('Web Bot Auth: every request of both engines is signed', () => {
  const { jwk, x, kid } = makeKey();
  const env = { WEB_BOT_AUTH_KEY: JSON.stringify(jwk), WEB_BOT_AUTH_AGENT: `${AGENT}/` };

  test('http engine: the page and each redirect hop carry a signature for their own authority', async (t) => {
    const site = await startVerifier(t, x, kid);
    const svc = await startService(t, { resolver: fixtureResolver, env });
    const { status, json } = await svc.post('/api/v1/scrape', { url: `${site.url}/moved`, engine: 'http' });
    assert.equal(status, 200, JSON.stringify(json));
    assert.deepEqual(
      site.seen.map((s) => [s.host, s.path, s.problem]),
      [
        [new URL(site.url).host, '/moved', null],
        [new URL(site.other).host, '/landing', null],
      ],
    );
  });

  test('browser engine: the page and its subresources are signed', { skip: noBrowser }, async (t) => {
    const site = await startVerifier(t, x, kid);
    const svc = await startService(t, { resolver: fixtureResolver, env });
    const headers = { 'X-Caller': 'kept' };
    const { status, json } = await svc.post('/api/v1/scrape', {
      url: `${site.url}/`,
      engine: 'browser',
      headers,
    });
    assert.equal(status, 200, JSON.stringify(json));
    const page = site.seen.find((s) => s.path === '/');
    const style = site.seen.find((s) => s.path === '/style.css');
    assert.equal(page?.problem, null, JSON.stringify(site.seen));
    assert.equal(style?.problem, null, JSON.stringify(site.seen));
    assert.equal(page.caller, 'kept', "the caller's headers still go with the signed request");
  });

  test('without a key nothing is signed, and the directory is a 404', async (t) => {
    const site = await startVerifier(t, x, kid);
    const svc = await startService(t, { resolver: fixtureResolver });
    assert.equal((await svc.post('/api/v1/scrape', { url: `${site.url}/`, engine: 'http' })).status, 200);
    assert.equal(site.seen[0]?.problem, 'no parsable Signature / Signature-Input');
    const res = await fetch(`${svc.url}/.well-known/http-message-signatures-directory`);
    assert.equal(res.status, 404);
  });
});

describe('GET /.well-known/http-message-signatures-directory', () => {
  test('serves the public key, signed for the authority asked, without an API key', async (t) => {
    const { jwk, x, kid } = makeKey();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'wba-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'key.jwk');
    writeFileSync(file, JSON.stringify(jwk)); // a file path works as well as the JWK itself
    const svc = await startService(t, {
      env: { WEB_BOT_AUTH_KEY: file, WEB_BOT_AUTH_AGENT: AGENT, API_KEYS: 'secret-key' },
    });
    const res = await fetch(`${svc.url}/.well-known/http-message-signatures-directory`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/http-message-signatures-directory+json');
    const body = await res.text();
    const directory = JSON.parse(body) as { keys: Record<string, string>[] };
    assert.deepEqual(directory.keys, [{ kty: 'OKP', crv: 'Ed25519', x, kid }], 'the public key only');
    const digest = `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
    assert.equal(res.headers.get('content-digest'), digest);
    const parsed = parseSignature({
      'signature-input': res.headers.get('signature-input') ?? undefined,
      signature: res.headers.get('signature') ?? undefined,
    });
    assert.ok(parsed, 'a parsable response signature');
    assert.deepEqual(parsed.components, ['"@authority";req', '"content-digest"']);
    assert.equal(parsed.params.tag, 'http-message-signatures-directory');
    assert.equal(parsed.params.keyid, kid);
    const base = [
      `"@authority";req: ${new URL(svc.url).host}`,
      `"content-digest": ${digest}`,
      `"@signature-params": ${parsed.signatureParams}`,
    ].join('\n');
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    assert.ok(verify(null, Buffer.from(base), key, parsed.signature), 'the directory signature verifies');
    // Everything else still needs the key.
    assert.equal((await svc.post('/api/v1/scrape', { url: 'http://example.test/' })).status, 401);
  });
});
