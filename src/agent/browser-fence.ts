import type { CDPSession, Page, Request, Route } from 'playwright-core';

/** Redirects followed from Node for a page whose own interception is not on yet (a popup's first request). */
const MAX_REDIRECTS = 10;
/** Requests through which a page's script reads data: held to the origins of the allowed pages. */
const DATA_REQUESTS: ReadonlySet<string> = new Set(['fetch', 'xhr', 'eventsource']);

/** What a fence refused, for the tool's answer. */
export interface NavigationFence {
  /** URLs refused so far, each once, in order. */
  readonly refused: readonly string[];
}

/** The page a request navigates, or null when it has no frame yet (a popup's first request). */
function pageOf(request: Request): Page | null {
  try {
    return request.frame().page();
  } catch {
    return null;
  }
}

const originOf = (url: string): string | null => {
  try {
    const parsed = new URL(url);
    // A WebSocket reaches the origin of its http(s) twin.
    parsed.protocol =
      parsed.protocol === 'wss:' ? 'https:' : parsed.protocol === 'ws:' ? 'http:' : parsed.protocol;
    return parsed.origin;
  } catch {
    return null;
  }
};

/**
 * Keeps every navigation of `page`'s browser context on the pages `allows` accepts (a strict run's URLs): an
 * `open`, a clicked link, a form, a script or meta refresh, an iframe, a `window.open` popup and every redirect
 * of any of them. What it refuses is aborted before a request leaves the browser, and listed in `refused`.
 * Scripts' data requests (fetch, XHR, EventSource, WebSocket) are held to the origins of `allowedUrls`, so that
 * code run on an allowed page cannot read another; a page's other subresources (scripts, styles, images,
 * fonts) load from anywhere, as they do when a strict run's page is scraped.
 *
 * Two layers, because Playwright's routing sees only the first request of a navigation, never its redirects:
 * each page of the context intercepts its own document requests over CDP (`Fetch`, which pauses every
 * redirect hop too) from before its first navigation; the context's route refuses what no page-level
 * interception can catch in time (a popup's first request, made before its page exists), following its
 * redirects from Node (through the context's own proxy, so the SSRF guard applies) and checking each one.
 * Must be installed before the page navigates: a redirect of a request already on its way is not seen.
 */
export async function fenceNavigation(
  page: Page,
  allows: (url: string) => boolean,
  allowedUrls: readonly string[],
): Promise<NavigationFence> {
  const context = page.context();
  const origins = new Set(allowedUrls.map(originOf).filter((o): o is string => o !== null));
  const refused: string[] = [];
  const refuse = (url: string): void => {
    if (!refused.includes(url)) refused.push(url);
  };
  const fenced = new WeakSet<Page>();
  const fence = async (target: Page): Promise<void> => {
    const cdp = await context.newCDPSession(target);
    cdp.on('Fetch.requestPaused', (event) => void paused(cdp, event, allows, refuse));
    await cdp.send('Fetch.enable', {
      patterns: [{ urlPattern: '*', resourceType: 'Document', requestStage: 'Request' }],
    });
    fenced.add(target);
  };
  context.on('page', (popup) => void fence(popup).catch(() => undefined));
  await fence(page);
  await context.route('**/*', (route) => routed(route, { allows, origins, refuse, fenced }));
  await context.routeWebSocket(
    () => true,
    (ws) => {
      if (origins.has(originOf(ws.url()) ?? '')) return ws.connectToServer();
      refuse(ws.url());
      return ws.close({ code: 1008, reason: 'outside the URLs this run may read' });
    },
  );
  return { refused };
}

/** A document request paused at the page's own interception: continued when allowed, failed otherwise. */
async function paused(
  cdp: CDPSession,
  event: { requestId: string; request: { url: string } },
  allows: (url: string) => boolean,
  refuse: (url: string) => void,
): Promise<void> {
  const ok = allows(event.request.url);
  if (!ok) refuse(event.request.url);
  await (
    ok
      ? cdp.send('Fetch.continueRequest', { requestId: event.requestId })
      : cdp.send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'BlockedByClient' })
  ).catch(() => undefined); // the page or its context closed meanwhile
}

interface RouteRules {
  allows: (url: string) => boolean;
  origins: ReadonlySet<string>;
  refuse: (url: string) => void;
  fenced: WeakSet<Page>;
}

async function routed(route: Route, rules: RouteRules): Promise<void> {
  const request = route.request();
  const url = request.url();
  try {
    if (request.isNavigationRequest()) {
      if (!rules.allows(url)) {
        rules.refuse(url);
        return await route.abort('blockedbyclient');
      }
      const page = pageOf(request);
      if (page && rules.fenced.has(page)) return await route.continue();
      return await followInNode(route, rules);
    }
    if (DATA_REQUESTS.has(request.resourceType()) && !rules.origins.has(originOf(url) ?? '')) {
      rules.refuse(url);
      return await route.abort('blockedbyclient');
    }
    await route.continue();
  } catch {
    await route.abort('failed').catch(() => undefined); // a request left unanswered would hang its page
  }
}

/**
 * A navigation of a page not yet intercepting its own requests: fetched from Node hop by hop, each redirect's
 * target checked before it is requested, and the last answer given to the page (which keeps the first URL).
 */
async function followInNode(route: Route, rules: RouteRules): Promise<void> {
  const request = route.request();
  let url = request.url();
  let method = request.method();
  let postData = request.postDataBuffer() ?? undefined;
  for (let hop = 0; ; hop++) {
    const response = await route.fetch({ url, method, ...(postData ? { postData } : {}), maxRedirects: 0 });
    const location = response.headers().location;
    const status = response.status();
    if (status < 300 || status >= 400 || !location) return route.fulfill({ response });
    const next = new URL(location, url).href;
    if (!rules.allows(next)) {
      rules.refuse(next);
      return route.abort('blockedbyclient');
    }
    if (hop >= MAX_REDIRECTS) return route.abort('failed');
    // As browsers do: a 303, and a 301 or 302 answering a POST, go on as a GET without the body.
    if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
      method = 'GET';
      postData = undefined;
    }
    url = next;
  }
}
