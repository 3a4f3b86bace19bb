import type { AnyNode } from './parse/dom.js';
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

/**
 * True when `href` (an absolute URL as serialized) is `page` with only a page-number parameter or /page/N
 * segment changed. Read from the string: a crawl asks this of every link of every page.
 */
function isPageStep(href: string, page: URL): boolean {
  const rest = pathAndQuery(href, page);
  if (rest === null) return false;
  const at = rest.indexOf('?');
  const pathname = at < 0 ? rest : rest.slice(0, at);
  if (pathname !== page.pathname) {
    const strip = (path: string): string => path.replace(/\/page\/\d+\/?$/i, '/').replace(/\/$/, '');
    return /\/page\/\d+\/?$/i.test(pathname) && strip(pathname) === strip(page.pathname);
  }
  const search = at < 0 ? '' : rest.slice(at);
  if (search === page.search || (search === '?' && page.search === '')) return false;
  const candidate = new URLSearchParams(search);
  const keys = new Set([...candidate.keys(), ...page.searchParams.keys()]);
  let changed = 0;
  for (const key of keys) {
    if (candidate.get(key) === page.searchParams.get(key)) continue;
    if (!PAGE_PARAM.test(key) || !/^\d+$/.test(candidate.get(key) ?? '')) return false;
    changed++;
  }
  return changed === 1;
}

/** The path and query of `href` (without its fragment) when it is on `page`'s origin; null otherwise. */
function pathAndQuery(href: string, page: URL): string | null {
  const hash = href.indexOf('#');
  const whole = hash < 0 ? href : href.slice(0, hash);
  if (whole.startsWith(page.origin) && whole[page.origin.length] === '/')
    return whole.slice(page.origin.length);
  // Credentials or another spelling of the origin: the parser says.
  const url = new URL(whole);
  return url.origin === page.origin ? url.pathname + url.search : null;
}

/**
 * Links that continue a paginated listing: rel="next", "next"/"»" links, links inside pagination
 * navigation, and links that only change a page-number parameter or a /page/N segment.
 */
export function paginationLinks(root: AnyNode, base: URL, pageUrl: URL): string[] {
  const found = new Set<string>();
  const pagers = new Map<AnyNode, boolean>();
  for (const el of allElements(root)) {
    if (el.name !== 'a' && el.name !== 'link') continue;
    const href = absoluteUrl(el.attribs.href, base);
    if (!href || !/^https?:/.test(href)) continue;
    const rel = (el.attribs.rel ?? '').toLowerCase().split(/\s+/);
    if (rel.includes('next')) {
      found.add(href);
      continue;
    }
    if (el.name !== 'a') continue;
    const label = (el.attribs['aria-label'] ?? textOf(el)).trim();
    if (
      NEXT_TEXT.test(label) ||
      /^next\b/i.test(label) ||
      isPager(el.parent, pagers) ||
      isPageStep(href, pageUrl)
    ) {
      if (href.split('#')[0] !== pageUrl.href.split('#')[0]) found.add(href);
    }
  }
  return [...found];
}
