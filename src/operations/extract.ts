import { selectAll } from 'css-select';
import type { ValidateFunction } from 'ajv';
import { BadRequestError, ConfigurationError, SchemaViolationError, toAppError } from '../errors.js';
import { completeness } from '../extract/css.js';
import { checkLlmFields, parseJsonAnswer } from '../extract/llm.js';
import type { LlmClient, LlmEndpoint } from '../extract/llm.js';
import { compileSchema, describeViolations } from '../extract/schema.js';
import { Deadline } from '../lib/deadline.js';
import { mapWithLimit } from '../lib/map-limit.js';
import { parseTargetUrl } from '../lib/target-url.js';
import { DEFAULT_LLM_MODEL } from '../schemas/extract.js';
import type { ExtractBody, ExtractItem, ExtractReply } from '../schemas/extract.js';
import type { ScrapeDeps } from '../pipeline/fetch-page.js';
import { checkPageOptions, fetchAndRender } from '../pipeline/fetch-page.js';
import type { Caller } from '../tenants/tenant.js';

export interface ExtractDeps extends ScrapeDeps {
  llm: LlmClient;
  /** SERVICE_EXTRACT_CONCURRENCY, or why its value is invalid. */
  concurrency: { value: number } | { error: string };
  /** Characters of page Markdown sent to the LLM at most. */
  llmMaxInputChars: number;
}

interface Plan {
  mode: 'auto' | 'css' | 'llm';
  selectors: Record<string, string> | null;
  validate: ValidateFunction | null;
  properties: Record<string, unknown> | undefined;
  fields: string[];
  llm: LlmEndpoint | null;
}

/** Every request-level check (schema, prompt, concurrency setting), before any fetch or model call. */
type CallerSchema = Record<string, unknown> | boolean | undefined;

function plan(body: ExtractBody, deps: ExtractDeps): Plan {
  const callerSchema = body.schema as CallerSchema;
  if ('error' in deps.concurrency) throw new ConfigurationError(deps.concurrency.error);
  body.urls.forEach((url, i) => parseTargetUrl(url, `urls[${i}]`));
  checkPageOptions({ engine: body.engine }, deps.browser !== null);
  const validate = callerSchema !== undefined ? compileSchema(callerSchema) : null;
  const selectors = body.selectors && Object.keys(body.selectors).length > 0 ? body.selectors : null;
  for (const [field, selector] of Object.entries(selectors ?? {})) {
    try {
      selectAll(selector.replace(/\s*@[\w:-]+$/, ''), []);
    } catch {
      throw new BadRequestError(`selectors.${field} is not a valid CSS selector: '${selector}'`);
    }
  }
  const mode = body.mode ?? 'auto';
  if (mode === 'css' && !selectors) throw new BadRequestError('mode "css" needs selectors');
  if (mode === 'llm' && !body.llmBaseUrl) throw new BadRequestError('mode "llm" needs llmBaseUrl');
  if (mode === 'auto' && !selectors && !body.llmBaseUrl) {
    throw new BadRequestError('mode "auto" needs selectors, or LLM credentials (llmBaseUrl), or both');
  }
  checkLlmFields(body);
  rejectUnusedLlmFields(body, mode);
  const schema = typeof callerSchema === 'object' ? callerSchema : undefined;
  const properties =
    schema && typeof schema.properties === 'object' && schema.properties !== null
      ? (schema.properties as Record<string, unknown>)
      : undefined;
  return {
    mode,
    selectors,
    validate,
    properties,
    fields: properties ? Object.keys(properties) : Object.keys(selectors ?? {}),
    llm:
      body.llmBaseUrl && mode !== 'css'
        ? { baseUrl: body.llmBaseUrl, model: body.llmModel ?? DEFAULT_LLM_MODEL, apiKey: body.llmApiKey }
        : null,
  };
}

/** Fields that could never take effect are refused rather than silently ignored. */
function rejectUnusedLlmFields(body: ExtractBody, mode: Plan['mode']): void {
  if (mode === 'css') {
    const unused = (['prompt', 'llmBaseUrl', 'llmApiKey'] as const).filter((f) => body[f] !== undefined);
    if (unused.length > 0)
      throw new BadRequestError(`mode "css" does not use ${unused.join(', ')} (use mode "auto" or "llm")`);
  }
  if (body.prompt !== undefined && !body.llmBaseUrl)
    throw new BadRequestError('prompt is for LLM extraction and needs llmBaseUrl');
}

function check(validate: ValidateFunction | null, data: unknown): void {
  if (!validate || validate(data)) return;
  throw new SchemaViolationError(
    `schema validation failed: ${describeViolations(validate.errors).join('; ')}`,
  );
}

async function extractOne(
  url: string,
  body: ExtractBody,
  p: Plan,
  deadline: Deadline,
  deps: ExtractDeps,
  caller: Caller,
): Promise<ExtractItem> {
  const css = p.selectors && p.mode !== 'llm' ? p.selectors : null;
  const { document, extracted } = await fetchAndRender(
    {
      url: new URL(url),
      sourceUrl: url,
      options: { formats: ['markdown'], engine: body.engine },
      cssExtract: css ? { selectors: css, properties: p.properties, schema: body.schema } : undefined,
      caller,
    },
    deadline,
    deps,
  );
  let cssFailure: Error | null = null;
  if (css) {
    const data = extracted ?? {};
    try {
      check(p.validate, data);
      if (p.mode === 'css' || !p.llm || completeness(data, p.fields) >= 0.5) {
        return { url, success: true, data, method: 'css' };
      }
    } catch (err) {
      if (p.mode === 'css' || !p.llm) throw err;
      cssFailure = err as Error;
    }
  }
  if (!p.llm) throw cssFailure ?? new BadRequestError('no extraction method applies');
  const markdown = (document.markdown ?? '').slice(0, deps.llmMaxInputChars);
  const schemaText =
    body.schema !== undefined ? `\n\nJSON Schema of the answer:\n${JSON.stringify(body.schema)}` : '';
  const answer = await deps.llm.complete(
    p.llm,
    {
      instructions: `You extract structured data from a web page. Answer with a single JSON object and nothing else.${schemaText ? ' It must be valid against the JSON Schema given.' : ''}`,
      input: `${body.prompt ?? 'Extract the data described by the schema from this page.'}${schemaText}\n\nURL: ${url}\n\nPage content (Markdown):\n${markdown}`,
      schema: body.schema as CallerSchema,
      purpose: 'extract',
    },
    deadline,
  );
  const data = parseJsonAnswer(answer);
  check(p.validate, data);
  return { url, success: true, data, method: 'llm' };
}

/**
 * Extracts from 1-10 URLs with a bounded number at once; each URL's budget starts when its slot opens.
 * Per-URL failures (fetch, timeout, schema violations, LLM errors) are items of the batch, in input order.
 * `caller`: the tenant the pages are fetched for (the request's, or the extract job's owner).
 */
export async function extractBatch(
  body: ExtractBody,
  signal: AbortSignal,
  deps: ExtractDeps,
  caller: Caller,
): Promise<ExtractReply> {
  const p = plan(body, deps);
  const concurrency = 'value' in deps.concurrency ? deps.concurrency.value : 1;
  const results = await mapWithLimit(body.urls, concurrency, async (url): Promise<ExtractItem> => {
    // The per-URL budget starts when its slot opens: waiting for a slot is not counted.
    const deadline = Deadline.after(body.timeout ?? 30000, signal);
    try {
      return await extractOne(url, body, p, deadline, deps, caller);
    } catch (err) {
      const e = toAppError(err);
      return { url, success: false, error: e.code === 'INTERNAL' ? 'Internal error' : e.message };
    }
  });
  const failed = results.filter((r) => !r.success);
  return {
    success: true,
    allSuccessful: failed.length === 0,
    data: results.map((r) => (r.success ? r.data : { url: r.url, error: r.error })),
    results,
    warnings: failed.map((r) => ({ url: r.url, error: r.error ?? 'failed' })),
  };
}
