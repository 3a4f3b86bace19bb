import { Type } from 'typebox';
import type { Static, TSchema } from 'typebox';

/** What a scrape may ask of a PDF's pages beyond the document's Markdown. */
export const DocumentLayoutOption = Type.Object(
  {
    pages: Type.Optional(
      Type.Boolean({ description: "`pages`: each page's Markdown, with its page number." }),
    ),
    blocks: Type.Optional(
      Type.Boolean({
        description:
          "`blocks`: each page's blocks (heading, paragraph, list, table) with their area on the page, reading order and place in the page's Markdown.",
      }),
    ),
    pageMarkers: Type.Optional(
      Type.Boolean({
        description:
          "The Markdown made of the pages' Markdown joined by `\\n\\n---\\n\\n<!-- page N -->\\n\\n` (N: the page that follows).",
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      "PDFs only, read from their text layer (no layout model, no OCR): a page's Markdown and blocks. Other pages leave these fields out.",
  },
);
export type DocumentLayoutOption = Static<typeof DocumentLayoutOption>;

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const DocumentPage = Type.Object({
  pageNumber: Type.Integer({ minimum: 1 }),
  markdown: Type.String(),
});
export type DocumentPage = Static<typeof DocumentPage>;

export const DocumentBlock = Type.Object({
  id: Type.String({ description: 'p{page}-{readingOrder}.' }),
  type: Type.String({ description: 'heading, paragraph, list or table.' }),
  label: Nullable(Type.String({ description: 'The element the block became: h1, h2, h3, p, ul, table.' })),
  bbox: Nullable(
    Type.Array(Type.Number(), {
      minItems: 4,
      maxItems: 4,
      description: "[x0, y0, x1, y1] in points from the page's top-left corner.",
    }),
  ),
  content: Type.String({ description: "The block's Markdown." }),
  markdownSpan: Nullable(
    Type.Array(Type.Integer(), {
      minItems: 2,
      maxItems: 2,
      description: "[start, end) of `content` in the page's Markdown.",
    }),
  ),
  readingOrder: Type.Integer({ minimum: 0 }),
  source: Nullable(Type.String({ description: '"text-layer": read from the PDF\'s text, not by OCR.' })),
  confidence: Type.Object({
    layout: Nullable(Type.Number()),
    ocr: Nullable(Type.Number()),
  }),
});
export type DocumentBlock = Static<typeof DocumentBlock>;

export const DocumentPageBlocks = Type.Object({
  pageNumber: Type.Integer({ minimum: 1 }),
  width: Nullable(Type.Number({ description: 'Points.' })),
  height: Nullable(Type.Number({ description: 'Points.' })),
  status: Type.String({
    description: '"ok", or "truncated" when the page had more blocks than are listed (2000).',
  }),
  items: Type.Array(DocumentBlock),
});
export type DocumentPageBlocks = Static<typeof DocumentPageBlocks>;
