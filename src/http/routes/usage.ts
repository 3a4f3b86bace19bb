import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorReply } from '../../schemas/common.js';
import { UsageQuery, UsageReply } from '../../schemas/usage.js';
import { usageReport } from '../../operations/usage.js';

/** What tenants used per UTC day: the key's tenant's (an operator's: every tenant's, or the one `?tenant=` names). */
const route: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/api/v1/usage',
    {
      schema: {
        tags: ['operator'],
        summary: 'Pages, browser time, documents, LLM tokens and credits per tenant and UTC day',
        querystring: UsageQuery,
        response: { 200: UsageReply, '4xx': ErrorReply, '5xx': ErrorReply },
      },
    },
    async (req) => usageReport(app.services.usage, req.query, req.caller),
  );
};
export default route;
