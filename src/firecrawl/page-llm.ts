import { toAppError } from '../errors.js';
import type { LlmClient, LlmEndpoint } from '../extract/llm.js';
import { parseJsonAnswer } from '../extract/llm.js';
import { compileSchema, describeViolations } from '../extract/schema.js';
import type { Deadline } from '../lib/deadline.js';
import type { Logger } from '../lib/logger.js';
import type { PageDocument } from '../schemas/page.js';
import type { LlmFields, PageExtras } from './page-extras.js';

export interface PageLlmDeps {
  llm: LlmClient;
  /** The server's LLM (OPENAI_BASE_URL, OPENAI_API_KEY, MODEL_NAME). */
  endpoint: LlmEndpoint;
  /** Characters of the page's Markdown sent at most. */
  maxInputChars: number;
  log: Logger;
}

/**
 * Writes the LLM formats of one page. A failed or invalid answer costs that field, not the page: the document
 * comes back with a `warning` saying what went wrong (Firecrawl returns the page in that case too).
 */
export async function llmFields(
  doc: PageDocument,
  extras: PageExtras,
  deadline: Deadline,
  deps: PageLlmDeps,
): Promise<LlmFields> {
  const markdown = (doc.markdown ?? '').slice(0, deps.maxInputChars);
  const page = `URL: ${doc.url}\n\nPage content (Markdown):\n${markdown}`;
  const out: LlmFields = {};
  const problems: string[] = [];
  const tasks: Promise<void>[] = [];
  if (extras.json) {
    const { key, prompt, schema, systemPrompt } = extras.json;
    const schemaText =
      schema !== undefined ? `\n\nJSON Schema of the answer:\n${JSON.stringify(schema)}` : '';
    tasks.push(
      (async () => {
        try {
          const answer = await deps.llm.complete(
            deps.endpoint,
            {
              instructions: `${systemPrompt ? `${systemPrompt}\n\n` : ''}You extract structured data from a web page. Answer with a single JSON object and nothing else.${schema !== undefined ? ' It must be valid against the JSON Schema given.' : ''}`,
              input: `${prompt ?? 'Extract the data described by the schema from this page.'}${schemaText}\n\n${page}`,
              schema,
              purpose: 'format',
            },
            deadline,
          );
          const data = parseJsonAnswer(answer);
          out[key] = data;
          if (schema !== undefined) {
            const validate = compileSchema(schema);
            if (!validate(data)) {
              problems.push(
                `${key} does not follow its schema: ${describeViolations(validate.errors).join('; ')}`,
              );
            }
          }
        } catch (err) {
          problems.push(`${key} could not be written: ${toAppError(err).message}`);
        }
      })(),
    );
  }
  if (extras.summary) {
    tasks.push(
      (async () => {
        try {
          out.summary = (
            await deps.llm.complete(
              deps.endpoint,
              {
                instructions:
                  'You summarize web pages. Answer with a concise summary of the page in plain prose (at most one paragraph), in the language of the page, and nothing else.',
                input: page,
                purpose: 'format',
              },
              deadline,
            )
          ).trim();
        } catch (err) {
          problems.push(`summary could not be written: ${toAppError(err).message}`);
        }
      })(),
    );
  }
  await Promise.all(tasks);
  if (problems.length > 0) {
    out.warning = problems.join(' ');
    deps.log.debug({ op: 'llm-formats', url: doc.url, reason: out.warning }, 'llm format dropped');
  }
  return out;
}
