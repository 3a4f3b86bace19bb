import type { MenuData, ProductData } from '../content/structured/profiles.js';
import type { AttributeQuery, AttributeValues } from '../extract/attributes.js';
import type { ChangeTracking, ChangeTrackingRequest } from '../operations/change-tracking.js';

/** What a Firecrawl page asks for beyond this service's page document: formats an LLM or the page's HTML writes. */
export interface PageExtras {
  /** Structured data from the page (`json`; v1's legacy `extract` format answers under `extract`). */
  json?: {
    key: 'json' | 'extract';
    prompt?: string;
    schema?: Record<string, unknown> | boolean;
    systemPrompt?: string;
  };
  /** A short summary of the page. */
  summary?: boolean;
  /**
   * A question about the page, answered in `answer` (the `question` format, and `query`): in the LLM's words
   * (freeform), or with the page's own sentences (directQuote).
   */
  answer?: { question: string; mode: 'freeform' | 'directQuote' };
  /** The page's own sentences most relevant to a query, in `highlights`. */
  highlights?: { query: string };
  /** Attribute values of the elements CSS selectors match, read from the page's HTML without an LLM. */
  attributes?: AttributeQuery[];
  /** The page's product and menu, from its schema.org data first (the LLM, when there is one, fills gaps). */
  product?: boolean;
  menu?: boolean;
  /** Compare with the previous scrape of the same URL (and tag). */
  changeTracking?: ChangeTrackingRequest;
  /** Markdown was read only as the LLM's input: it is left out of the document. */
  dropMarkdown?: boolean;
  /** The page's HTML was read only for attributes, product or menu: it is left out of the document. */
  dropRawHtml?: boolean;
}

/** Document fields written after the page: by the LLM, from the page's HTML, and by change tracking. */
export type ExtraFields = LlmFields & {
  changeTracking?: ChangeTracking;
  attributes?: AttributeValues[];
  product?: ProductData;
  menu?: MenuData;
};

/** A json format (v1's extract too) was written: what Firecrawl charges as json. */
export const jsonWritten = (fields: ExtraFields | undefined): boolean =>
  fields?.json !== undefined || fields?.extract !== undefined;

/** What this server can do for a page: decides which fields are refused. */
export interface PageCapabilities {
  browser: boolean;
  /** The server has an LLM (OPENAI_BASE_URL) for the json, summary, question, highlights and query formats. */
  llm: boolean;
  /** The server has stealth proxies (STEALTH_PROXY_URLS) for `proxy: "stealth"` and `"enhanced"`. */
  stealthProxies?: boolean;
}

/** Document fields an LLM writes from a page's Markdown. */
export interface LlmFields {
  json?: unknown;
  extract?: unknown;
  summary?: string;
  /** The answer to `question` (or `query`). */
  answer?: string;
  /** The page's sentences most relevant to the `highlights` query, in page order (blocks apart by a blank line). */
  highlights?: string;
  /** Why a field is missing or does not follow its schema: the page itself is still returned. */
  warning?: string;
}
