import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  FcCreditHistoryReply,
  FcTokenHistoryReply,
  FcUsageHistoricalQuery,
  FcUsageReply,
} from '../schemas/usage.js';
import { fcUsage, fcUsageHistorical } from '../usage.js';
import type { Api } from '../jobs.js';
import { fcErrors } from './job-routes.js';
import { NotFoundError } from '../../errors.js';

/**
 * Firecrawl's team usage routes, v2 and v1: the caller's tenant's usage of the day and by month. Its activity
 * log (`/v2/team/activity`, every call of the last 24 h) is refused by name: no SDK calls it, and this server
 * keeps no log of one-call operations (scrape, map, search) to list.
 */
const route: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/v2/team/activity', { schema: { hide: true, response: fcErrors } }, async () => {
    throw new NotFoundError(
      'GET /v2/team/activity is not served by this server: it keeps no log of API calls to list ' +
        '(see docs/reference/firecrawl.md)',
    );
  });
  for (const api of ['v2', 'v1'] as Api[]) {
    const tags = [`firecrawl-${api}`];
    for (const [path, unit] of [
      ['credit-usage', 'Credits'],
      ['token-usage', 'Tokens'],
    ] as const) {
      const what = unit === 'Credits' ? 'Credits (pages)' : "Tokens of the server's LLM";
      app.get(
        `/${api}/team/${path}`,
        {
          schema: {
            tags,
            summary: `${what} used today (UTC) and left of the tenant's daily limit`,
            response: { 200: FcUsageReply, ...fcErrors },
          },
        },
        async (req) => fcUsage(app.firecrawl, unit, req.caller),
      );
      app.get(
        `/${api}/team/${path}/historical`,
        {
          schema: {
            tags,
            summary: `${what} used per calendar month (UTC)`,
            querystring: FcUsageHistoricalQuery,
            response: { 200: unit === 'Credits' ? FcCreditHistoryReply : FcTokenHistoryReply, ...fcErrors },
          },
        },
        async (req) => fcUsageHistorical(app.firecrawl, unit, req.caller, req.query.byApiKey === 'true'),
      );
    }
  }
};
export default route;
