import { Type } from 'typebox';

export const FcUsageReply = Type.Object({
  success: Type.Literal(true),
  data: Type.Record(Type.String(), Type.Union([Type.Number(), Type.String(), Type.Null()]), {
    description:
      'remaining, plan and used credits or tokens of the UTC day, and the day as the billing period (camelCase and snake_case): see docs/reference/firecrawl.md',
  }),
});

export const FcUsageHistoricalQuery = Type.Object(
  {
    byApiKey: Type.Optional(
      Type.Union([Type.Literal('true'), Type.Literal('false')], {
        description: 'Split each month by tenant (named in `apiKey`; keys are never shown).',
      }),
    ),
  },
  { additionalProperties: false },
);

const Period = (used: string) =>
  Type.Object({
    startDate: Type.Union([Type.String(), Type.Null()]),
    endDate: Type.Union([Type.String(), Type.Null()]),
    apiKey: Type.Optional(Type.String()),
    [used]: Type.Integer(),
  });

export const FcCreditHistoryReply = Type.Object({
  success: Type.Literal(true),
  periods: Type.Array(Period('creditsUsed')),
});

export const FcTokenHistoryReply = Type.Object({
  success: Type.Literal(true),
  periods: Type.Array(Period('tokensUsed')),
});
