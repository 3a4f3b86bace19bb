import { Type } from 'typebox';
import type { Static } from 'typebox';
import { BrandingProfile } from './branding.js';
import { DocumentPage, DocumentPageBlocks } from './document-layout.js';

const NullableString = Type.Union([Type.String(), Type.Null()]);

export const PageMetadata = Type.Object({
  title: Type.String(),
  description: Type.String({ description: 'Meta description; empty string when none.' }),
  language: Type.String({
    description: "<html lang>, else Content-Language, else detected; 'und' if unknown.",
  }),
  keywords: NullableString,
  robots: NullableString,
  ogTitle: NullableString,
  ogDescription: NullableString,
  ogUrl: NullableString,
  ogImage: NullableString,
  url: Type.String({ description: 'Final URL after redirects.' }),
  sourceUrl: Type.String({ description: 'URL as requested.' }),
  statusCode: Type.Integer({
    description: 'HTTP status of the final response (4xx/5xx pages still return).',
  }),
  contentType: Type.String({ description: 'Media type of the page, without parameters.' }),
  attempts: Type.Optional(
    Type.Integer({
      minimum: 2,
      description:
        'Fetches of the page, the first included, when a transient failure (reset connection, 429, 503...) was retried; absent when the page took one fetch.',
    }),
  ),
  numPages: Type.Optional(Type.Integer({ description: 'Pages of a document (PDF).' })),
  pagesRead: Type.Optional(
    Type.Integer({
      description:
        "Pages of a PDF read, when fewer than numPages (the request's or the server's page limit).",
    }),
  ),
  author: Type.Optional(
    Type.Union([Type.String(), Type.Null()], { description: 'Author of a document (PDF).' }),
  ),
  creationDate: Type.Optional(
    Type.Union([Type.String(), Type.Null()], { description: 'Creation date of a document (PDF), ISO 8601.' }),
  ),
  warning: Type.Optional(
    Type.String({ description: 'Why content may be missing (a scanned PDF: no text layer, no OCR).' }),
  ),
  stealthProxy: Type.Optional(
    Type.Literal(true, {
      description:
        'The page came through the stealth proxies (STEALTH_PROXY_URLS): proxy "stealth" or "enhanced", or "auto" after a block.',
    }),
  ),
  canonicalUrl: NullableString,
  wordCount: Type.Integer(),
  readingTime: Type.Integer({ description: 'Minutes: wordCount / 200, rounded up.' }),
  excerpt: NullableString,
  detectedFrameworks: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description:
      'Client-side frameworks fingerprinted in the HTML (e.g. ["next.js","react"]); null when none.',
  }),
  detectionReason: Type.Union([Type.String(), Type.Null()], {
    description: 'Why the engine was chosen (engine "auto" only); null otherwise.',
  }),
  contentScriptRatio: Type.Union([Type.Number(), Type.Null()], {
    description: 'Visible text / (visible text + inline script), 0..1; null for non-HTML responses.',
  }),
  pageType: Type.Optional(
    Type.Union(
      [
        Type.Literal('article'),
        Type.Literal('product'),
        Type.Literal('forum'),
        Type.Literal('listing'),
        Type.Literal('documentation'),
        Type.Literal('other'),
      ],
      {
        description:
          'HTML pages: the kind of page detected (schema.org types, og:type, price and cart markup, post threads, code), which decides what onlyMainContent keeps.',
      },
    ),
  ),
});
export type PageMetadata = Static<typeof PageMetadata>;

/** The requested formats of a page; the same fields in scrape, crawl and search results. */
export const PageFormatFields = {
  markdown: Type.Optional(Type.String()),
  html: Type.Optional(Type.String({ description: 'Cleaned HTML: no scripts/styles, absolute URLs.' })),
  rawHtml: Type.Optional(Type.String({ description: 'The HTML as served (decoded to text).' })),
  links: Type.Optional(
    Type.Array(Type.String(), { description: 'Absolute http(s) URLs of the page links, deduplicated.' }),
  ),
  images: Type.Optional(Type.Array(Type.String(), { description: 'Absolute image URLs, deduplicated.' })),
  screenshot: Type.Optional(
    Type.String({ description: 'data:image/png;base64,... or data:image/jpeg;base64,... (browser engine).' }),
  ),
  branding: Type.Optional(BrandingProfile),
  pages: Type.Optional(
    Type.Array(DocumentPage, { description: "A PDF's pages as Markdown (documentLayout.pages)." }),
  ),
  blocks: Type.Optional(
    Type.Array(DocumentPageBlocks, { description: "A PDF's blocks, page by page (documentLayout.blocks)." }),
  ),
};

export const ActionOutputs = Type.Object(
  {
    screenshots: Type.Array(Type.String()),
    scrapes: Type.Array(Type.Object({ url: Type.String(), html: Type.String() })),
    javascriptReturns: Type.Array(Type.Object({ type: Type.String(), value: Type.Unknown() })),
    pdfs: Type.Array(Type.String({ description: 'data:application/pdf;base64,...' })),
  },
  { description: 'What screenshot, scrape, executeJavascript and pdf actions produced, in order.' },
);

export const PageDocument = Type.Object({
  title: Type.String(),
  description: Type.String(),
  url: Type.String(),
  ...PageFormatFields,
  actions: Type.Optional(ActionOutputs),
  metadata: PageMetadata,
});
export type PageDocument = Static<typeof PageDocument>;
