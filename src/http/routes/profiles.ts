import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { deleteProfile, listProfiles, showProfile } from '../../operations/profiles.js';
import { ErrorReply } from '../../schemas/common.js';
import {
  ProfileDeletedReply,
  ProfileListReply,
  ProfileParams,
  ProfileQuery,
  ProfileReply,
} from '../../schemas/profile.js';

/**
 * The stored browser profiles (`profile: {name}` on scrape, crawl, batch): listed and deleted, never shown
 * whole; each key sees its tenant's, an operator key every tenant's.
 */
const route: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['profiles'];
  const errors = { '4xx': ErrorReply, '5xx': ErrorReply };
  app.get(
    '/api/v1/profiles',
    {
      schema: {
        tags,
        summary: 'Stored profiles: names, dates, cookie counts and domains',
        querystring: ProfileQuery,
        response: { 200: ProfileListReply, ...errors },
      },
    },
    async (req) => ({
      success: true as const,
      profiles: await listProfiles(app.services.profiles, req.caller, req.query.tenant),
    }),
  );
  app.get(
    '/api/v1/profiles/:name',
    {
      schema: {
        tags,
        summary: "One profile's metadata (never a cookie's value)",
        params: ProfileParams,
        querystring: ProfileQuery,
        response: { 200: ProfileReply, ...errors },
      },
    },
    async (req) => ({
      success: true as const,
      profile: await showProfile(app.services.profiles, req.params.name, req.caller, req.query.tenant),
    }),
  );
  app.delete(
    '/api/v1/profiles/:name',
    {
      schema: {
        tags,
        summary: 'Delete a profile',
        params: ProfileParams,
        querystring: ProfileQuery,
        response: { 200: ProfileDeletedReply, ...errors },
      },
    },
    async (req) => {
      await deleteProfile(app.services.profiles, req.params.name, req.caller, req.query.tenant);
      return { success: true as const };
    },
  );
};
export default route;
