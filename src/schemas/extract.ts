import { Type } from 'typebox';
import type { Static } from 'typebox';
import { ClientTags, EngineName, TargetUrl, TimeoutMs } from './common.js';

export const DEFAULT_LLM_MODEL = 'gpt-4o-mini';

export const LlmFields = {
  llmBaseUrl: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2000,
      description:
        'OpenAI-compatible endpoint: a base URL (with or without /v1) for Chat Completions, or a URL ending in /responses or /chat/completions.',
    }),
  ),
  llmModel: Type.Optional(Type.String({ minLength: 1, maxLength: 200, default: DEFAULT_LLM_MODEL })),
  llmApiKey: Type.Optional(
    Type.String({ maxLength: 1000, description: 'Sent as a Bearer token to llmBaseUrl only; never logged.' }),
  ),
};

export const ExtractBody = Type.Object(
  {
    urls: Type.Array(TargetUrl, { minItems: 1, maxItems: 10 }),
    schema: Type.Optional(
      Type.Union([Type.Object({}, { additionalProperties: true }), Type.Boolean()], {
        description: 'JSON Schema (drafts 4, 6, 7, 2019-09, 2020-12 by $schema; 2020-12 when absent).',
      }),
    ),
    prompt: Type.Optional(Type.String({ maxLength: 20000 })),
    selectors: Type.Optional(
      Type.Record(
        Type.String({ minLength: 1, maxLength: 200 }),
        Type.String({ minLength: 1, maxLength: 1000 }),
        {
          maxProperties: 100,
          description: 'Field name -> CSS selector; "selector@attr" takes an attribute instead of the text.',
        },
      ),
    ),
    mode: Type.Optional(Type.Enum(['auto', 'css', 'llm'], { default: 'auto' })),
    engine: Type.Optional(EngineName),
    timeout: Type.Optional({ ...TimeoutMs, description: 'Per-URL budget in ms, from when its slot opens.' }),
    ...LlmFields,
    ...ClientTags,
  },
  { additionalProperties: false },
);
export type ExtractBody = Static<typeof ExtractBody>;

export const ExtractItem = Type.Object({
  url: Type.String(),
  success: Type.Boolean(),
  data: Type.Optional(Type.Unknown({ description: 'The extracted object (on success).' })),
  error: Type.Optional(Type.String({ description: 'Why this URL failed (on failure).' })),
  method: Type.Optional(Type.Enum(['css', 'llm'], { description: 'Which extraction produced data.' })),
});
export type ExtractItem = Static<typeof ExtractItem>;

export const ExtractReply = Type.Object({
  success: Type.Literal(true),
  allSuccessful: Type.Boolean(),
  data: Type.Array(Type.Unknown(), {
    description: 'Per input URL, in order: the extracted object, or {url, error} on failure.',
  }),
  results: Type.Array(ExtractItem),
  warnings: Type.Array(Type.Object({ url: Type.String(), error: Type.String() }), {
    description: 'One entry per failed URL.',
  }),
});
export type ExtractReply = Static<typeof ExtractReply>;
