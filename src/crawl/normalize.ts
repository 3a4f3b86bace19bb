/** Query parameters that only track the visitor; they never change the page. */
const TRACKING = /^(?:utm_[a-z_]+|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|_ga|_gl|yclid)$/i;

/**
 * The dedup key of a URL: http(s) only, lower-case scheme and host (WHATWG URL parsing also drops the
 * default port and resolves dot segments), no fragment, tracking parameters removed, remaining query
 * parameters sorted by name (stable for equal names), no empty "?". Path case and trailing slashes are
 * kept: servers may treat them as different pages. Null for anything that is not an http(s) URL.
 */
export function normalizeUrl(input: string | URL, base?: string | URL): string | null {
  let url: URL;
  try {
    url = new URL(input, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  url.hash = '';
  url.username = '';
  url.password = '';
  if (url.search) {
    const params = [...url.searchParams].filter(([key]) => !TRACKING.test(key));
    params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    url.search = new URLSearchParams(params).toString();
  }
  return url.href;
}

/** Host without a leading "www.", for treating www and the bare domain as one site. */
export function siteHost(url: URL): string {
  return url.hostname.replace(/^www\./, '');
}
