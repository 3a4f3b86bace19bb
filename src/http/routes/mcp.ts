import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { MethodNotAllowedError } from '../../errors.js';
import { createMcpServer } from '../../interfaces/mcp.js';

/**
 * MCP over Streamable HTTP at /mcp (behind API_KEYS like every route), stateless: each POST is answered by a
 * server made for it, so any API process of a fleet can answer any call. GET and DELETE (sessions, server-sent
 * notifications) are not offered: 405.
 */
const route: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/mcp', { schema: { hide: true } }, async (req, reply) => {
    const server = createMcpServer(app.services.tools, app.mcpMaxChars, req.caller);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req.raw, reply.raw, req.body);
  });
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/mcp',
      schema: { hide: true },
      handler: async (_req, reply) => {
        const e = new MethodNotAllowedError('MCP here is stateless: POST /mcp');
        return reply
          .code(e.status)
          .header('allow', 'POST')
          .send({ success: false, code: e.code, error: e.message });
      },
    });
  }
};
export default route;
