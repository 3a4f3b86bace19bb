import { Type } from 'typebox';
import type { Static } from 'typebox';
import { TenantFilter } from '../../schemas/operator.js';
import { ProfileOption } from '../../schemas/profile.js';

/** Firecrawl's browser session shapes (`/v2/browser`, as @mendable/firecrawl-js 4.x sends and reads them). */

const Opt = Type.Optional;

export const FcBrowserCreateBody = Type.Object(
  {
    ttl: Opt(
      Type.Integer({
        minimum: 30,
        maximum: 3600,
        default: 600,
        description: 'Seconds the session lives at most.',
      }),
    ),
    activityTtl: Opt(
      Type.Integer({
        minimum: 10,
        maximum: 3600,
        default: 300,
        description: 'Seconds without a CDP message or command before the session ends.',
      }),
    ),
    streamWebView: Opt(
      Type.Boolean({ description: 'Accepted; the live view (`liveViewUrl`) is always served.' }),
    ),
    profile: Opt(ProfileOption),
    integration: Opt(Type.String({ maxLength: 100 })),
    origin: Opt(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type FcBrowserCreateBody = Static<typeof FcBrowserCreateBody>;

export const FcBrowserParams = Type.Object(
  {
    id: Type.String({
      pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
      description: 'The session id (a UUID).',
    }),
  },
  { additionalProperties: false },
);

export const FcBrowserLiveQuery = Type.Object(
  {
    interactive: Opt(
      Type.Union([Type.Literal('true'), Type.Literal('false')], {
        description: "`true`: forward the viewer's clicks, scrolls and keys to the page.",
      }),
    ),
  },
  { additionalProperties: false },
);

export const FcBrowserListQuery = Type.Object(
  {
    status: Opt(Type.Union([Type.Literal('active'), Type.Literal('destroyed')])),
    tenant: Opt(TenantFilter),
  },
  { additionalProperties: false },
);

const LiveViewUrl = Type.String({
  description: "The web app's page showing the session live; it asks for the API key when the tab has none.",
});
const InteractiveLiveViewUrl = Type.String({
  description: 'The same page forwarding clicks, scrolls and keys to the session.',
});

export const FcBrowserCreateReply = Type.Object({
  success: Type.Literal(true),
  id: Type.String(),
  cdpUrl: Type.String({
    description: 'WebSocket of the CDP proxy; send the API key in `Authorization: Bearer <key>`.',
  }),
  liveViewUrl: Opt(LiveViewUrl),
  interactiveLiveViewUrl: Opt(InteractiveLiveViewUrl),
  expiresAt: Type.String(),
});

export const FcBrowserSession = Type.Object({
  id: Type.String(),
  status: Type.String({ description: '`active` or `destroyed`.' }),
  cdpUrl: Type.String(),
  liveViewUrl: LiveViewUrl,
  interactiveLiveViewUrl: InteractiveLiveViewUrl,
  streamWebView: Type.Boolean(),
  createdAt: Type.String(),
  lastActivity: Type.String(),
  expiresAt: Type.String(),
  ttl: Type.Integer(),
  activityTtl: Type.Integer(),
  holder: Type.String({ description: 'The process that holds the browser: `host:pid:life`.' }),
  tenant: Opt(
    Type.String({ description: 'The tenant that started it (an operator key lists every tenant).' }),
  ),
  endedAt: Opt(Type.String()),
  endCause: Opt(
    Type.String({
      description:
        '`ttl`, `idle`, `deleted`, `error`, `shutdown`, `crashed` (its browser or its process died) or `memory`.',
    }),
  ),
});

export const FcBrowserListReply = Type.Object({
  success: Type.Literal(true),
  sessions: Type.Array(FcBrowserSession),
});

export const FcBrowserDeleteReply = Type.Object({
  success: Type.Literal(true),
  status: Type.Literal('destroyed'),
  sessionDurationMs: Type.Integer(),
  creditsBilled: Type.Integer(),
});
