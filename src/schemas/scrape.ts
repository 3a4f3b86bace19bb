import { Type } from 'typebox';
import type { Static } from 'typebox';
import { ClientTags, EngineName, Formats, RequestHeaders, TargetUrl, TimeoutMs } from './common.js';
import { PageDocument } from './page.js';
import { DocumentLayoutOption } from './document-layout.js';
import { ProfileOption } from './profile.js';

export const BrowserAction = Type.Object(
  {
    type: Type.Enum([
      'click',
      'type',
      'wait',
      'waitForSelector',
      'scroll',
      'write',
      'press',
      'screenshot',
      'scrape',
      'executeJavascript',
      'pdf',
    ]),
    selector: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
    text: Type.Optional(Type.String({ maxLength: 10000 })),
    milliseconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 60000 })),
    direction: Type.Optional(Type.Enum(['up', 'down'])),
    amount: Type.Optional(Type.Integer({ minimum: 0, maximum: 100000 })),
    all: Type.Optional(Type.Boolean({ description: 'click: every element the selector matches.' })),
    key: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'press: a key name.' })),
    script: Type.Optional(Type.String({ minLength: 1, maxLength: 100000 })),
    fullPage: Type.Optional(Type.Boolean()),
    format: Type.Optional(
      Type.Enum(['A0', 'A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'Letter', 'Legal', 'Tabloid', 'Ledger']),
    ),
    landscape: Type.Optional(Type.Boolean()),
    scale: Type.Optional(Type.Number({ minimum: 0.1, maximum: 2 })),
  },
  {
    additionalProperties: false,
    description:
      'A browser action run before capture: the native actions (click, type, wait, waitForSelector, scroll) and ' +
      'write, press, screenshot, scrape, executeJavascript, pdf (their outputs are the document `actions`).',
  },
);

/** The per-page options shared by scrape and (later) crawl. */
export const ScrapeOptionFields = {
  formats: Type.Optional(Formats),
  engine: Type.Optional(EngineName),
  timeout: Type.Optional(TimeoutMs),
  headers: Type.Optional(RequestHeaders),
  onlyMainContent: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        "Keep only the page's main content (no menus, footers, related links). A PDF or Office document has no such chrome and is kept whole.",
    }),
  ),
  waitFor: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 300000,
      default: 0,
      description: 'Wait before capture (ms); browser only.',
    }),
  ),
  waitForSelector: Type.Optional(
    Type.String({ minLength: 1, maxLength: 1000, description: 'CSS selector to wait for; browser only.' }),
  ),
  removeBase64Images: Type.Optional(Type.Boolean({ default: true })),
  blockAds: Type.Optional(
    Type.Boolean({
      default: true,
      description: 'Browser engine: refuse requests to ad and tracker hosts (a list of the main networks).',
    }),
  ),
  maxDocumentPages: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 100000,
      description: "Pages of a PDF read at most; never more than the server's MAX_DOCUMENT_PAGES.",
    }),
  ),
  documentLayout: Type.Optional(DocumentLayoutOption),
  parsePdf: Type.Optional(
    Type.Boolean({
      description:
        'Absent or true: a PDF is parsed. false: it is returned as base64 of its bytes in markdown (and html, ' +
        'rawHtml when asked).',
    }),
  ),
  skipTlsVerification: Type.Optional(Type.Boolean({ default: false })),
  maxRetries: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 10,
      description:
        "Retries after a transient failure (reset or refused connection, an attempt timing out, TLS handshake error, HTTP 408, 429, 502, 503, 504), after an exponential backoff with jitter and at least the target's Retry-After: within `timeout` for a scrape; a crawl puts the page back in its queue. Default: the server's MAX_RETRIES.",
    }),
  ),
  proxy: Type.Optional(
    Type.Enum(['basic', 'stealth', 'enhanced', 'auto'], {
      default: 'basic',
      description:
        "Which of the server's proxies carry the page's requests: `basic` PROXY_URLS (directly when none are set), `stealth` (or `enhanced`, the same) STEALTH_PROXY_URLS (a 400 when none are set), `auto` PROXY_URLS first, then STEALTH_PROXY_URLS once when the target blocks (401, 403, 429 or a challenge page). A caller never names a proxy.",
    }),
  ),
  screenshot: Type.Optional(
    Type.Boolean({ default: false, description: 'Capture a screenshot; browser only.' }),
  ),
  screenshotFormat: Type.Optional(Type.Enum(['png', 'jpeg'], { default: 'png' })),
  mobile: Type.Optional(
    Type.Boolean({
      default: false,
      description: 'Emulate a phone: viewport, touch and a mobile User-Agent (the http engine sends the UA).',
    }),
  ),
  actions: Type.Optional(Type.Array(BrowserAction, { maxItems: 50 })),
  profile: Type.Optional(ProfileOption),
  includeTags: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), {
      maxItems: 100,
      description: 'CSS selectors; only matching elements are converted.',
    }),
  ),
  excludeTags: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), {
      maxItems: 100,
      description: 'CSS selectors; matching elements are removed before conversion.',
    }),
  ),
};

export type BrowserAction = Static<typeof BrowserAction>;

export const ScrapeOptions = Type.Object(ScrapeOptionFields);
export type ScrapeOptions = Static<typeof ScrapeOptions>;

export const ScrapeBody = Type.Object(
  { url: TargetUrl, ...ScrapeOptionFields, ...ClientTags },
  { additionalProperties: false },
);
export type ScrapeBody = Static<typeof ScrapeBody>;

export const ScrapeReply = Type.Object({ success: Type.Literal(true), data: PageDocument });
