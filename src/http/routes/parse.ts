import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { clientGone } from '../../lib/client-gone.js';
import { Deadline } from '../../lib/deadline.js';
import { validate } from '../../lib/validate.js';
import { readUpload } from '../upload.js';
import { ErrorReply } from '../../schemas/common.js';
import { ParseBody } from '../../schemas/parse.js';
import { ScrapeReply } from '../../schemas/scrape.js';

/** The native API's upload options: the page formats and selection (the `options` field, JSON). */
const UploadOptions = Type.Object(
  {
    formats: ParseBody.properties.formats,
    onlyMainContent: ParseBody.properties.onlyMainContent,
    includeTags: ParseBody.properties.includeTags,
    excludeTags: ParseBody.properties.excludeTags,
    maxDocumentPages: ParseBody.properties.maxDocumentPages,
    documentLayout: ParseBody.properties.documentLayout,
    timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 300000, default: 30000 })),
  },
  { additionalProperties: false },
);

/**
 * Uploads (multipart: `file`, and `options` as JSON) through the page pipeline: the native API's
 * `POST /api/v1/parse`. The same service as the CLI's and MCP's parse, and Firecrawl's `/v2/parse`.
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
        return { success: true as const, data: await app.services.parse(file, wanted, deadline, req.caller) };
      } finally {
        deadline.dispose();
      }
    },
  );
};
export default route;
