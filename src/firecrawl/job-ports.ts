import type { Config } from '../config/config.js';
import { normalizeUrl } from '../crawl/normalize.js';
import type { CrawlJobRequest, JobEvent } from '../jobs/job-manager.js';
import type { JobSurfacePorts } from '../jobs/job-engine.js';
import type { JobKind } from '../jobs/stores/job-store.js';
import { Deadline } from '../lib/deadline.js';
import type { LlmsTxtResult } from '../operations/llmstxt.js';
import type { ExtractBody, ExtractReply } from '../schemas/extract.js';
import type { LlmsTxtBody } from '../schemas/search.js';
import type { Caller } from '../tenants/tenant.js';
import type { ExtraFieldsWriter } from './deps.js';
import { firecrawlDocument } from './options.js';
import type { PageExtras } from './page-extras.js';
import { extractBodyOf, llmsTxtBodyOf, llmsTxtResultOf, mergeExtracted } from './tasks.js';
import type { ExtractJobRequest, LlmsTxtJobRequest } from './tasks.js';

/** The header of Firecrawl's webhook signatures. */
export const SIGNATURE_HEADER = 'x-firecrawl-signature';

/** Budget of the LLM formats of one page of a job. */
const LLM_FORMATS_TIMEOUT_MS = 60_000;

/** What a Firecrawl crawl or batch job keeps beside the engine's fields: the API version and the LLM formats. */
export interface FirecrawlCrawlRequest extends CrawlJobRequest {
  api: 'v1' | 'v2';
  extras?: PageExtras | null;
  /** A batch's URLs as the caller wrote them, by the frontier's key of each, where the two differ. */
  sourceUrls?: Record<string, string>;
  /** A crawl's options as the caller sent them (in `api`'s names), less the headers: listed by /crawl/ongoing. */
  options?: Record<string, unknown>;
}

/**
 * The caller's spelling of each absolute URL, by the frontier's key of it (query parameters sorted, `et_blog`
 * written `et_blog=`) where the two differ: a batch's documents give `sourceURL` as sent, as a scrape does.
 */
export function callerSpellings(urls: readonly string[]): Record<string, string> {
  const spellings: Record<string, string> = {};
  for (const url of urls) {
    const key = /^https?:\/\//i.test(url) ? normalizeUrl(url) : null;
    if (key !== null && key !== url) spellings[key] = url;
  }
  return spellings;
}

/** Firecrawl's webhook event prefix for a job kind. */
const EVENT_PREFIX: Record<JobKind, string> = {
  crawl: 'crawl',
  batch_scrape: 'batch_scrape',
  extract: 'extract',
  llmstxt: 'llmstxt',
  agent: 'agent',
  monitor_check: 'monitor.check',
};

/**
 * The job operations a Firecrawl task runs, outside the request gates (jobs have MAX_RUNNING_JOBS), for the
 * job's owner (`caller`).
 */
export interface TaskOperations {
  extract(body: ExtractBody, signal: AbortSignal, caller: Caller): Promise<ExtractReply>;
  llmstxt(body: LlmsTxtBody, signal: AbortSignal, caller: Caller): Promise<LlmsTxtResult>;
}

/**
 * How Firecrawl's jobs look to the job engine: documents in Firecrawl's shape with the LLM formats written,
 * webhook events named `<kind>.<event>` with Firecrawl's body, and extract and llms.txt runs.
 */
export function firecrawlJobPorts(
  extraFields: ExtraFieldsWriter,
  serverLlm: Config['llm'],
  operations: TaskOperations,
): JobSurfacePorts {
  return {
    shapeDocument: async (doc, frontierUrl, stored, signal, owner) => {
      const request = stored as FirecrawlCrawlRequest;
      const sourceUrl = request.sourceUrls?.[frontierUrl] ?? frontierUrl;
      if (!request.extras) return firecrawlDocument(doc, sourceUrl);
      const deadline = Deadline.after(LLM_FORMATS_TIMEOUT_MS, signal);
      try {
        const fields = await extraFields(doc, sourceUrl, request.extras, deadline, owner);
        const { dropMarkdown, dropRawHtml } = request.extras;
        return firecrawlDocument(doc, sourceUrl, { fields, dropMarkdown, dropRawHtml });
      } finally {
        deadline.dispose();
      }
    },
    webhookEvent: (job, event: JobEvent, extra) => {
      const target = (job.request as { webhook: { metadata: Record<string, unknown> } }).webhook;
      const type = `${EVENT_PREFIX[job.kind]}.${event}`;
      return {
        type,
        body: {
          success: event !== 'failed',
          type,
          id: job.id,
          data: extra.data ?? [],
          metadata: target.metadata,
          ...(extra.error ? { error: extra.error } : {}),
        },
      };
    },
    tasks: {
      extract: async (request, { signal, caller }) => {
        const body = extractBodyOf(request as ExtractJobRequest, serverLlm!);
        return mergeExtracted(await operations.extract(body, signal, caller));
      },
      llmstxt: async (request, { signal, caller }) => {
        const req = request as LlmsTxtJobRequest;
        const result = await operations.llmstxt(llmsTxtBodyOf(req, serverLlm), signal, caller);
        return llmsTxtResultOf(result, req.showFullText);
      },
    },
  };
}
