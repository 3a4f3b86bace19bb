/**
 * Resolves href against base; null for empty, unparsable or javascript: values. A page resolves the same hrefs
 * for its links, its Markdown and its pagination: each is parsed once while the base stays the same.
 */
export function absoluteUrl(href: string | undefined, base: URL): string | null {
  if (href === undefined) return null;
  if (resolved.base !== base) resolved = { base, known: new Map(), origin: plainOrigin(base) };
  const { known } = resolved;
  let url = known.get(href);
  if (url === undefined) {
    url = resolve(href, base, resolved.origin);
    if (known.size < MAX_REMEMBERED) known.set(href, url);
  }
  return url;
}

/**
 * The hrefs of the base last resolved against: one page's, dropped once the page is built (forgetResolvedUrls).
 * Not a WeakMap keyed by the base: its entries outlive their page until a full collection, and a page's hrefs
 * hold its HTML.
 */
let resolved: Resolved = { base: null, known: new Map(), origin: null };

interface Resolved {
  base: URL | null;
  known: Map<string, string | null>;
  /** The base's origin when a plain path is appended to it as it is (plainOrigin), read once per base. */
  origin: string | null;
}

/** Drops the remembered hrefs: the page they came from is built. */
export function forgetResolvedUrls(): void {
  resolved = { base: null, known: new Map(), origin: null };
}

/** Hrefs remembered per base: a page of more distinct links resolves the rest each time. */
const MAX_REMEMBERED = 10_000;

function resolve(href: string, base: URL, origin: string | null): string | null {
  const value = href.trim();
  if (!value) return null;
  if (origin !== null && isPlainPath(value)) return origin + value;
  try {
    const url = new URL(value, base);
    if (url.protocol === 'javascript:') return null;
    return url.href;
  } catch {
    return null;
  }
}

/**
 * A path of letters, digits and `_ ~ - . /`, neither protocol-relative nor with a dot segment: the URL parser
 * would append it to the origin as it is, so it is, without parsing.
 */
function isPlainPath(value: string): boolean {
  return value === '/' || (PLAIN_PATH.test(value) && !value.includes('/.'));
}
const PLAIN_PATH = /^\/[\w~-][\w~./-]*$/;

/** An http(s) base without credentials: its origin is everything a plain path is appended to. */
function plainOrigin(base: URL): string | null {
  const plain = (base.protocol === 'https:' || base.protocol === 'http:') && !base.username && !base.password;
  return plain ? base.origin : null;
}

/** Rewrites every candidate in a srcset to an absolute URL, keeping the descriptors. */
export function absoluteSrcset(srcset: string, base: URL): string {
  return srcset
    .split(',')
    .map((part) => {
      const [src, ...descriptor] = part.trim().split(/\s+/);
      const abs = absoluteUrl(src, base);
      return abs ? [abs, ...descriptor].join(' ') : null;
    })
    .filter((part): part is string => part !== null)
    .join(', ');
}
