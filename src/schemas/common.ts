import { Type } from 'typebox';
import type { Static } from 'typebox';

export const ErrorReply = Type.Object(
  {
    success: Type.Literal(false),
    code: Type.String({ description: 'Stable error code (see docs/reference/errors.md).' }),
    error: Type.String({ description: 'Human-readable description; names the offending field.' }),
  },
  { description: 'A failure of the whole request.' },
);

export const TargetUrl = Type.String({
  minLength: 1,
  maxLength: 8192,
  description: 'Absolute http or https URL.',
});

export const FormatName = Type.Enum(
  ['markdown', 'html', 'rawHtml', 'links', 'images', 'screenshot', 'screenshot@fullPage', 'branding'],
  {
    description:
      'Output format (`screenshot@fullPage`: the whole page, not the viewport; `branding`: colours, fonts, buttons and logo from computed styles; both browser only).',
  },
);
export type FormatName = Static<typeof FormatName>;

export const Formats = Type.Array(FormatName, {
  default: ['markdown'],
  maxItems: 8,
  description: 'Output formats to include in the page document.',
});

export const EngineName = Type.Enum(['auto', 'http', 'browser'], {
  default: 'auto',
  description:
    'Fetch engine: plain HTTP, headless browser, or automatic choice (the browser for a client-side rendered page, and to pass an anti-bot challenge once per host of a job).',
});

export const TimeoutMs = Type.Integer({
  minimum: 1,
  maximum: 300000,
  default: 30000,
  description: 'Total budget in milliseconds.',
});

export const RequestHeaders = Type.Record(Type.String({ maxLength: 256 }), Type.String({ maxLength: 8192 }), {
  default: {},
  maxProperties: 64,
  description: 'Extra HTTP headers sent to the target.',
});

/** Client identification sent by Firecrawl SDKs (e.g. "js-sdk@1.29.3"); accepted and ignored. */
export const ClientTags = {
  origin: Type.Optional(
    Type.String({ maxLength: 200, description: 'Client identification (Firecrawl SDKs send it); ignored.' }),
  ),
  integration: Type.Optional(
    Type.String({ maxLength: 200, description: 'Client integration name (Firecrawl SDKs); ignored.' }),
  ),
};
