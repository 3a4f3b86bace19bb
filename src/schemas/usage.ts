import { Type } from 'typebox';
import type { Static } from 'typebox';
import { TenantFilter } from './operator.js';

const Day = (description: string) =>
  Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: `${description} (YYYY-MM-DD, UTC)` });

export const UsageQuery = Type.Object(
  {
    from: Type.Optional(Day('First day (default: `to`, or today)')),
    to: Type.Optional(Day('Last day, included (default: today); at most 400 days after `from`')),
    tenant: Type.Optional(TenantFilter),
  },
  { additionalProperties: false },
);
export type UsageQuery = Static<typeof UsageQuery>;

const Counters = {
  pages: Type.Integer({ description: 'Pages fetched from the web that the target answered (any status).' }),
  browserMs: Type.Integer({
    description: 'Milliseconds browser renders and browser sessions held a browser page.',
  }),
  documents: Type.Integer({
    description: 'Documents parsed: PDF, Word, Excel, PowerPoint, fetched or uploaded.',
  }),
  llmTokens: Type.Integer({ description: "Prompt and completion tokens of the server's LLM." }),
  credits: Type.Integer({
    description:
      "Firecrawl's unit: 1 a page document built (fetched or uploaded), a parsed PDF its pages read, 5 with a json format.",
  }),
};

/** One tenant's counters of one UTC day. */
export const UsageDay = Type.Object({ tenant: Type.String(), day: Type.String(), ...Counters });

export const UsageReply = Type.Object({
  success: Type.Literal(true),
  from: Type.String(),
  to: Type.String(),
  /** The days with usage, by tenant then day. */
  data: Type.Array(UsageDay),
  /** The sum of `data`. */
  total: Type.Object(Counters),
});
export type UsageReply = Static<typeof UsageReply>;
