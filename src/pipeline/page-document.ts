import { buildContent } from '../content/build.js';
import { decodeHtml, decodeText } from '../content/parse/decode.js';
import { pageLanguage } from '../content/language.js';
import { classifyBody, mediaTypeOf } from '../content/parse/media-type.js';
import { clientRenderedReason } from '../content/client-rendered.js';
import { parseHtml } from '../content/parse/parse.js';
import type { TreeLimits } from '../content/parse/tree-limits.js';
import type { AnyNode } from '../content/parse/dom.js';
import { extractWithSelectors } from '../extract/css.js';
import { textDocument } from '../content/documents/text-document.js';
import { brandingProfile } from '../content/branding-profile.js';
import type { FetchedPage } from '../engines/types.js';
import { UnsupportedContentError } from '../errors.js';
import type { FormatName } from '../schemas/common.js';
import type { DocumentLayoutOption } from '../schemas/document-layout.js';
import type { PageDocument, PageMetadata } from '../schemas/page.js';

export interface DocumentOptions {
  sourceUrl: string;
  formats: FormatName[];
  onlyMainContent: boolean;
  removeBase64Images: boolean;
  includeTags?: string[];
  excludeTags?: string[];
  detectionReason: string | null;
  /** Also return every link, whatever the formats (crawl, map). */
  discover?: boolean;
  /** Also return the links that continue a paginated listing (a crawl that follows them). */
  pagination?: boolean;
  /** The facts only a native document shows, the word count among them (content/build.ts); default true. */
  facts?: boolean;
  /** Bounds of the HTML tree handled (MAX_HTML_DEPTH, MAX_HTML_NODES). */
  limits?: TreeLimits;
  /** CSS extraction (extract's css and auto modes), run on the same tree as everything else. */
  cssExtract?: CssExtraction;
  /** Pages of a document (PDF) read at most (MAX_DOCUMENT_PAGES). */
  maxDocumentPages?: number;
  /** A PDF's pages and blocks besides its Markdown. */
  documentLayout?: DocumentLayoutOption;
  /** false: a PDF comes back as base64 of its bytes instead of being parsed (Firecrawl's `parsers: []`). */
  parsePdf?: boolean;
}

export interface CssExtraction {
  selectors: Record<string, string>;
  /** The schema's properties, whose types coerce the values. */
  properties: Record<string, unknown> | undefined;
  /** The whole schema, for local $ref. */
  schema: unknown;
}

/** A page document plus what a crawler needs to go on from it. */
export interface RenderedPage {
  document: PageDocument;
  /** Every http(s) link on the page (only with `discover`). */
  links: string[];
  /** Links that continue a paginated listing (only with `pagination`). */
  pagination: string[];
  /** Why the page looks client-side rendered, or null (HTML pages fetched over http only). */
  clientRendered: string | null;
  /** What `cssExtract` found (only when asked). */
  extracted?: Record<string, unknown>;
  /** Set when the bytes were a document (PDF, Word, Excel, PowerPoint) converted to a page: its kind. */
  documentKind?: string;
}

/** Turns fetched bytes into the page document (title, description, url, metadata, formats), only the requested formats. */
export function toPageDocument(page: FetchedPage, options: DocumentOptions): PageDocument {
  return renderPage(page, options).document;
}

export function renderPage(page: FetchedPage, options: DocumentOptions): RenderedPage {
  const contentType = page.headers['content-type'];
  const mediaType = mediaTypeOf(contentType);
  const kind = classifyBody(mediaType, page.body);
  if (kind === 'binary') {
    throw new UnsupportedContentError(
      `${page.url} returned ${mediaType || 'binary data'}, which cannot be converted to text`,
    );
  }
  const want = new Set(options.formats);
  const base = {
    url: page.url,
    sourceUrl: options.sourceUrl,
    statusCode: page.status,
    contentType: mediaType || (kind === 'html' ? 'text/html' : 'text/plain'),
    detectionReason: options.detectionReason,
  };
  if (kind !== 'html') {
    const text = decodeText(page.body, contentType);
    const content = textDocument(text, kind);
    const metadata: PageMetadata = {
      ...emptyHead(),
      ...base,
      language: pageLanguage(null, page.headers['content-language'], () => text),
      wordCount: content.wordCount,
      readingTime: content.readingTime,
      excerpt: content.excerpt,
      detectedFrameworks: null,
      contentScriptRatio: null,
    };
    const document = assemble(metadata, want, {
      markdown: content.markdown,
      html: content.html,
      rawHtml: text,
      links: [],
      images: [],
    });
    const extracted = options.cssExtract
      ? runCssExtraction(parseHtml(text, options.limits), options.cssExtract)
      : undefined;
    return { document, links: [], pagination: [], clientRendered: null, extracted };
  }
  const html = decodeHtml(page.body, contentType);
  const content = buildContent(html, new URL(page.url), {
    onlyMainContent: options.onlyMainContent,
    includeTags: options.includeTags,
    excludeTags: options.excludeTags,
    removeBase64Images: options.removeBase64Images,
    html: want.has('html'),
    links: want.has('links') || options.discover === true,
    images: want.has('images'),
    pagination: options.pagination === true,
    facts: options.facts,
    limits: options.limits,
  });
  const { head } = content;
  const metadata: PageMetadata = {
    ...base,
    title: head.title,
    description: head.description,
    language: pageLanguage(head.language, page.headers['content-language'], content.plainText),
    keywords: head.keywords,
    robots: head.robots,
    ogTitle: head.ogTitle,
    ogDescription: head.ogDescription,
    ogUrl: head.ogUrl,
    ogImage: head.ogImage,
    canonicalUrl: head.canonicalUrl,
    wordCount: content.wordCount,
    readingTime: content.readingTime,
    excerpt: content.excerpt,
    detectedFrameworks: content.detectedFrameworks,
    contentScriptRatio: content.contentScriptRatio,
    pageType: content.pageKind,
  };
  const document = assemble(metadata, want, {
    markdown: content.markdown,
    html: content.html,
    rawHtml: html,
    links: content.links,
    images: content.images,
    screenshot: page.screenshot,
  });
  if (want.has('branding') && page.branding)
    document.branding = brandingProfile(page.branding, new URL(page.url));
  else if (want.has('branding') && page.branding === null)
    metadata.warning = 'branding: the rendered page could not be read (it navigated away or crashed)';
  return {
    document,
    links: content.links ?? [],
    pagination: content.pagination ?? [],
    clientRendered: clientRenderedReason({
      ...metadata,
      emptyAppRoot: content.emptyAppRoot,
      angularRoot: content.angularRoot,
    }),
    extracted: options.cssExtract ? runCssExtraction(content.doc, options.cssExtract) : undefined,
  };
}

/**
 * A file returned as it is, unparsed: base64 of its bytes in each text format asked for (Firecrawl's `parsers:
 * []` on a PDF), with no text read from it (no title, no page count, no words).
 */
export function unparsedDocument(
  page: FetchedPage,
  options: DocumentOptions,
  mediaType: string,
): RenderedPage {
  const base64 = page.body.toString('base64');
  const metadata: PageMetadata = {
    ...emptyHead(),
    url: page.url,
    sourceUrl: options.sourceUrl,
    statusCode: page.status,
    contentType: mediaType,
    detectionReason: options.detectionReason,
    language: 'und',
    wordCount: 0,
    readingTime: 0,
    excerpt: null,
    detectedFrameworks: null,
    contentScriptRatio: null,
  };
  const out = { markdown: base64, html: base64, rawHtml: base64, links: [], images: [] };
  return {
    document: assemble(metadata, new Set(options.formats), out),
    links: [],
    pagination: [],
    clientRendered: null,
  };
}

function runCssExtraction(root: AnyNode, extraction: CssExtraction): Record<string, unknown> {
  return extractWithSelectors(root, extraction.selectors, extraction.properties, extraction.schema);
}

function emptyHead() {
  return {
    title: '',
    description: '',
    keywords: null,
    robots: null,
    ogTitle: null,
    ogDescription: null,
    ogUrl: null,
    ogImage: null,
    canonicalUrl: null,
  };
}

interface Outputs {
  markdown: string;
  html?: string;
  rawHtml: string;
  links?: string[];
  images?: string[];
  screenshot?: string;
}

function assemble(metadata: PageMetadata, want: Set<FormatName>, out: Outputs): PageDocument {
  const doc: PageDocument = {
    title: metadata.title,
    description: metadata.description,
    url: metadata.url,
    metadata,
  };
  if (want.has('markdown')) doc.markdown = out.markdown;
  if (want.has('html')) doc.html = out.html ?? '';
  if (want.has('rawHtml')) doc.rawHtml = out.rawHtml;
  if (want.has('links')) doc.links = out.links ?? [];
  if (want.has('images')) doc.images = out.images ?? [];
  if (out.screenshot !== undefined) doc.screenshot = out.screenshot;
  return doc;
}
