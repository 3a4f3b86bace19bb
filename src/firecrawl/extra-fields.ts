import type { PageStore } from '../jobs/stores/page-store.js';
import { trackChanges } from '../operations/change-tracking.js';
import type { ExtraFieldsWriter } from './deps.js';
import type { ExtraFields } from './page-extras.js';
import { llmFields } from './page-llm.js';
import type { PageLlmDeps } from './page-llm.js';

/**
 * Writes Firecrawl's extra fields of a page: json and summary through the server's LLM (a warning when it has
 * none), changeTracking against the page's previous scrape in `pages`.
 */
export function extraFieldsWriter(pageLlm: PageLlmDeps | null, pages: PageStore): ExtraFieldsWriter {
  return async (doc, sourceUrl, extras, deadline) => {
    let out: ExtraFields = {};
    if (extras.json || extras.summary) {
      out = pageLlm
        ? await llmFields(doc, extras, deadline, pageLlm)
        : { warning: 'the server has no LLM (OPENAI_BASE_URL)' };
    }
    if (extras.changeTracking) {
      const tracked = await trackChanges(doc, sourceUrl, extras.changeTracking, pages);
      out.changeTracking = tracked.changeTracking;
      if (tracked.warning) out.warning = out.warning ? `${out.warning} ${tracked.warning}` : tracked.warning;
    }
    return out;
  };
}
