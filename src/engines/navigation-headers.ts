import { isIP } from 'node:net';
import { brandHeader } from './user-agent.js';
import type { Persona } from './user-agent.js';

/**
 * The headers of a top-level navigation as the shipped Chromium sends them over HTTP/1.1, in its order and its
 * spelling (recorded from it on loopback; test/engines/identity.test.ts compares the two). undici writes an
 * object's headers in insertion order after its own `host` and `connection`, which Chromium also sends first.
 * Chromium sends no `priority` header over HTTP/1.1; over HTTP/2 its `priority` (RFC 9218) comes last, after the
 * cookie.
 */

/** Chromium's Accept for a document. */
const ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/jxl,image/avif,image/webp,image/apng,*/*;q=0.8,' +
  'application/signed-exchange;v=b3;q=0.7';

/**
 * Whether Chromium counts the URL as potentially trustworthy (https, or a loopback host): only there does it
 * send client hints and `sec-fetch-*`, and offer brotli and zstd.
 */
export function trustworthy(url: URL): boolean {
  if (url.protocol === 'https:') return true;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/**
 * The navigation's headers: Chromium's set for `url` with the request's `own` headers. An own header Chromium
 * also sends takes its place (names match in any case); the others follow the User-Agent, where Chromium puts
 * a page's extra headers, and a Cookie comes last, as Chromium sends it. An own User-Agent other than the
 * persona's drops the client hints (the request may set its own): they would name a browser it no longer
 * claims to be.
 */
export function navigationHeaders(
  persona: Persona,
  url: URL,
  own: Record<string, string>,
  protocol: 'http/1.1' | 'h2' = 'http/1.1',
): Record<string, string> {
  const secure = trustworthy(url);
  const ownByName = new Map(Object.entries(own).map(([name, value]) => [name.toLowerCase(), value]));
  const ownAgent = ownByName.get('user-agent');
  const hints = secure && (ownAgent === undefined || ownAgent === persona.userAgent) ? persona.hints : null;
  const chromium: Array<[string, string]> = [];
  if (hints) {
    chromium.push(
      ['sec-ch-ua', brandHeader(hints.brands)],
      ['sec-ch-ua-mobile', hints.mobile ? '?1' : '?0'],
      ['sec-ch-ua-platform', `"${hints.platform}"`],
    );
  }
  chromium.push(['Upgrade-Insecure-Requests', '1'], ['User-Agent', persona.userAgent]);
  const extrasAt = chromium.length;
  chromium.push(['Accept', ACCEPT]);
  if (secure) {
    chromium.push(
      ['Sec-Fetch-Site', 'none'],
      ['Sec-Fetch-Mode', 'navigate'],
      ['Sec-Fetch-User', '?1'],
      ['Sec-Fetch-Dest', 'document'],
    );
  }
  chromium.push(
    ['Accept-Encoding', secure ? 'gzip, deflate, br, zstd' : 'gzip, deflate'],
    ['Accept-Language', 'en-US,en;q=0.9'],
  );
  const known = new Set(chromium.map(([name]) => name.toLowerCase()));
  const extras = Object.entries(own).filter(([name]) => !known.has(name.toLowerCase()));
  const cookie = extras.filter(([name]) => name.toLowerCase() === 'cookie');
  const ordered = [
    ...chromium.slice(0, extrasAt),
    ...extras.filter(([name]) => name.toLowerCase() !== 'cookie'),
    ...chromium.slice(extrasAt),
    ...cookie,
    ...(protocol === 'h2' ? [['priority', 'u=0, i'] as [string, string]] : []),
  ];
  const headers: Record<string, string> = {};
  for (const [name, value] of ordered) headers[name] = ownByName.get(name.toLowerCase()) ?? value;
  return headers;
}
