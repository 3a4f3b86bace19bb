import { selectAll } from 'css-select';
import { uniqueSort } from 'domutils';
import { BadRequestError } from '../errors.js';
import { toCleanHtml } from './html.js';
import { collectImages } from './images.js';
import { STATIC_PAGE_WORDS } from './client-rendered.js';
import { collectLinks } from './links.js';
import { pickMainContent } from './main-content/main-content.js';
import { detectPageKind } from './main-content/page-kind.js';
import { withoutRepeatedParagraphs } from './main-content/repeated-paragraphs.js';
import type { PageKind } from './main-content/page-kind.js';
import { toMarkdown } from './markdown/markdown.js';
import { readMetadata } from './metadata.js';
import type { HeadMetadata } from './metadata.js';
import { pageSignals } from './parse/page-signals.js';
import { paginationLinks } from './pagination.js';
import type { AnyNode, Document, Element } from './parse/dom.js';
import { parseHtml } from './parse/parse.js';
import { allElements, bodyOf } from './parse/dom.js';
import { forgetResolvedUrls } from './parse/urls.js';
import type { TreeLimits } from './parse/tree-limits.js';
import {
  countWords,
  countWordsUpTo,
  markdownExcerpt,
  markdownToPlainText,
  readingTime,
  withoutUrls,
} from './text-stats.js';

export interface ContentOptions {
  onlyMainContent: boolean;
  includeTags?: string[];
  excludeTags?: string[];
  removeBase64Images: boolean;
  html: boolean;
  links: boolean;
  images: boolean;
  /** Also find the links that continue a paginated listing (crawl). */
  pagination?: boolean;
  /**
   * Work out the facts only a native document's metadata shows: its excerpt, frameworks, content/script ratio,
   * page type, word count and reading time (default true). Without them (for a surface that shows none) the
   * engine choice still gets what it reads: the words up to STATIC_PAGE_WORDS, and a page of fewer its script
   * signals.
   */
  facts?: boolean;
  /** Pages beyond these are refused (UnsupportedContentError) rather than processed. */
  limits?: TreeLimits;
}

export interface PageContent {
  /** The parsed tree, for further pure derivations in the same worker (never sent across threads). */
  doc: Document;
  head: HeadMetadata;
  markdown: string;
  /** Plain text of the Markdown's start, for language detection; made when asked (most pages declare one). */
  plainText: () => string;
  html?: string;
  links?: string[];
  images?: string[];
  pagination?: string[];
  /** Without the facts, counted up to STATIC_PAGE_WORDS only. */
  wordCount: number;
  readingTime: number;
  excerpt: string | null;
  detectedFrameworks: string[] | null;
  contentScriptRatio: number | null;
  /** What kind of page it is (page-kind.ts); worked out for main content or the facts. */
  pageKind?: PageKind;
  emptyAppRoot: string | null;
  angularRoot: boolean;
}

/** Everything derived from one page's HTML, from a single parse. Pure: no I/O. */
export function buildContent(html: string, pageUrl: URL, options: ContentOptions): PageContent {
  try {
    return derive(html, pageUrl, options);
  } finally {
    forgetResolvedUrls();
  }
}

function derive(html: string, pageUrl: URL, options: ContentOptions): PageContent {
  const doc = parseHtml(html, options.limits);
  const head = readMetadata(doc, pageUrl);
  const facts = options.facts ?? true;
  const included = options.includeTags !== undefined && options.includeTags.length > 0;
  const mainContent = options.onlyMainContent && !included;
  // Every element of the page, in order: the page's kind and its pagination read the same list.
  const elements = facts || mainContent || options.pagination ? allElements(doc) : [];
  const pageKind = facts || mainContent ? detectPageKind(doc, pageUrl, elements).kind : undefined;
  const body = bodyOf(doc);
  const excluded = new Set(select(options.excludeTags, body, 'excludeTags'));
  let roots: AnyNode[] = [body];
  let mainSkip: ((el: Element) => boolean) | undefined;
  let reveal: ReadonlySet<Element> | undefined;
  let blockByBlock = false;
  if (included) {
    roots = outermost(select(options.includeTags, body, 'includeTags'));
  } else if (mainContent) {
    const main = pickMainContent(doc, pageKind!);
    if (main) {
      roots = main.roots;
      mainSkip = main.skip;
      reveal = main.reveal;
      blockByBlock = main.blockByBlock ?? false;
    }
  }
  const skip = (el: Element): boolean => excluded.has(el) || (mainSkip?.(el) ?? false);
  const render = { base: head.base, removeBase64Images: options.removeBase64Images, skip, reveal };
  let markdown = toMarkdown(roots, render);
  if (mainSkip) {
    if (!blockByBlock) markdown = withoutClosingHeadings(markdown);
    markdown = withoutRepeatedParagraphs(markdown, pageKind!);
  }
  // Plain text is only needed for language detection, which reads the start of it.
  const plainText = (): string => markdownToPlainText(markdown.slice(0, 6000));
  const words = facts ? countWords(withoutUrls(markdown)) : countWordsUpTo(markdown, STATIC_PAGE_WORDS);
  const signals = facts || words < STATIC_PAGE_WORDS ? pageSignals(doc) : NO_SIGNALS;
  return {
    doc,
    head,
    markdown,
    plainText,
    html: options.html ? toCleanHtml(roots, render) : undefined,
    links: options.links ? collectLinks(body, head.base) : undefined,
    images: options.images ? collectImages(body, head.base, options.removeBase64Images) : undefined,
    pagination: options.pagination ? paginationLinks(doc, head.base, pageUrl, elements) : undefined,
    wordCount: words,
    readingTime: readingTime(words),
    excerpt: facts ? markdownExcerpt(markdown) : null,
    pageKind,
    ...signals,
  };
}

const NO_SIGNALS = {
  detectedFrameworks: null,
  contentScriptRatio: null,
  emptyAppRoot: null,
  angularRoot: false,
};

/**
 * A heading or two with nothing after them ("Join the conversation", "Related") close no content of a chosen
 * container: dropped. A longer run of headings at the end is content: a listing whose items are their titles.
 */
function withoutClosingHeadings(markdown: string): string {
  // Read back from the end, block by block (a regex run from the front would be quadratic in the headings).
  let cut = markdown.length;
  for (let headings = 0; headings <= MAX_CLOSING_HEADINGS; headings++) {
    const start = markdown.lastIndexOf('\n\n', cut - 1);
    const block = markdown.slice(start + 2, cut);
    if (start < 0 || !/^#{1,6} [^\n]*$/.test(block)) return markdown.slice(0, cut);
    cut = start;
  }
  return markdown;
}
const MAX_CLOSING_HEADINGS = 2;

function select(selectors: string[] | undefined, root: AnyNode, field: string): Element[] {
  if (!selectors || selectors.length === 0) return [];
  const found: Element[] = [];
  for (const [i, selector] of selectors.entries()) {
    try {
      found.push(...selectAll<AnyNode, Element>(selector, root));
    } catch {
      throw new BadRequestError(`${field}[${i}] is not a valid CSS selector: '${selector}'`);
    }
  }
  return found;
}

/** Drops matches nested inside other matches, keeping document order. */
function outermost(elements: Element[]): Element[] {
  const set = new Set<AnyNode>(elements);
  const isNested = (el: Element): boolean => {
    for (let p = el.parent; p; p = p.parent) if (set.has(p)) return true;
    return false;
  };
  return uniqueSort(elements.filter((el) => !isNested(el)));
}
