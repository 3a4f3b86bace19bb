import { Type } from 'typebox';
import type { Static } from 'typebox';
import { Formats } from './common.js';
import { ScrapeOptionFields } from './scrape.js';

/** A file given by its bytes (the CLI reads it; an agent sends it base64), converted like a fetched page. */
export const ParseBody = Type.Object(
  {
    filename: Type.String({
      minLength: 1,
      maxLength: 500,
      description:
        'The file name: its extension tells the type when the bytes do not (report.html, notes.md).',
    }),
    content: Type.String({
      minLength: 1,
      maxLength: 30_000_000,
      contentEncoding: 'base64',
      description: 'The file, base64.',
    }),
    formats: Type.Optional(Formats),
    onlyMainContent: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          "An HTML file's main content only; a PDF or Office document has no page chrome and is kept whole.",
      }),
    ),
    includeTags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), { maxItems: 100 })),
    excludeTags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), { maxItems: 100 })),
    maxDocumentPages: ScrapeOptionFields.maxDocumentPages,
    documentLayout: ScrapeOptionFields.documentLayout,
  },
  { additionalProperties: false },
);
export type ParseBody = Static<typeof ParseBody>;
