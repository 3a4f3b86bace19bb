import { randomUUID } from 'node:crypto';
import { BadRequestError } from '../errors.js';
import { parseTargetUrl } from '../lib/target-url.js';
import type { FormatName } from '../schemas/common.js';
import type {
  FcBatchBody,
  FcCrawlV1Body,
  FcCrawlV2Body,
  FcScrapeOptions,
  FcWebhook,
} from '../schemas/firecrawl.js';
import type { PageDocument } from '../schemas/page.js';
import type { BrowserAction, ScrapeOptions } from '../schemas/scrape.js';
import type { LlmFields } from './page-llm.js';
import type { CrawlSettings, CrawlSpec } from './crawl-run.js';
import { checkPageOptions } from './scrape.js';
import type { WebhookTarget } from './webhooks.js';

const PAGE_FORMATS = new Set<string>([
  'markdown',
  'html',
  'rawHtml',
  'links',
  'images',
  'screenshot',
  'screenshot@fullPage',
]);
const LLM_FORMATS = new Set(['json', 'extract', 'summary']);
const KNOWN_FORMATS = [...PAGE_FORMATS, ...LLM_FORMATS];

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
  /** Markdown was read only as the LLM's input: it is left out of the document. */
  dropMarkdown?: boolean;
}

/** What this server can do for a page: decides which fields are refused. */
export interface PageCapabilities {
  browser: boolean;
  /** The server has an LLM (OPENAI_BASE_URL) for the json and summary formats. */
  llm: boolean;
}
const NO_CACHE_PROXIES = new Set(['basic', 'auto']);

/** Fields asking for something this server does not do: a 400 naming the field, never silently ignored. */
export function refuse(field: string, why: string): never {
  throw new BadRequestError(`${field}: ${why}`);
}

/**
 * Firecrawl fields this server accepts but cannot act on (the SDKs and integrations send some of them):
 * named in a `warning` on the job's status instead of being silently ignored.
 */
export function noEffectFields(body: Record<string, unknown>, prefix = ''): string[] {
  const o = body as FcScrapeOptions & { deduplicateSimilarURLs?: boolean };
  const named: [string, boolean][] = [
    ['blockAds', o.blockAds === true],
    ['maxAge', (o.maxAge ?? 0) > 0],
    ['minAge', (o.minAge ?? 0) > 0],
    ['fastMode', o.fastMode === true],
    ['parsers', (o.parsers?.length ?? 0) > 0],
    ['parsePDF', o.parsePDF !== undefined],
    ['threatProtection', o.threatProtection !== undefined],
    ['auditMetadata', o.auditMetadata !== undefined],
    ['deduplicateSimilarURLs', o.deduplicateSimilarURLs === false],
    ['location.country', countryOf(o) !== undefined],
  ];
  return named.filter(([, given]) => given).map(([name]) => `${prefix}${name}`);
}

/** A country asked for (not the SDK's "US-generic" default): requests leave from this server's own network. */
function countryOf(o: FcScrapeOptions): string | undefined {
  const country = ((o.location ?? o.geolocation) as { country?: unknown } | undefined)?.country;
  return typeof country === 'string' && !/^us(-generic)?$/i.test(country) ? country : undefined;
}

/** The warning a job carries for the fields it was given without effect, or undefined. */
export function noEffectWarning(fields: string[]): string | undefined {
  if (fields.length === 0) return undefined;
  return `Accepted without effect on this server (see the README's Firecrawl table): ${fields.join(', ')}`;
}

/** Zero data retention cannot be promised: documents are what a job's caller comes back for. */
export function refuseRetention(value: boolean | undefined, field: string): void {
  if (value) refuse(field, 'documents are kept for JOB_TTL_HOURS after the job ends on this server');
}

type LlmOptions = { prompt?: unknown; schema?: unknown; systemPrompt?: unknown };

function llmOptions(o: LlmOptions, field: string): Omit<NonNullable<PageExtras['json']>, 'key'> {
  const { prompt, schema, systemPrompt } = o;
  if (prompt !== undefined && typeof prompt !== 'string') refuse(`${field}.prompt`, 'must be a string');
  if (systemPrompt !== undefined && typeof systemPrompt !== 'string')
    refuse(`${field}.systemPrompt`, 'must be a string');
  if (schema !== undefined && typeof schema !== 'boolean' && (typeof schema !== 'object' || schema === null))
    refuse(`${field}.schema`, 'must be a JSON Schema object');
  if (prompt === undefined && schema === undefined) refuse(field, 'needs a prompt or a schema');
  return {
    ...(prompt !== undefined ? { prompt: prompt as string } : {}),
    ...(schema !== undefined ? { schema: schema as Record<string, unknown> | boolean } : {}),
    ...(systemPrompt !== undefined ? { systemPrompt: systemPrompt as string } : {}),
  };
}

/** Firecrawl's formats (v1 strings, v2 strings or objects) as page formats and LLM extras. */
function formatsOf(
  o: FcScrapeOptions,
  prefix: string,
  caps: PageCapabilities,
): { formats: FormatName[]; extras: PageExtras | null } {
  const out: FormatName[] = [];
  const extras: PageExtras = {};
  const add = (name: FormatName): void => {
    if (!out.includes(name)) out.push(name);
  };
  const options = o as FcScrapeOptions & { jsonOptions?: LlmOptions; extract?: LlmOptions };
  for (const [i, f] of (o.formats ?? ['markdown']).entries()) {
    const field = `${prefix}formats[${i}]`;
    const spec = (typeof f === 'string' ? { type: f } : f) as Record<string, unknown> & { type: string };
    let name = spec.type;
    if (!KNOWN_FORMATS.includes(name)) {
      refuse(
        field,
        `format '${name}' is not supported by this server (supported: ${KNOWN_FORMATS.join(', ')})`,
      );
    }
    if (LLM_FORMATS.has(name) && !caps.llm) {
      refuse(field, `the ${name} format needs the server's LLM (set OPENAI_BASE_URL and MODEL_NAME)`);
    }
    const allowed = name === 'json' ? ['type', 'prompt', 'schema', 'systemPrompt'] : ['type'];
    if (name === 'screenshot') allowed.push('fullPage');
    for (const key of Object.keys(spec)) {
      if (!allowed.includes(key)) refuse(`${field}.${key}`, 'not supported by this server');
    }
    if (name === 'screenshot' && spec.fullPage === true) name = 'screenshot@fullPage';
    if (name === 'json' || name === 'extract') {
      // v1 puts the options beside the formats (jsonOptions, extract); v2 inside the format object.
      const given: LlmOptions | undefined =
        typeof f === 'string'
          ? name === 'json'
            ? options.jsonOptions
            : options.extract
          : (spec as LlmOptions);
      const optionsField =
        typeof f === 'string' ? `${prefix}${name === 'json' ? 'jsonOptions' : 'extract'}` : field;
      if (!given)
        refuse(optionsField, `the ${name} format needs ${name === 'json' ? 'jsonOptions' : 'extract'}`);
      extras.json = { key: name, ...llmOptions(given, optionsField) };
      continue;
    }
    if (name === 'summary') {
      extras.summary = true;
      continue;
    }
    add(name as FormatName);
  }
  if (options.jsonOptions && extras.json?.key !== 'json')
    refuse(`${prefix}jsonOptions`, "needs 'json' in formats");
  if (options.extract && extras.json?.key !== 'extract')
    refuse(`${prefix}extract`, "needs 'extract' in formats");
  if (out.includes('screenshot') && out.includes('screenshot@fullPage')) {
    refuse(`${prefix}formats`, 'screenshot and screenshot@fullPage cannot both be asked for');
  }
  if (!extras.json && !extras.summary) return { formats: out, extras: null };
  // The LLM reads the page's Markdown.
  if (!out.includes('markdown')) {
    out.push('markdown');
    extras.dropMarkdown = true;
  }
  return { formats: out, extras };
}

type FcActionFields = Record<string, unknown> & { type: string };

const ACTION_FIELDS: Record<string, string[]> = {
  wait: ['milliseconds', 'selector'],
  click: ['selector', 'all'],
  screenshot: ['fullPage'],
  write: ['text'],
  press: ['key'],
  scroll: ['direction', 'selector'],
  scrape: [],
  executeJavascript: ['script'],
  pdf: ['format', 'landscape', 'scale'],
};

/** A Firecrawl action as this service's browser action; fields it cannot honour are a 400 naming them. */
function actionOf(a: FcActionFields, field: string): BrowserAction {
  const allowed = ACTION_FIELDS[a.type];
  if (!allowed)
    refuse(`${field}.type`, `unknown action '${a.type}' (${Object.keys(ACTION_FIELDS).join(', ')})`);
  for (const key of Object.keys(a)) {
    if (key !== 'type' && !allowed.includes(key)) refuse(`${field}.${key}`, 'not supported by this server');
  }
  if (a.type === 'wait') {
    if ((a.milliseconds === undefined) === (a.selector === undefined)) {
      refuse(field, 'wait takes exactly one of milliseconds and selector');
    }
    return a.selector !== undefined
      ? { type: 'waitForSelector', selector: a.selector as string }
      : { type: 'wait', milliseconds: a.milliseconds as number };
  }
  return a as unknown as BrowserAction;
}

/** `location.languages` as an Accept-Language value (the browser's locale follows it); country is a warning. */
function languagesOf(o: FcScrapeOptions, prefix: string): string | undefined {
  const location = (o.location ?? o.geolocation) as { languages?: unknown } | undefined;
  const languages = location?.languages;
  if (languages === undefined) return undefined;
  const field = `${prefix}${o.location ? 'location' : 'geolocation'}.languages`;
  if (
    !Array.isArray(languages) ||
    languages.some((l) => typeof l !== 'string' || !/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(l))
  ) {
    refuse(field, 'must be language tags such as "en-US" or "de"');
  }
  const tags = (languages as string[]).slice(0, 10);
  return tags
    .map((tag, i) => (i === 0 ? tag : `${tag};q=${Math.max(0.1, 1 - i * 0.1).toFixed(1)}`))
    .join(', ');
}

/** The per-page options of a Firecrawl request as this service's scrape options (onlyMainContent defaults to true). */
export function scrapeOptionsOf(
  o: FcScrapeOptions,
  prefix: string,
  caps: PageCapabilities,
): { page: ScrapeOptions; extras: PageExtras | null } {
  if (o.proxy !== undefined && !NO_CACHE_PROXIES.has(o.proxy)) {
    refuse(`${prefix}proxy`, `proxy '${o.proxy}' is not available on this server (basic or auto)`);
  }
  if (o.useMock !== undefined) refuse(`${prefix}useMock`, 'mocks are not supported');
  if (o.changeTrackingOptions) refuse(`${prefix}changeTrackingOptions`, 'change tracking is not supported');
  if (o.lockdown) refuse(`${prefix}lockdown`, 'not supported');
  if (o.redactPII) refuse(`${prefix}redactPII`, 'not supported');
  if (o.profile !== undefined) refuse(`${prefix}profile`, 'browser profiles are not supported');
  refuseRetention(o.zeroDataRetention, `${prefix}zeroDataRetention`);
  const { formats, extras } = formatsOf(o, prefix, caps);
  const languages = languagesOf(o, prefix);
  const headers =
    languages && !Object.keys(o.headers ?? {}).some((h) => h.toLowerCase() === 'accept-language')
      ? { ...o.headers, 'Accept-Language': languages }
      : o.headers;
  const page: ScrapeOptions = {
    formats,
    onlyMainContent: o.onlyMainContent ?? true,
    includeTags: o.includeTags,
    excludeTags: o.excludeTags,
    headers,
    waitFor: o.waitFor,
    mobile: o.mobile,
    actions: o.actions?.map((a, i) => actionOf(a as FcActionFields, `${prefix}actions[${i}]`)),
    timeout: o.timeout,
    skipTlsVerification: o.skipTlsVerification,
    removeBase64Images: o.removeBase64Images,
  };
  for (const key of Object.keys(page) as (keyof ScrapeOptions)[])
    if (page[key] === undefined) delete page[key];
  checkPageOptions(page, caps.browser);
  return { page, extras };
}

export function webhookOf(webhook: FcWebhook | undefined): WebhookTarget | null {
  if (webhook === undefined) return null;
  const w = typeof webhook === 'string' ? { url: webhook } : webhook;
  let url: URL;
  try {
    url = new URL(w.url);
  } catch {
    refuse('webhook.url', 'must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') refuse('webhook.url', 'must be http or https');
  return {
    url: url.href,
    headers: w.headers ?? {},
    metadata: (w.metadata ?? {}) as Record<string, unknown>,
    events: w.events ?? ['started', 'page', 'completed', 'failed'],
  };
}

function regexes(patterns: string[] | undefined, field: string): string[] | undefined {
  for (const [i, p] of (patterns ?? []).entries()) {
    try {
      new RegExp(p);
    } catch (err) {
      refuse(`${field}[${i}]`, `invalid regular expression: ${(err as Error).message}`);
    }
  }
  return patterns;
}

/** A Firecrawl crawl request (v1 or v2) as a crawl spec, and what its pages ask of the LLM. */
export function crawlSpecOf(
  body: FcCrawlV2Body | FcCrawlV1Body,
  api: 'v1' | 'v2',
  settings: CrawlSettings,
  caps: PageCapabilities,
): { spec: CrawlSpec; extras: PageExtras | null } {
  const start = parseTargetUrl(body.url);
  if ('prompt' in body && body.prompt !== undefined) {
    refuse('prompt', 'crawl options generated from a prompt need an LLM; set the crawl fields instead');
  }
  if (body.ignoreRobotsTxt) refuse('ignoreRobotsTxt', 'this server always respects robots.txt');
  if (body.robotsUserAgent !== undefined) refuse('robotsUserAgent', 'robots.txt is matched as "Pagewright"');
  // Firecrawl's default limit is 10,000; a server with a lower CRAWL_MAX_PAGES lowers the default instead
  // of refusing a field the caller never sent.
  const limit = body.limit ?? Math.min(10_000, settings.maxPages);
  if (limit > settings.maxPages)
    refuse('limit', `must be <= ${settings.maxPages} on this server (CRAWL_MAX_PAGES)`);
  const v1 = api === 'v1' ? (body as FcCrawlV1Body) : null;
  const sitemap = v1
    ? v1.ignoreSitemap
      ? 'skip'
      : 'include'
    : ((body as FcCrawlV2Body).sitemap ?? 'include');
  const entireDomain = body.crawlEntireDomain ?? v1?.allowBackwardLinks ?? false;
  refuseRetention(body.zeroDataRetention, 'zeroDataRetention');
  const delayMs = body.delay === undefined ? null : Math.round(body.delay * 1000);
  if (delayMs !== null && delayMs > settings.maxDelayMs) {
    refuse('delay', `must be <= ${settings.maxDelayMs / 1000} seconds on this server (CRAWL_MAX_DELAY_MS)`);
  }
  const { page, extras } = scrapeOptionsOf(body.scrapeOptions ?? {}, 'scrapeOptions.', caps);
  const spec: CrawlSpec = {
    seeds: [start.href],
    follow: true,
    limit,
    maxDepth: body.maxDiscoveryDepth ?? 1000,
    scope: {
      include: regexes(body.includePaths, 'includePaths'),
      exclude: regexes(body.excludePaths, 'excludePaths'),
      patterns: 'regex',
      patternsOnFullUrl: body.regexOnFullURL ?? false,
      allowBackwardLinks: entireDomain,
      allowExternalLinks: body.allowExternalLinks ?? false,
      allowSubdomains: body.allowSubdomains ?? false,
      maxPathDepth: v1 ? (v1.maxDepth ?? 10) : null,
    },
    ignoreQueryParameters: body.ignoreQueryParameters ?? false,
    sitemap,
    // Firecrawl counts sitemap pages at discovery depth 0 and follows no pagination links of its own.
    sitemapDepth: 0,
    maxPaginationPages: 0,
    robots: true,
    // The operator's CRAWL_MIN_DELAY_MS is a floor a caller cannot lower.
    delayMs: delayMs === null ? null : Math.max(delayMs, settings.minDelayMs),
    concurrency: Math.min(body.maxConcurrency ?? settings.concurrency, settings.concurrency * 4),
    page,
  };
  return { spec, extras };
}

/** A Firecrawl batch scrape as a crawl that follows nothing; invalid URLs are refused or listed. */
export function batchSpecOf(
  body: FcBatchBody,
  api: 'v1' | 'v2',
  settings: CrawlSettings,
  caps: PageCapabilities,
): { spec: CrawlSpec; extras: PageExtras | null; invalidURLs: string[] | undefined } {
  const ignoreInvalid = body.ignoreInvalidURLs ?? api === 'v2';
  if (body.appendToId !== undefined) refuse('appendToId', 'appending to a batch is not supported');
  if (body.agent !== undefined) refuse('agent', 'agents are not supported');
  const seeds: string[] = [];
  const invalid: string[] = [];
  for (const [i, url] of body.urls.entries()) {
    try {
      seeds.push(parseTargetUrl(url).href);
    } catch (err) {
      if (!ignoreInvalid) refuse(`urls[${i}]`, (err as Error).message);
      invalid.push(url);
    }
  }
  if (seeds.length === 0) refuse('urls', 'no valid URL to scrape');
  const {
    urls: _u,
    webhook: _w,
    appendToId: _a,
    ignoreInvalidURLs: _i,
    maxConcurrency,
    agent: _g,
    origin: _o,
    integration: _n,
    ...options
  } = body;
  const { page, extras } = scrapeOptionsOf(options, '', caps);
  return {
    extras,
    spec: {
      seeds,
      follow: false,
      limit: seeds.length,
      maxDepth: 0,
      scope: { patterns: 'glob', allowBackwardLinks: true, allowExternalLinks: true, allowSubdomains: true },
      ignoreQueryParameters: false,
      sitemap: 'skip',
      maxPaginationPages: 0,
      robots: false,
      delayMs: 0,
      concurrency: Math.min(maxConcurrency ?? settings.concurrency, settings.concurrency * 4),
      page,
    },
    invalidURLs: ignoreInvalid ? invalid : undefined,
  };
}

/**
 * A page as Firecrawl's document: the requested formats, the fields an LLM wrote (json, summary; Markdown
 * read only for the LLM is left out), and Firecrawl's metadata names.
 */
export function firecrawlDocument(
  doc: PageDocument,
  sourceUrl: string,
  llm: { fields?: LlmFields; dropMarkdown?: boolean } = {},
): Record<string, unknown> {
  const { metadata: m, title: _t, description: _d, url: _u, ...formats } = doc;
  if (llm.dropMarkdown) delete formats.markdown;
  return {
    ...(formats as Record<string, unknown>),
    ...llm.fields,
    metadata: {
      title: m.title,
      description: m.description,
      language: m.language,
      ...(m.keywords !== null ? { keywords: m.keywords } : {}),
      ...(m.robots !== null ? { robots: m.robots } : {}),
      ...(m.ogTitle !== null ? { ogTitle: m.ogTitle } : {}),
      ...(m.ogDescription !== null ? { ogDescription: m.ogDescription } : {}),
      ...(m.ogUrl !== null ? { ogUrl: m.ogUrl } : {}),
      ...(m.ogImage !== null ? { ogImage: m.ogImage } : {}),
      sourceURL: sourceUrl,
      url: m.url,
      statusCode: m.statusCode,
      contentType: m.contentType,
      scrapeId: randomUUID(),
      proxyUsed: 'basic',
    },
  };
}
