import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { BadRequestError } from '../../errors.js';
import { readUpload } from '../../http/upload.js';
import { clientGone } from '../../lib/client-gone.js';
import { Deadline } from '../../lib/deadline.js';
import { validate } from '../../lib/validate.js';
import { firecrawlDocument, noEffectFields, noEffectWarning } from '../options.js';
import { scrapeOptionsOf } from '../page-options.js';
import { FcScrapeOptions } from '../schemas/jobs.js';
import { FcScrapeReply } from '../schemas/pages.js';
import { fcErrors } from './job-routes.js';

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
  'minAge',
  'lockdown',
  'storeInCache',
  'profile',
] as const;

/** Firecrawl's `POST /v2/parse`: an upload through the page pipeline, answered as Firecrawl's document. */
const route: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v2/parse',
    {
      schema: {
        tags: ['firecrawl-v2'],
        summary: 'Convert an uploaded file to a Firecrawl document',
        consumes: ['multipart/form-data'],
        response: { 200: FcScrapeReply, ...fcErrors },
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
      const { page, extras } = scrapeOptionsOf(o, 'options.', app.firecrawl.capabilities);
      if (extras?.changeTracking)
        throw new BadRequestError('options.formats: changeTracking needs a URL; an upload has none');
      const warning = noEffectWarning(noEffectFields(o));
      const deadline = Deadline.after(page.timeout ?? 30000, clientGone(reply.raw));
      try {
        const doc = await app.firecrawl.services.parse(file, page, deadline, req.caller);
        const fields2 = extras
          ? await app.firecrawl.extraFields(doc, file.filename, extras, deadline, req.tenant)
          : undefined;
        return {
          success: true as const,
          data: firecrawlDocument(doc, file.filename, {
            fields: fields2,
            dropMarkdown: extras?.dropMarkdown,
            dropRawHtml: extras?.dropRawHtml,
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
