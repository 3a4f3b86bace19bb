import { toAppError } from '../errors.js';
import type { PageStore } from '../jobs/stores/page-store.js';
import type { Deadline } from '../lib/deadline.js';
import type { Logger } from '../lib/logger.js';
import { trackChanges } from '../operations/change-tracking.js';
import type { PageData, PageDataRequest } from '../pipeline/page-data.js';
import type { PageDocument } from '../schemas/page.js';
import { creditsOf } from '../tenants/credits.js';
import type { Meter } from '../tenants/metering.js';
import type { ExtraFieldsWriter } from './deps.js';
import { answerFields } from './formats/answers.js';
import { jsonWritten } from './page-extras.js';
import type { ExtraFields, LlmFields, PageExtras } from './page-extras.js';
import { llmFields } from './page-llm.js';
import type { PageLlmDeps } from './page-llm.js';
import { menuOf } from './formats/menu.js';
import { productOf } from './formats/product.js';

/** Reads a page's HTML in the content workers (attributes, declared product and menu). */
export type PageDataReader = (request: PageDataRequest, deadline: Deadline) => Promise<PageData>;

export interface ExtraFieldsDeps {
  /** The server's LLM, or null when it has none (OPENAI_BASE_URL). */
  pageLlm: PageLlmDeps | null;
  /** Previous scrapes, for change tracking. */
  pages: PageStore;
  readPageData: PageDataReader;
  /** Where a written json format's credits beyond its page's are counted, to the page's tenant. */
  meter?: Meter;
  log: Logger;
}

const NO_LLM = 'the server has no LLM (OPENAI_BASE_URL)';

/** The fields read from the page's HTML: attributes without an LLM, product and menu with it when there is one. */
async function htmlFields(
  doc: PageDocument,
  extras: PageExtras,
  deadline: Deadline,
  deps: ExtraFieldsDeps,
): Promise<{ fields: ExtraFields; problems: string[] }> {
  const fields: ExtraFields = {};
  const problems: string[] = [];
  if (doc.rawHtml === undefined)
    return { fields, problems: ['attributes, product and menu: the page has no HTML.'] };
  const structured = extras.product || extras.menu;
  let data: PageData;
  try {
    data = await deps.readPageData(
      {
        html: doc.rawHtml,
        url: doc.url,
        ...(extras.attributes ? { attributes: extras.attributes } : {}),
        product: extras.product,
        menu: extras.menu,
        ...(structured && deps.pageLlm ? { textChars: deps.pageLlm.maxInputChars * 2 } : {}),
      },
      deadline,
    );
  } catch (err) {
    return { fields, problems: [`The page's HTML could not be read: ${toAppError(err).message}`] };
  }
  if (data.attributes) fields.attributes = data.attributes;
  if (data.capped) {
    deps.log.debug({ op: 'attributes', url: doc.url, reason: data.capped }, 'attribute values left out');
    problems.push(`attributes: ${data.capped.join('; ')}.`);
  }
  const reading = { pageText: data.text ?? '', deadline, deps: deps.pageLlm };
  const reader = deps.pageLlm ? 'and the LLM found none the page bears out' : `and ${NO_LLM} to read it`;
  const found = await Promise.all([
    extras.product ? productOf(doc, data.product ?? null, reading) : null,
    extras.menu ? menuOf(doc, data.menu ?? null, reading) : null,
  ]);
  for (const [key, result] of [
    ['product', found[0]],
    ['menu', found[1]],
  ] as const) {
    if (!result) continue;
    problems.push(...result.problems);
    if (result.value) Object.assign(fields, { [key]: result.value });
    else
      problems.push(
        `No ${key} found on this page: it declares none in schema.org data (JSON-LD, microdata) ${reader}.`,
      );
  }
  return { fields, problems };
}

/** The LLM formats of the page: json and summary (page-llm.ts), answer and highlights (page-answers.ts). */
async function llmWritten(
  doc: PageDocument,
  extras: PageExtras,
  deadline: Deadline,
  pageLlm: PageLlmDeps | null,
): Promise<{ fields: ExtraFields; problems: string[] }> {
  const wantsWriting = extras.json || extras.summary;
  const wantsAnswers = extras.answer || extras.highlights;
  if (!wantsWriting && !wantsAnswers) return { fields: {}, problems: [] };
  if (!pageLlm) return { fields: {}, problems: [`The LLM formats were not written: ${NO_LLM}.`] };
  const [written, answers] = await Promise.all([
    wantsWriting ? llmFields(doc, extras, deadline, pageLlm) : ({} as LlmFields),
    wantsAnswers ? answerFields(doc, extras, deadline, pageLlm) : null,
  ]);
  const { warning, ...fields } = written;
  const problems = [...(warning ? [warning] : []), ...(answers?.problems ?? [])];
  if (answers && answers.problems.length > 0) {
    pageLlm.log.debug(
      { op: 'llm-formats', url: doc.url, reason: answers.problems.join(' ') },
      'llm format dropped',
    );
  }
  return { fields: { ...fields, ...answers?.fields }, problems };
}

/**
 * Writes Firecrawl's extra fields of a page: the LLM formats through the server's LLM, attributes, product and
 * menu from the page's HTML (in the content workers), changeTracking against the tenant's previous scrape
 * of the page in `pages`. What could not be written is named in the document's `warning`.
 */
export function extraFieldsWriter(deps: ExtraFieldsDeps): ExtraFieldsWriter {
  return async (doc, sourceUrl, extras, deadline, tenant) => {
    const parts = await Promise.all([
      llmWritten(doc, extras, deadline, deps.pageLlm),
      extras.attributes || extras.product || extras.menu
        ? htmlFields(doc, extras, deadline, deps)
        : { fields: {}, problems: [] },
    ]);
    const out: ExtraFields = Object.assign({}, ...parts.map((p) => p.fields));
    const problems = parts.flatMap((p) => p.problems);
    if (extras.changeTracking) {
      const tracked = await trackChanges(doc, sourceUrl, extras.changeTracking, deps.pages, tenant);
      out.changeTracking = tracked.changeTracking;
      if (tracked.warning) problems.push(tracked.warning);
    }
    if (problems.length > 0) out.warning = problems.join(' ');
    // The page's own credits were counted when it was built; a json written makes them Firecrawl's json rate.
    if (jsonWritten(out))
      deps.meter?.add(tenant, { credits: creditsOf(doc.metadata, { json: true }) - creditsOf(doc.metadata) });
    return out;
  };
}
