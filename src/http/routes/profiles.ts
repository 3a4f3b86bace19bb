import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { deleteProfile, showProfile } from '../../operations/profiles.js';
import { ErrorReply } from '../../schemas/common.js';
import { ProfileDeletedReply, ProfileListReply, ProfileParams, ProfileReply } from '../../schemas/profile.js';

/** The stored browser profiles (`profile: {name}` on scrape, crawl, batch): listed and deleted, never shown whole. */
const route: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['profiles'];
  const errors = { '4xx': ErrorReply, '5xx': ErrorReply };
  app.get(
    '/api/v1/profiles',
    {
      schema: {
        tags,
        summary: 'Stored profiles: names, dates, cookie counts and domains',
        response: { 200: ProfileListReply, ...errors },
      },
    },
    async () => ({ success: true as const, profiles: await app.services.profiles.list() }),
  );
  app.get(
    '/api/v1/profiles/:name',
    {
      schema: {
        tags,
        summary: "One profile's metadata (never a cookie's value)",
        params: ProfileParams,
        response: { 200: ProfileReply, ...errors },
      },
    },
    async (req) => ({
      success: true as const,
      profile: await showProfile(app.services.profiles, req.params.name),
    }),
  );
  app.delete(
    '/api/v1/profiles/:name',
    {
      schema: {
        tags,
        summary: 'Delete a profile',
        params: ProfileParams,
        response: { 200: ProfileDeletedReply, ...errors },
      },
    },
    async (req) => {
      await deleteProfile(app.services.profiles, req.params.name);
      return { success: true as const };
    },
  );
};
export default route;
