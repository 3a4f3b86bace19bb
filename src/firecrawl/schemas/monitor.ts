import { Type } from 'typebox';
import type { Static } from 'typebox';

/**
 * Firecrawl's monitors (`/v2/monitor`) as @mendable/firecrawl-js 4.42 and firecrawl-mcp 3.26 send them. Targets
 * are checked field by field by the mapping (src/firecrawl/monitors/request.ts), which names what it refuses.
 * Answers hold only `success`, `error`, `data` and paging (firecrawl-mcp's output schemas).
 */

const Opt = Type.Optional;
const AnyObject = Type.Object({}, { additionalProperties: true });

/** What clients tag their requests with (no effect). */
const ClientTags = {
  origin: Opt(Type.String({ maxLength: 200 })),
  integration: Opt(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
};

const Schedule = Type.Object(
  {
    cron: Opt(Type.String({ minLength: 1, maxLength: 200 })),
    text: Opt(Type.String({ minLength: 1, maxLength: 200 })),
    timezone: Opt(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);

const Webhook = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2000 }),
    headers: Opt(
      Type.Record(Type.String({ maxLength: 256 }), Type.String({ maxLength: 8192 }), { maxProperties: 64 }),
    ),
    metadata: Opt(AnyObject),
    events: Opt(
      Type.Array(Type.Enum(['monitor.page', 'monitor.check.completed', 'page', 'check.completed']), {
        maxItems: 4,
      }),
    ),
  },
  { additionalProperties: false },
);

const Notification = Type.Object(
  {
    email: Opt(
      Type.Object(
        {
          enabled: Opt(Type.Boolean()),
          recipients: Opt(Type.Array(Type.String({ maxLength: 320 }), { maxItems: 50 })),
          includeDiffs: Opt(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const Fields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  schedule: Schedule,
  webhook: Opt(Webhook),
  notification: Opt(Notification),
  targets: Type.Array(AnyObject, { minItems: 1, maxItems: 20 }),
  retentionDays: Opt(Type.Integer({ minimum: 1, maximum: 365 })),
  goal: Opt(Type.String({ minLength: 1, maxLength: 2000 })),
  judgeEnabled: Opt(Type.Boolean()),
};

export const FcMonitorCreateBody = Type.Object(
  { ...Fields, status: Opt(Type.Enum(['active', 'paused'])), ...ClientTags },
  { additionalProperties: false },
);
export type FcMonitorCreateBody = Static<typeof FcMonitorCreateBody>;

export const FcMonitorUpdateBody = Type.Object(
  {
    name: Opt(Fields.name),
    status: Opt(Type.Enum(['active', 'paused'])),
    schedule: Opt(Schedule),
    webhook: Opt(Type.Union([Webhook, Type.Null()])),
    notification: Opt(Type.Union([Notification, Type.Null()])),
    targets: Opt(Fields.targets),
    retentionDays: Opt(Fields.retentionDays),
    goal: Opt(Type.Union([Fields.goal, Type.Null()])),
    judgeEnabled: Opt(Type.Boolean()),
    ...ClientTags,
  },
  { additionalProperties: false },
);
export type FcMonitorUpdateBody = Static<typeof FcMonitorUpdateBody>;

const Digits = Type.String({ pattern: '^[0-9]{1,7}$' });

export const FcMonitorListQuery = Type.Object(
  {
    limit: Opt(Digits),
    offset: Opt(Digits),
    tenant: Opt(
      Type.String({
        minLength: 1,
        maxLength: 63,
        description:
          "An operator key's choice of tenant (every tenant's without it); ignored for another key.",
      }),
    ),
  },
  { additionalProperties: false },
);

export const FcMonitorChecksQuery = Type.Object(
  {
    limit: Opt(Digits),
    offset: Opt(Digits),
    status: Opt(Type.Enum(['queued', 'running', 'completed', 'failed', 'partial', 'skipped_overlap'])),
  },
  { additionalProperties: false },
);

export const FcMonitorCheckQuery = Type.Object(
  {
    limit: Opt(Digits),
    skip: Opt(Digits),
    status: Opt(Type.Enum(['same', 'new', 'changed', 'removed', 'error'])),
  },
  { additionalProperties: false },
);

export const MonitorIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
export const CheckIdParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  checkId: Type.String({ minLength: 1, maxLength: 100 }),
});

export const FcMonitorReply = Type.Object({ success: Type.Literal(true), data: Type.Unknown() });
export const FcMonitorPagedReply = Type.Object({
  success: Type.Literal(true),
  data: Type.Unknown(),
  pagination: AnyObject,
  next: Opt(Type.String()),
});
