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

/** True when `candidate` is `page` with only a page-number parameter or /page/N segment changed. */
function isPageStep(candidate: URL, page: URL): boolean {
  if (candidate.origin !== page.origin) return false;
  if (candidate.pathname !== page.pathname) {
    const strip = (path: string): string => path.replace(/\/page\/\d+\/?$/i, '/').replace(/\/$/, '');
    return /\/page\/\d+\/?$/i.test(candidate.pathname) && strip(candidate.pathname) === strip(page.pathname);
  }
  const keys = new Set([...candidate.searchParams.keys(), ...page.searchParams.keys()]);
  let changed = 0;
  for (const key of keys) {
    if (candidate.searchParams.get(key) === page.searchParams.get(key)) continue;
    if (!PAGE_PARAM.test(key) || !/^\d+$/.test(candidate.searchParams.get(key) ?? '')) return false;
    changed++;
  }
  return changed === 1;
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
    const url = new URL(href);
    if (
      NEXT_TEXT.test(label) ||
      /^next\b/i.test(label) ||
      isPager(el.parent, pagers) ||
      isPageStep(url, pageUrl)
    ) {
      if (url.href.split('#')[0] !== pageUrl.href.split('#')[0]) found.add(href);
    }
  }
  return [...found];
}
