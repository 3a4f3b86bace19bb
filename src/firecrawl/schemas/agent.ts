import { Type } from 'typebox';
import type { Static } from 'typebox';
import { FcWebhook } from './jobs.js';
import { TenantFilter } from '../../schemas/operator.js';

/**
 * Firecrawl's research agent (`/v2/agent`), as @mendable/firecrawl-js 4.42 and firecrawl-mcp 3.26 send and read
 * it. Answers carry only the keys firecrawl-mcp's output schemas allow (its client rejects others).
 */

const Opt = Type.Optional;
const Str = (max: number) => Type.String({ maxLength: max });
const AnyObject = Type.Object({}, { additionalProperties: true });

export const FcAgentBody = Type.Object(
  {
    prompt: Type.String({ minLength: 1, maxLength: 10000 }),
    urls: Opt(Type.Array(Type.String({ minLength: 1, maxLength: 8192 }), { maxItems: 100 })),
    schema: Opt(AnyObject),
    maxCredits: Opt(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    strictConstrainToURLs: Opt(Type.Boolean()),
    model: Opt(Str(100)),
    effort: Opt(Type.Enum(['low', 'medium', 'high'])),
    mode: Opt(Type.Enum(['extract', 'chat'])),
    threadId: Opt(Type.String({ minLength: 1, maxLength: 100 })),
    webhook: Opt(FcWebhook),
    exchange: Opt(AnyObject),
    threatProtection: Opt(Type.Unknown()),
    auditMetadata: Opt(Type.Unknown()),
    origin: Opt(Str(200)),
    integration: Opt(Type.Union([Str(200), Type.Null()])),
  },
  { additionalProperties: false },
);
export type FcAgentBody = Static<typeof FcAgentBody>;

export const FcAgentStarted = Type.Object({
  success: Type.Literal(true),
  id: Type.String(),
  status: Type.String(),
  threadId: Type.String(),
  threadTurn: Type.Integer(),
});

export const FcAgentStatus = Type.Object({
  success: Type.Literal(true),
  id: Type.String(),
  status: Type.Enum(['processing', 'completed', 'failed']),
  error: Opt(Type.String()),
  data: Opt(Type.Unknown()),
  progress: Opt(AnyObject),
  model: Type.String(),
  mode: Type.String(),
  expiresAt: Type.String(),
  creditsUsed: Type.Integer(),
  sources: Opt(Type.Record(Type.String(), Type.Array(Type.String()))),
  threadId: Type.String(),
  threadTurn: Type.Integer(),
  message: Opt(Type.String()),
  exchange: Opt(AnyObject),
});

export const FcAgentList = Type.Object({
  success: Type.Literal(true),
  agents: Type.Array(AnyObject),
  next: Opt(Type.String()),
});

export const FcAgentListQuery = Type.Object(
  {
    before: Opt(Type.String({ pattern: '^[0-9]{1,16}$', description: 'Runs created before this time (ms)' })),
    tenant: Opt(TenantFilter),
  },
  { additionalProperties: false },
);

export const FcAgentThreadQuery = Type.Object(
  { includeData: Opt(Type.Enum(['true', 'false'])) },
  { additionalProperties: false },
);

export const FcAgentTraceQuery = Type.Object(
  { liveView: Opt(Type.Enum(['true', 'false'])) },
  { additionalProperties: false },
);

export const FcAgentThread = Type.Object({ success: Type.Literal(true), thread: AnyObject });

export const FcAgentTrace = Type.Object({
  success: Type.Literal(true),
  id: Type.String(),
  events: Type.Array(AnyObject),
  creditsUsed: Type.Integer(),
  activeBrowserSessions: Opt(Type.Array(AnyObject)),
});

export const ThreadIdParams = Type.Object({ threadId: Type.String({ minLength: 1, maxLength: 100 }) });
