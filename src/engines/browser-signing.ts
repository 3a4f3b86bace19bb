import type { BrowserContext } from 'playwright-core';
import type { WebBotAuth } from '../lib/web-bot-auth.js';

/** Our three headers, whatever case a page's own headers give them: ours replace theirs. */
const SIGNATURE_HEADERS = new Set(['signature', 'signature-input', 'signature-agent']);

/**
 * Signs every request of a context's pages (Web Bot Auth) with a signature for the request's own authority.
 * The guarded proxy cannot: HTTPS passes it as an opaque CONNECT tunnel. A route sees each request Chromium
 * makes (navigations, subresources, frames, fetches) before it leaves; the headers are handed back in
 * Chromium's order and case, with ours added, and Chromium adds its cookies afterwards as usual.
 *
 * What a route does not reach goes unsigned or keeps the first signature: WebSocket handshakes are not
 * routed; a redirect hop is not routed again, and Playwright sends the first hop's headers with it, so a hop to
 * another authority carries a signature that does not verify there; CORS preflights are answered by
 * Playwright itself while a route is on. The route also turns Chromium's HTTP cache off for the context,
 * which holds one page anyway.
 */
export async function signRequests(context: BrowserContext, signer: WebBotAuth): Promise<void> {
  await context.route('**/*', async (route) => {
    const request = route.request();
    let url: URL;
    try {
      url = new URL(request.url());
    } catch {
      return route.fallback().catch(() => undefined);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return route.fallback().catch(() => undefined);
    try {
      const headers: Record<string, string> = {};
      for (const { name, value } of await request.headersArray()) {
        if (!SIGNATURE_HEADERS.has(name.toLowerCase())) headers[name] = value;
      }
      await route.fallback({ headers: { ...headers, ...signer.headersFor(url) } });
    } catch {
      // The context closed while the request waited (the page's deadline): nothing is left to sign.
    }
  });
}
