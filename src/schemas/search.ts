import { Type } from 'typebox';
import type { Static } from 'typebox';
import { PageFormatFields } from './page.js';
import { ClientTags, EngineName, Formats } from './common.js';
import { LlmFields } from './extract.js';

export const SearchBody = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 500, description: 'The search query.' }),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 50, default: 10, description: 'Results wanted (max 50).' }),
    ),
    scrapeResults: Type.Optional(Type.Boolean({ default: false })),
    scrapeOptions: Type.Optional(
      Type.Object(
        {
          formats: Type.Optional(Formats),
          onlyMainContent: Type.Optional(Type.Boolean({ default: false })),
          timeout: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 300000,
              default: 10000,
              description: 'Per-page budget (ms).',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    ...ClientTags,
  },
  { additionalProperties: false },
);
export type SearchBody = Static<typeof SearchBody>;

export const SearchResult = Type.Object({
  title: Type.String(),
  url: Type.String(),
  snippet: Type.String(),
  content: Type.Optional(
    Type.Union(
      [
        Type.Object({
          ...PageFormatFields,
          metadata: Type.Object({
            title: Type.String(),
            wordCount: Type.Integer(),
            readingTime: Type.Integer(),
          }),
        }),
        Type.Null(),
      ],
      {
        description:
          'With scrapeResults: the page in the requested formats; null when it could not be scraped.',
      },
    ),
  ),
  error: Type.Optional(Type.String({ description: 'Why the page could not be scraped (content is null).' })),
});
export type SearchResult = Static<typeof SearchResult>;

export const SearchReply = Type.Object({ success: Type.Literal(true), data: Type.Array(SearchResult) });

export const LlmsTxtBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 8192 }),
    maxUrls: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 20 })),
    showFullText: Type.Optional(Type.Boolean({ default: true })),
    engine: Type.Optional(EngineName),
    maxConcurrentScrapes: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10 })),
    ignoreSitemap: Type.Optional(Type.Boolean({ default: false })),
    includeSubdomains: Type.Optional(Type.Boolean({ default: true })),
    ...LlmFields,
    ...ClientTags,
  },
  { additionalProperties: false },
);
export type LlmsTxtBody = Static<typeof LlmsTxtBody>;

export const LlmsTxtReply = Type.Object({
  success: Type.Literal(true),
  llmstxt: Type.String(),
  llmsFulltxt: Type.String({ description: 'Empty when showFullText is false.' }),
  urlsProcessed: Type.Integer(),
  urlsDiscovered: Type.Integer(),
});
