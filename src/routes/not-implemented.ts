import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { NotImplementedError } from '../errors.js';
import { ErrorReply } from '../schemas/common.js';

/** Operations of the spec that this build does not serve yet: a clear 501 instead of a bare 404. */
const PENDING = ['/api/v1/search', '/api/v1/llmstxt'];

const route: FastifyPluginAsyncTypebox = async (app) => {
  for (const path of PENDING) {
    const schema = {
      summary: `Not implemented yet: always 501 (see the README)`,
      response: { 501: ErrorReply },
    };
    app.post(path, { schema }, async () => {
      throw new NotImplementedError(`POST ${path} is not implemented in this version yet (see the README)`);
    });
  }
};
export default route;
