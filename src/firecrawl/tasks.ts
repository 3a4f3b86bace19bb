import { BadRequestError } from '../errors.js';
import type { Config } from '../config/config.js';
import type { ExtractBody, ExtractReply } from '../schemas/extract.js';
import type { FcExtractBody, FcLlmsTxtBody } from './schemas/jobs.js';
import type { LlmsTxtBody } from '../schemas/search.js';
import { parseTargetUrl } from '../lib/target-url.js';
import type { LlmsTxtResult } from '../operations/llmstxt.js';
import type { WebhookTarget } from '../jobs/webhooks.js';
import { noEffectFields, noEffectWarning, webhookOf } from './options.js';
import { checkWaitFor, checkedSchema, refuse, refuseRetention } from './page-options.js';
import type { JsonSchema } from '../extract/schema.js';

/** What an extract job stores: the server's LLM is read at run time, so its key is never stored. */
export interface ExtractJobRequest {
  urls: string[];
  prompt?: string;
  schema?: Record<string, unknown> | boolean;
  systemPrompt?: string;
  timeout?: number;
  webhook: WebhookTarget | null;
}

export interface LlmsTxtJobRequest {
  url: string;
  maxUrls: number;
  showFullText: boolean;
}

/** Extract fields about finding pages: only the listed URLs are read here. */
const EXTRACT_NO_EFFECT = ['ignoreSitemap', 'includeSubdomains', 'allowExternalLinks', 'limit'] as const;

/**
 * Checks a Firecrawl extract request and turns it into the job's stored request; `warning` names the fields
 * accepted without effect.
 */
export function extractRequestOf(
  body: FcExtractBody,
  api: 'v1' | 'v2',
  llm: Config['llm'],
): { request: ExtractJobRequest; invalidURLs: string[] | undefined; warning: string | undefined } {
  if (!llm) {
    throw new BadRequestError(
      'extract needs an LLM: set OPENAI_BASE_URL (and OPENAI_API_KEY, MODEL_NAME) on the server, or use /api/v1/extract with llmBaseUrl',
    );
  }
  if (!body.urls || body.urls.length === 0)
    refuse('urls', 'at least one URL is needed (web search for extract is not supported)');
  if (body.enableWebSearch) refuse('enableWebSearch', 'web search for extract is not supported');
  if (body.agent !== undefined) refuse('agent', 'agents are not supported');
  if (body.urlTrace) refuse('urlTrace', 'URL traces are not supported');
  if (body.showSources) refuse('showSources', 'sources are not reported by this server');
  if (body.prompt === undefined && body.schema === undefined) refuse('prompt', 'give a prompt or a schema');
  if (body.schema !== undefined) checkedSchema(body.schema as JsonSchema, 'schema');
  checkWaitFor(body.scrapeOptions?.waitFor, body.scrapeOptions?.timeout, 'scrapeOptions.');
  if (body.scrapeOptions && Object.keys(body.scrapeOptions).length > 0) {
    refuse('scrapeOptions', 'extract reads pages with the default options on this server');
  }
  refuseRetention(body.zeroDataRetention, 'zeroDataRetention');
  // Firecrawl v2 skips invalid URLs by default (and lists them); v1 refuses them unless asked.
  const ignoreInvalid = body.ignoreInvalidURLs ?? api === 'v2';
  const urls: string[] = [];
  const invalid: string[] = [];
  for (const [i, url] of body.urls.entries()) {
    try {
      if (url.includes('*')) refuse(`urls[${i}]`, 'wildcard URLs are not supported; list the pages');
      urls.push(parseTargetUrl(url).href);
    } catch (err) {
      if (!ignoreInvalid) refuse(`urls[${i}]`, (err as Error).message.replace(/^urls\[\d+\]: /, ''));
      invalid.push(url);
    }
  }
  if (urls.length === 0) refuse('urls', 'no valid URL to extract from');
  return {
    request: {
      urls,
      prompt: body.prompt,
      schema: body.schema as Record<string, unknown> | boolean | undefined,
      systemPrompt: body.systemPrompt,
      timeout: body.timeout,
      webhook: webhookOf(body.webhook),
    },
    invalidURLs: ignoreInvalid ? invalid : undefined,
    warning: noEffectWarning([...noEffectFields(body), ...EXTRACT_NO_EFFECT.filter((f) => body[f])]),
  };
}

export function extractBodyOf(req: ExtractJobRequest, llm: NonNullable<Config['llm']>): ExtractBody {
  const prompt = [req.systemPrompt, req.prompt].filter((p) => p !== undefined).join('\n\n');
  return {
    urls: req.urls,
    ...(req.schema !== undefined ? { schema: req.schema } : {}),
    ...(prompt ? { prompt } : {}),
    mode: 'llm',
    llmBaseUrl: llm.baseUrl,
    llmModel: llm.model,
    ...(llm.apiKey ? { llmApiKey: llm.apiKey } : {}),
    ...(req.timeout ? { timeout: Math.min(req.timeout, 300000) } : {}),
  };
}

/**
 * One answer from several pages, as Firecrawl's extract gives: objects are merged field by field (arrays
 * concatenated, the first non-empty value kept otherwise); a single page's answer is returned as it is.
 */
export function mergeExtracted(reply: ExtractReply): unknown {
  const values = reply.results.filter((r) => r.success).map((r) => r.data);
  if (values.length === 0) {
    throw new BadRequestError(
      `extraction failed for every URL: ${reply.warnings.map((w) => `${w.url}: ${w.error}`).join('; ')}`,
    );
  }
  if (values.length === 1) return values[0];
  const merge = (a: unknown, b: unknown): unknown => {
    if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
    if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
      const out: Record<string, unknown> = { ...(a as Record<string, unknown>) };
      for (const [k, v] of Object.entries(b as Record<string, unknown>))
        out[k] = k in out ? merge(out[k], v) : v;
      return out;
    }
    return a === null || a === undefined || a === '' ? b : a;
  };
  return values.reduce(merge);
}

export function llmsTxtRequestOf(body: FcLlmsTxtBody): LlmsTxtJobRequest {
  return {
    url: parseTargetUrl(body.url).href,
    maxUrls: body.maxUrls ?? 10,
    showFullText: body.showFullText ?? false,
  };
}

export function llmsTxtBodyOf(req: LlmsTxtJobRequest, llm: Config['llm']): LlmsTxtBody {
  return {
    url: req.url,
    maxUrls: req.maxUrls,
    showFullText: req.showFullText,
    ...(llm
      ? { llmBaseUrl: llm.baseUrl, llmModel: llm.model, ...(llm.apiKey ? { llmApiKey: llm.apiKey } : {}) }
      : {}),
  };
}

export function llmsTxtResultOf(result: LlmsTxtResult, showFullText: boolean): Record<string, string> {
  return { llmstxt: result.llmstxt, ...(showFullText ? { llmsfulltxt: result.llmsFulltxt } : {}) };
}
