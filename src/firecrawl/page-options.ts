import { BadRequestError } from '../errors.js';
import { compileSchema } from '../extract/schema.js';
import type { JsonSchema } from '../extract/schema.js';
import { checkSchemaBounds } from '../extract/schema-bounds.js';
import type { FormatName } from '../schemas/common.js';
import type { FcScrapeOptions } from './schemas/jobs.js';
import type { BrowserAction, ScrapeOptions } from '../schemas/scrape.js';
import type { ChangeTrackingRequest } from '../operations/change-tracking.js';
import type { PageCapabilities, PageExtras } from './page-extras.js';
import { EXTRA_FORMAT_FIELDS, LLM_ONLY_FORMATS, MEDIA_FORMATS, addExtraFormat } from './formats/options.js';
import { checkPageOptions } from '../pipeline/fetch-page.js';
import { documentParsingOf } from './parsers.js';
import { refuseAt } from './field-errors.js';
import type { ProxyOption } from '../pipeline/proxy-choice.js';

/** Firecrawl's per-page options (formats, actions, location...) as this service's page options. */

const PAGE_FORMATS = new Set<string>([
  'markdown',
  'html',
  'rawHtml',
  'links',
  'images',
  'screenshot',
  'screenshot@fullPage',
  'branding',
]);
const LLM_FORMATS = new Set(['json', 'extract', 'summary', ...LLM_ONLY_FORMATS]);
const KNOWN_FORMATS = [
  ...PAGE_FORMATS,
  ...LLM_FORMATS,
  'changeTracking',
  ...Object.keys(EXTRA_FORMAT_FIELDS),
].filter((name, i, all) => all.indexOf(name) === i);

const PROXY_OPTIONS = new Set<string>(['basic', 'stealth', 'enhanced', 'auto']);

/** Fields asking for something this server does not do: a 400 naming the field, never silently ignored. */
export function refuse(field: string, why: string): never {
  throw new BadRequestError(`${field}: ${why}`);
}

/** Zero data retention cannot be promised: documents are what a job's caller comes back for. */
export function refuseRetention(value: boolean | undefined, field: string): void {
  if (value) refuse(field, 'documents are kept for JOB_TTL_HOURS after the job ends on this server');
}

/**
 * A caller's schema, bounded and compiled before the request is stored (the job store serializes it) or
 * a page is fetched: a schema too large, or with a pattern the linear-time engine cannot run, is a 400.
 */
export function checkedSchema(schema: JsonSchema, field: string): void {
  checkSchemaBounds(schema, field);
  try {
    compileSchema(schema);
  } catch (err) {
    refuse(field, (err as Error).message.replace(/^schema: /, ''));
  }
}

type LlmOptions = { prompt?: unknown; schema?: unknown; systemPrompt?: unknown };

function llmOptions(o: LlmOptions, field: string): Omit<NonNullable<PageExtras['json']>, 'key'> {
  const { prompt, schema, systemPrompt } = o;
  if (prompt !== undefined && typeof prompt !== 'string') refuse(`${field}.prompt`, 'must be a string');
  if (systemPrompt !== undefined && typeof systemPrompt !== 'string')
    refuse(`${field}.systemPrompt`, 'must be a string');
  if (schema !== undefined && typeof schema !== 'boolean' && (typeof schema !== 'object' || schema === null))
    refuse(`${field}.schema`, 'must be a JSON Schema object');
  if (schema !== undefined) checkedSchema(schema as JsonSchema, `${field}.schema`);
  if (prompt === undefined && schema === undefined) refuse(field, 'needs a prompt or a schema');
  return {
    ...(prompt !== undefined ? { prompt: prompt as string } : {}),
    ...(schema !== undefined ? { schema: schema as Record<string, unknown> | boolean } : {}),
    ...(systemPrompt !== undefined ? { systemPrompt: systemPrompt as string } : {}),
  };
}

/** Firecrawl's change tracking options: git-diff is done; the json mode (an LLM comparing) is refused. */
function changeTrackingOf(o: Record<string, unknown>, field: string): ChangeTrackingRequest {
  for (const key of Object.keys(o)) {
    if (!['type', 'modes', 'tag', 'prompt', 'schema'].includes(key))
      refuse(`${field}.${key}`, 'unknown field');
  }
  const modes = o.modes ?? [];
  if (!Array.isArray(modes) || modes.some((m) => m !== 'git-diff' && m !== 'json')) {
    refuse(`${field}.modes`, 'must be a list of "git-diff" and "json"');
  }
  if ((modes as string[]).includes('json') || o.prompt !== undefined || o.schema !== undefined) {
    refuse(`${field}.modes`, 'the json mode is not supported by this server (git-diff is)');
  }
  if (o.tag !== undefined && o.tag !== null && typeof o.tag !== 'string')
    refuse(`${field}.tag`, 'must be a string');
  return { modes: modes as 'git-diff'[], tag: (o.tag as string | null | undefined) ?? null };
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
    if (MEDIA_FORMATS.has(name))
      refuse(field, `the ${name} format needs a media tool: no media tool is configured on this server`);
    if (!KNOWN_FORMATS.includes(name)) {
      refuse(
        field,
        `format '${name}' is not supported by this server (supported: ${KNOWN_FORMATS.join(', ')})`,
      );
    }
    if (LLM_FORMATS.has(name) && !caps.llm) {
      refuse(field, `the ${name} format needs the server's LLM (set OPENAI_BASE_URL and MODEL_NAME)`);
    }
    const allowed =
      name === 'json'
        ? ['type', 'prompt', 'schema', 'systemPrompt']
        : name === 'changeTracking'
          ? ['type', 'modes', 'tag']
          : ['type', ...(EXTRA_FORMAT_FIELDS[name] ?? [])];
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
    if (EXTRA_FORMAT_FIELDS[name]) {
      addExtraFormat(name, spec, field, extras);
      continue;
    }
    if (name === 'changeTracking') {
      // v1 puts the options beside the formats (changeTrackingOptions), v2 inside the format object.
      const given = (typeof f === 'string' ? (o.changeTrackingOptions ?? {}) : spec) as Record<
        string,
        unknown
      >;
      const optionsField = typeof f === 'string' ? `${prefix}changeTrackingOptions` : field;
      extras.changeTracking = changeTrackingOf(given, optionsField);
      continue;
    }
    add(name as FormatName);
  }
  if (o.changeTrackingOptions && !extras.changeTracking)
    refuse(`${prefix}changeTrackingOptions`, "needs 'changeTracking' in formats");
  if (options.jsonOptions && extras.json?.key !== 'json')
    refuse(`${prefix}jsonOptions`, "needs 'json' in formats");
  if (options.extract && extras.json?.key !== 'extract')
    refuse(`${prefix}extract`, "needs 'extract' in formats");
  if (out.includes('screenshot') && out.includes('screenshot@fullPage')) {
    refuse(`${prefix}formats`, 'screenshot and screenshot@fullPage cannot both be asked for');
  }
  if (Object.keys(extras).length === 0) return { formats: out, extras: null };
  // The LLM reads the page's Markdown (product and menu only when there is an LLM to fill their gaps), and
  // changes are tracked on it; attributes, product and menu are read from the page's HTML.
  const structured = extras.product === true || extras.menu === true;
  const readsMarkdown =
    extras.json ||
    extras.summary ||
    extras.changeTracking ||
    extras.answer ||
    extras.highlights ||
    (structured && caps.llm);
  if (readsMarkdown && !out.includes('markdown')) {
    out.push('markdown');
    extras.dropMarkdown = true;
  }
  if ((extras.attributes || structured) && !out.includes('rawHtml')) {
    out.push('rawHtml');
    extras.dropRawHtml = true;
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

/**
 * Firecrawl's `proxy`: `basic` and `auto` always (directly without PROXY_URLS; `auto` tries the stealth proxies
 * on a block when there are any), `stealth` and `enhanced` (the same here) only with STEALTH_PROXY_URLS.
 */
function proxyOptionOf(
  value: string | undefined,
  prefix: string,
  caps: PageCapabilities,
): ProxyOption | undefined {
  if (value === undefined) return undefined;
  if (!PROXY_OPTIONS.has(value)) refuse(`${prefix}proxy`, 'must be "basic", "stealth", "enhanced" or "auto"');
  if ((value === 'stealth' || value === 'enhanced') && !caps.stealthProxies) {
    refuse(
      `${prefix}proxy`,
      `'${value}' needs stealth proxies, and this server sets none (STEALTH_PROXY_URLS)`,
    );
  }
  return value as ProxyOption;
}

/**
 * Firecrawl's bound on `waitFor`: at most half the page's `timeout` (the one sent, or the route's default where
 * Firecrawl has one: v1's scrape), so time is left to read the page after the wait.
 */
export function checkWaitFor(waitFor: number | undefined, timeout: number | undefined, prefix: string): void {
  if (waitFor === undefined || timeout === undefined || waitFor <= timeout / 2) return;
  refuseAt(prefix, ['waitFor'], 'custom', 'waitFor must not exceed half of timeout');
}

/**
 * Firecrawl v2 skips certificate checks unless told not to, but not for a request that sends headers or actions
 * (a login, a token: worth a verified connection); v1 verifies.
 */
function skipTlsDefault(o: FcScrapeOptions, api: 'v1' | 'v2'): boolean {
  if (api === 'v1') return false;
  return Object.keys(o.headers ?? {}).length === 0 && (o.actions?.length ?? 0) === 0;
}

/**
 * Firecrawl parses a PDF when no parser list is given or the list names "pdf"; any other list (`[]`, only
 * "image") and v1's `parsePDF: false` ask for the PDF's bytes, as base64.
 */
const parsesPdf = (o: FcScrapeOptions): boolean =>
  o.parsePDF !== false &&
  (o.parsers === undefined ||
    o.parsers.some((p) => p === 'pdf' || (p as { type?: unknown } | null)?.type === 'pdf'));

/** The per-page options of a Firecrawl request as this service's scrape options (onlyMainContent defaults to true). */
export function scrapeOptionsOf(
  o: FcScrapeOptions,
  prefix: string,
  caps: PageCapabilities,
  api: 'v1' | 'v2' = 'v1',
): { page: ScrapeOptions; extras: PageExtras | null } {
  checkWaitFor(o.waitFor, o.timeout, prefix);
  const proxy = proxyOptionOf(o.proxy, prefix, caps);
  if (o.useMock !== undefined) refuse(`${prefix}useMock`, 'mocks are not supported');
  if (o.redactPII) refuse(`${prefix}redactPII`, 'not supported');
  refuseRetention(o.zeroDataRetention, `${prefix}zeroDataRetention`);
  const { formats, extras } = formatsOf(o, prefix, caps);
  const parsing = documentParsingOf(o, prefix);
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
    skipTlsVerification: o.skipTlsVerification ?? skipTlsDefault(o, api),
    removeBase64Images: o.removeBase64Images,
    blockAds: o.blockAds,
    maxDocumentPages: parsing.maxPages,
    parsePdf: parsesPdf(o) ? undefined : false,
    documentLayout: parsing.layout,
    profile: o.profile,
    proxy,
  };
  for (const key of Object.keys(page) as (keyof ScrapeOptions)[])
    if (page[key] === undefined) delete page[key];
  checkPageOptions(page, caps.browser);
  return { page, extras };
}
