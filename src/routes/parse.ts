import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { BadRequestError } from '../errors.js';
import { clientGone } from '../lib/client-gone.js';
import { Deadline } from '../lib/deadline.js';
import { validate } from '../lib/validate.js';
import { ErrorReply } from '../schemas/common.js';
import { FcScrapeReply } from '../schemas/firecrawl-pages.js';
import { FcScrapeOptions } from '../schemas/firecrawl.js';
import { ParseBody } from '../schemas/parse.js';
import { ScrapeReply } from '../schemas/scrape.js';
import { firecrawlDocument, noEffectFields, noEffectWarning } from '../services/firecrawl-options.js';
import { scrapeOptionsOf } from '../services/firecrawl-page-options.js';
import type { UploadedFile } from '../services/parse.js';

/** The seed's upload options: the page formats and selection (the `options` field, JSON). */
const UploadOptions = Type.Object(
  {
    formats: ParseBody.properties.formats,
    onlyMainContent: ParseBody.properties.onlyMainContent,
    includeTags: ParseBody.properties.includeTags,
    excludeTags: ParseBody.properties.excludeTags,
    maxDocumentPages: ParseBody.properties.maxDocumentPages,
    timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 300000, default: 30000 })),
  },
  { additionalProperties: false },
);

/** Firecrawl options that only mean something when a page is fetched: refused on an upload. */
const FETCH_ONLY = [
  'actions',
  'waitFor',
  'mobile',
  'headers',
  'location',
  'geolocation',
  'skipTlsVerification',
  'proxy',
  'maxAge',
  'storeInCache',
] as const;

/** Reads a multipart upload: one `file` part and an optional `options` field holding JSON. */
async function readUpload(req: FastifyRequest): Promise<{ file: UploadedFile; options: unknown }> {
  if (!req.isMultipart()) throw new BadRequestError('Send multipart/form-data with a `file` part');
  let file: UploadedFile | null = null;
  let options: unknown = {};
  for await (const part of req.parts()) {
    if (part.type === 'file') {
      if (part.fieldname !== 'file')
        throw new BadRequestError(`unknown file part '${part.fieldname}' (send it as 'file')`);
      file = {
        filename: part.filename || 'upload',
        contentType: part.mimetype,
        bytes: await part.toBuffer(),
      };
    } else if (part.fieldname === 'options') {
      try {
        options = JSON.parse(String(part.value));
      } catch {
        throw new BadRequestError('options: not valid JSON');
      }
    } else {
      throw new BadRequestError(`unknown field '${part.fieldname}' (send 'file' and 'options')`);
    }
  }
  if (!file) throw new BadRequestError("missing required field 'file'");
  return { file, options };
}

/**
 * Uploads (multipart: `file`, and `options` as JSON) through the page pipeline: the seed's
 * `POST /api/v1/parse` and Firecrawl's `POST /v2/parse`. The same service as the CLI's and MCP's parse.
 */
const route: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/api/v1/parse',
    {
      schema: {
        summary: 'Convert an uploaded file (PDF, Word, Excel, PowerPoint, HTML, text) to a page document',
        consumes: ['multipart/form-data'],
        response: { 200: ScrapeReply, '4xx': ErrorReply, '5xx': ErrorReply },
      },
    },
    async (req, reply) => {
      const { file, options } = await readUpload(req);
      const { timeout, ...wanted } = validate<{ timeout: number } & Record<string, unknown>>(
        UploadOptions,
        options,
      );
      const deadline = Deadline.after(timeout, clientGone(reply.raw));
      try {
        return { success: true as const, data: await app.services.parse(file, wanted, deadline) };
      } finally {
        deadline.dispose();
      }
    },
  );
  app.post(
    '/v2/parse',
    {
      schema: {
        tags: ['firecrawl-v2'],
        summary: 'Convert an uploaded file to a Firecrawl document',
        consumes: ['multipart/form-data'],
        response: { 200: FcScrapeReply, '4xx': ErrorReply, '5xx': ErrorReply },
      },
    },
    async (req, reply) => {
      const { file, options } = await readUpload(req);
      const { origin: _o, integration: _i, ...fields } = (options ?? {}) as Record<string, unknown>;
      // An upload is converted, not fetched: options about fetching a page would be silently ignored. (Checked
      // before validation, which fills in defaults such as `headers: {}`.)
      for (const field of FETCH_ONLY) {
        if (fields[field] !== undefined)
          throw new BadRequestError(`options.${field}: parse converts the uploaded file; nothing is fetched`);
      }
      const o = validate<FcScrapeOptions>(FcScrapeOptions, fields);
      const { page, extras } = scrapeOptionsOf(o, 'options.', app.services.pageCapabilities);
      if (extras?.changeTracking)
        throw new BadRequestError('options.formats: changeTracking needs a URL; an upload has none');
      const warning = noEffectWarning(noEffectFields(o));
      const deadline = Deadline.after(page.timeout ?? 30000, clientGone(reply.raw));
      try {
        const doc = await app.services.parse(file, page, deadline);
        const fields2 = extras
          ? await app.services.extraFields(doc, file.filename, extras, deadline)
          : undefined;
        return {
          success: true as const,
          data: firecrawlDocument(doc, file.filename, {
            fields: fields2,
            dropMarkdown: extras?.dropMarkdown,
          }),
          ...(warning ? { warning } : {}),
        };
      } finally {
        deadline.dispose();
      }
    },
  );
};
export default route;
