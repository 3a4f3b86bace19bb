import type { AnyNode, Element } from './parse/dom.js';
import { allElements, textOf } from './parse/dom.js';
import { absoluteUrl } from './parse/urls.js';

const NEXT_TEXT =
  /^(?:next|next page|next »|older|older posts|more results|»|›|>|→|weiter|nächste seite|suivant|page suivante|siguiente|próxima|successivo|volgende|次へ|下一页|下一頁|다음)$/i;
const PAGER = /(?:^|[\s_-])(?:pagination|pager|page-numbers|paging|pagenav|page-nav)(?:[\s_-]|$)/i;
const PAGE_PARAM = /^(?:page|p|pg|paged|pagenum|offset|start)$/i;

/** Whether `node` is pagination navigation or inside one; `known` remembers the answer for each ancestor met. */
function isPager(node: AnyNode | null, known: Map<AnyNode, boolean>): boolean {
  if (!node || !('attribs' in node)) return false;
  let answer = known.get(node);
  if (answer === undefined) {
    const names = `${node.attribs.class ?? ''} ${node.attribs.id ?? ''} ${node.attribs.role ?? ''}`;
    answer =
      PAGER.test(names) ||
      node.attribs['aria-label']?.toLowerCase().includes('pagination') === true ||
      isPager(node.parent, known);
    known.set(node, answer);
  }
  return answer;
}

/** The parts of the page's own URL every link is compared with, read once per page. */
interface PageAddress {
  url: URL;
  origin: string;
  hrefWithoutFragment: string;
}

/**
 * True when `href` (an absolute URL as serialized) is `page` with only a page-number parameter or /page/N
 * segment changed. Read from the string: a crawl asks this of every link of every page.
 */
function isPageStep(href: string, page: PageAddress): boolean {
  const rest = pathAndQuery(href, page);
  if (rest === null) return false;
  const at = rest.indexOf('?');
  const pathname = at < 0 ? rest : rest.slice(0, at);
  const { url } = page;
  if (pathname !== url.pathname) {
    const strip = (path: string): string => path.replace(/\/page\/\d+\/?$/i, '/').replace(/\/$/, '');
    return /\/page\/\d+\/?$/i.test(pathname) && strip(pathname) === strip(url.pathname);
  }
  const search = at < 0 ? '' : rest.slice(at);
  if (search === url.search || (search === '?' && url.search === '')) return false;
  const candidate = new URLSearchParams(search);
  const keys = new Set([...candidate.keys(), ...url.searchParams.keys()]);
  let changed = 0;
  for (const key of keys) {
    if (candidate.get(key) === url.searchParams.get(key)) continue;
    if (!PAGE_PARAM.test(key) || !/^\d+$/.test(candidate.get(key) ?? '')) return false;
    changed++;
  }
  return changed === 1;
}

/** The path and query of `href` (without its fragment) when it is on `page`'s origin; null otherwise. */
function pathAndQuery(href: string, page: PageAddress): string | null {
  const { origin } = page;
  const hash = href.indexOf('#');
  const end = hash < 0 ? href.length : hash;
  if (href.startsWith(origin) && href[origin.length] === '/') return href.slice(origin.length, end);
  // Credentials or another spelling of the origin: the parser says.
  const url = new URL(href.slice(0, end));
  return url.origin === origin ? url.pathname + url.search : null;
}

/**
 * Links that continue a paginated listing: rel="next", "next"/"»" links, links inside pagination
 * navigation, and links that only change a page-number parameter or a /page/N segment.
 */
export function paginationLinks(
  root: AnyNode,
  base: URL,
  pageUrl: URL,
  elements: readonly Element[] = allElements(root),
): string[] {
  const found = new Set<string>();
  const pagers = new Map<AnyNode, boolean>();
  const page: PageAddress = {
    url: pageUrl,
    origin: pageUrl.origin,
    hrefWithoutFragment: withoutFragment(pageUrl.href),
  };
  for (const el of elements) {
    if (el.name !== 'a' && el.name !== 'link') continue;
    const href = absoluteUrl(el.attribs.href, base);
    if (!href || !/^https?:/.test(href)) continue;
    const rel = el.attribs.rel;
    if (rel && rel.toLowerCase().split(/\s+/).includes('next')) {
      found.add(href);
      continue;
    }
    if (el.name !== 'a') continue;
    const label = (el.attribs['aria-label'] ?? textOf(el)).trim();
    if (
      NEXT_TEXT.test(label) ||
      /^next\b/i.test(label) ||
      isPager(el.parent, pagers) ||
      isPageStep(href, page)
    ) {
      if (withoutFragment(href) !== page.hrefWithoutFragment) found.add(href);
    }
  }
  return [...found];
}

function withoutFragment(href: string): string {
  const hash = href.indexOf('#');
  return hash < 0 ? href : href.slice(0, hash);
}
