import { Value } from 'typebox/value';
import { BadRequestError, LlmError, toAppError } from '../errors.js';
import { parseJsonAnswer } from '../extract/llm.js';
import { Deadline } from '../lib/deadline.js';
import { parseTargetUrl } from '../lib/target-url.js';
import type { CrawlSettings } from '../jobs/crawl-run.js';
import type { FirecrawlDeps } from './deps.js';
import { crawlSpecOf } from './options.js';
import { refuse } from './page-options.js';
import { FcCrawlV2Body } from './schemas/jobs.js';
import type { FcCrawlV1Body, FcParamsPreviewBody } from './schemas/jobs.js';

/** The crawl fields the server's LLM may derive from a prompt (v2 names; every one a field our v2 crawl takes). */
const DERIVABLE = [
  'includePaths',
  'excludePaths',
  'limit',
  'maxDiscoveryDepth',
  'crawlEntireDomain',
  'allowExternalLinks',
  'allowSubdomains',
  'sitemap',
  'ignoreQueryParameters',
  'delay',
] as const;
type Derivable = (typeof DERIVABLE)[number];
export type DerivedOptions = Partial<Pick<FcCrawlV2Body, Derivable>>;

/** Budget of the one LLM call that derives a crawl's options. */
const PROMPT_TIMEOUT_MS = 60_000;
/** Dropped fields named in a warning at most (the model's answer is caller-influenced). */
const MAX_NAMED_DROPS = 20;

/** What each field means, for the model: this server's semantics, in its words. */
const GUIDE: Record<Derivable, string> = {
  includePaths:
    'Regular expressions (RE2 syntax: no lookarounds, no backreferences) tested against each URL path, e.g. "^/blog/". Only pages whose path matches one of them are crawled.',
  excludePaths: 'Regular expressions like includePaths: pages whose path matches one of them are skipped.',
  limit: 'Most pages the crawl returns.',
  maxDiscoveryDepth:
    'How many links away from the start page the crawl goes; 0 crawls the start page and the sitemap pages only.',
  crawlEntireDomain: 'true follows links anywhere on the site, not only below the start URL path.',
  allowExternalLinks: 'true follows links to other websites.',
  allowSubdomains: "true follows links to subdomains of the start URL's site.",
  sitemap:
    '"include" (default) also crawls the sitemap\'s pages, "skip" ignores the sitemap, "only" crawls the sitemap\'s pages only.',
  ignoreQueryParameters: 'true treats URLs that differ only in their query string as one page.',
  delay: 'Seconds to wait between two page requests to the site.',
};

const INSTRUCTIONS =
  "You configure a website crawler from a request in plain language. Answer with one JSON object that holds only the crawl options the request calls for, and nothing else; leave out every option the request does not speak to (the crawler's defaults apply). Options:\n";

/** The JSON Schema the model answers with: each field's own schema, with this server's bounds. */
function optionsSchema(settings: CrawlSettings): Record<string, unknown> {
  const bounds: Partial<Record<Derivable, Record<string, unknown>>> = {
    limit: { maximum: settings.maxPages },
    delay: { maximum: settings.maxDelayMs / 1000 },
  };
  const properties = Object.fromEntries(
    DERIVABLE.map((field) => [
      field,
      { ...FcCrawlV2Body.properties[field], ...bounds[field], description: GUIDE[field] },
    ]),
  );
  return { type: 'object', properties, additionalProperties: false };
}

/**
 * Why a crawl start refuses `value` as `field` (its schema, then the mapping a crawl start runs), naming the
 * field first, or null.
 */
function refusalOf(field: Derivable, value: unknown, url: string, fc: FirecrawlDeps): string | null {
  const schema = FcCrawlV2Body.properties[field];
  if (!Value.Check(schema, value)) {
    const [error] = Value.Errors(schema, value);
    return `${field}${error?.instancePath ?? ''}: ${error?.message ?? 'is invalid'}`;
  }
  try {
    crawlSpecOf({ url, [field]: value } as FcCrawlV2Body, 'v2', fc.settings, fc.capabilities);
    return null;
  } catch (err) {
    if (err instanceof BadRequestError) return err.message;
    throw err;
  }
}

/** Crawl options the server's LLM derived from `prompt`, and what it answered that could not be kept. */
export interface DerivedCrawlOptions {
  options: DerivedOptions;
  /** The fields dropped, each named with why (an unknown field, an invalid value, a bound of this server). */
  dropped: string[];
}

/**
 * Asks the server's LLM for the crawl options `prompt` describes. Every field it answers is checked against
 * the v2 crawl body's schema and the mapping a crawl start runs (patterns the linear-time engine cannot run,
 * limits over this server's bounds): what fails is dropped and named, never a 500. The LLM unreachable, or
 * answering something other than a JSON object, is LLM_FAILED.
 */
export async function deriveCrawlOptions(
  url: string,
  prompt: string,
  fc: FirecrawlDeps,
  signal?: AbortSignal,
): Promise<DerivedCrawlOptions> {
  if (!fc.askLlm) {
    refuse(
      'prompt',
      "crawl options from a prompt need the server's LLM: set OPENAI_BASE_URL (and OPENAI_API_KEY, MODEL_NAME) on the server, or set the crawl fields instead",
    );
  }
  const start = parseTargetUrl(url).href;
  const deadline = Deadline.after(PROMPT_TIMEOUT_MS, signal);
  let answer: unknown;
  try {
    const text = await fc.askLlm(
      {
        instructions: INSTRUCTIONS + DERIVABLE.map((field) => `- ${field}: ${GUIDE[field]}`).join('\n'),
        input: `Start URL: ${start}\n\nWhat to crawl: ${prompt}`,
        schema: optionsSchema(fc.settings),
        purpose: 'crawl_prompt',
      },
      deadline,
    );
    answer = parseJsonAnswer(text);
  } catch (err) {
    if (err instanceof LlmError) throw err;
    throw new LlmError(`The server's LLM could not be asked: ${toAppError(err).message}`, { cause: err });
  } finally {
    deadline.dispose();
  }
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
    throw new LlmError("The server's LLM answered no JSON object of crawl options");
  }
  const options: Record<string, unknown> = {};
  const dropped: string[] = [];
  for (const [field, value] of Object.entries(answer)) {
    if (value === null) continue; // the model's way of leaving a field out
    if (!(DERIVABLE as readonly string[]).includes(field)) {
      dropped.push(`${field.slice(0, 100)}: not a crawl option derived from a prompt`);
      continue;
    }
    const refusal = refusalOf(field as Derivable, value, start, fc);
    if (refusal === null) options[field] = value;
    else dropped.push(refusal);
  }
  fc.log.debug({ op: 'crawl-prompt', options, dropped }, 'crawl options derived from a prompt');
  return { options: options as DerivedOptions, dropped };
}

/** The warning naming the fields the LLM answered that were dropped, or undefined. */
export function droppedWarning(dropped: string[]): string | undefined {
  if (dropped.length === 0) return undefined;
  const named = dropped.slice(0, MAX_NAMED_DROPS);
  const more = dropped.length > named.length ? ` and ${dropped.length - named.length} more` : '';
  return `Crawl options the LLM derived from the prompt were dropped: ${named.join('; ')}${more}`;
}

/** `POST /v2/crawl/params-preview`: the options a crawl with this prompt would use, in Firecrawl's shape. */
export async function crawlParamsPreview(fc: FirecrawlDeps, body: FcParamsPreviewBody, signal?: AbortSignal) {
  const { options, dropped } = await deriveCrawlOptions(body.url, body.prompt, fc, signal);
  const warning = droppedWarning(dropped);
  return { success: true as const, data: { url: body.url, ...options }, ...(warning ? { warning } : {}) };
}

/** A v1 field standing for a derived v2 one: the caller setting either keeps the derived value out. */
const V1_ALIAS: Partial<Record<Derivable, 'allowBackwardLinks' | 'ignoreSitemap'>> = {
  crawlEntireDomain: 'allowBackwardLinks',
  sitemap: 'ignoreSitemap',
};

/** A crawl body with its `prompt` resolved, and what the crawl reports of it. */
export interface PromptedCrawl<B> {
  /** The body without `prompt`, the derived fields merged in. */
  body: B;
  /** Firecrawl's fields on the start answer: the options the LLM derived and the options the crawl runs with. */
  report: { promptGeneratedOptions: DerivedOptions; finalCrawlerOptions: Record<string, unknown> } | null;
  warning: string | undefined;
}

/**
 * A crawl start's body with the options its `prompt` derives merged in (v1 gets v1 names). Fields the caller
 * set win over derived ones. Without a prompt (or with an empty one, as Firecrawl) the body is unchanged.
 */
export async function withPromptOptions<B extends FcCrawlV2Body | FcCrawlV1Body>(
  requested: B,
  api: 'v1' | 'v2',
  fc: FirecrawlDeps,
  signal?: AbortSignal,
): Promise<PromptedCrawl<B>> {
  const { prompt, ...body } = requested as B & { prompt?: string };
  if (prompt === undefined || prompt.trim() === '')
    return { body: body as B, report: null, warning: undefined };
  const { options, dropped } = await deriveCrawlOptions(body.url, prompt, fc, signal);
  const merged: Record<string, unknown> = { ...body };
  for (const [field, value] of Object.entries(options) as [Derivable, unknown][]) {
    const alias = api === 'v1' ? V1_ALIAS[field] : undefined;
    if (merged[field] !== undefined || (alias && merged[alias] !== undefined)) continue;
    if (api === 'v1' && field === 'sitemap') {
      if (value === 'only') dropped.push('sitemap: "only" has no v1 field');
      else merged.ignoreSitemap = value === 'skip';
    } else merged[field] = value;
  }
  const { url: _u, scrapeOptions: _s, webhook: _w, origin: _o, integration: _i, ...final } = merged;
  return {
    body: merged as B,
    report: { promptGeneratedOptions: options, finalCrawlerOptions: final },
    warning: droppedWarning(dropped),
  };
}
