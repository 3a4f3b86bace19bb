import type { ChangeTracking, ChangeTrackingRequest } from '../operations/change-tracking.js';

/** What a Firecrawl page asks for beyond this service's page document: formats an LLM writes. */
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
  /** Compare with the previous scrape of the same URL (and tag). */
  changeTracking?: ChangeTrackingRequest;
  /** Markdown was read only as the LLM's input: it is left out of the document. */
  dropMarkdown?: boolean;
}

/** Document fields written after the page: by the LLM (json, summary) and by change tracking. */
export type ExtraFields = LlmFields & { changeTracking?: ChangeTracking };

/** What this server can do for a page: decides which fields are refused. */
export interface PageCapabilities {
  browser: boolean;
  /** The server has an LLM (OPENAI_BASE_URL) for the json and summary formats. */
  llm: boolean;
  /** The server has stealth proxies (STEALTH_PROXY_URLS) for `proxy: "stealth"` and `"enhanced"`. */
  stealthProxies?: boolean;
}

/** Document fields an LLM writes from a page's Markdown: `json` (or v1's `extract`) and `summary`. */
export interface LlmFields {
  json?: unknown;
  extract?: unknown;
  summary?: string;
  /** Why a field is missing or does not follow its schema: the page itself is still returned. */
  warning?: string;
}
