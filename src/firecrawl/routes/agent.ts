import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { agentStatus, agentThread, agentTrace, cancelAgent, listAgents, startAgent } from '../agent.js';
import {
  FcAgentBody,
  FcAgentList,
  FcAgentListQuery,
  FcAgentStarted,
  FcAgentStatus,
  FcAgentThread,
  FcAgentThreadQuery,
  FcAgentTrace,
  FcAgentTraceQuery,
  ThreadIdParams,
} from '../schemas/agent.js';
import { JobIdParams } from '../schemas/jobs.js';
import { fcErrors } from './job-routes.js';

/** Firecrawl's research agent: runs on the server LLM with this server's operations as its tools. */
const route: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['firecrawl-v2'];
  app.post(
    '/v2/agent',
    {
      schema: {
        tags,
        summary: 'Start a research agent run (or a follow-up on a thread)',
        body: FcAgentBody,
        response: { 200: FcAgentStarted, ...fcErrors },
      },
    },
    async (req) => startAgent(app.firecrawl, req.body, req.caller),
  );
  app.get(
    '/v2/agent',
    {
      schema: {
        tags,
        summary: "Agent runs, newest first: the key's tenant's (an operator's: every tenant's)",
        querystring: FcAgentListQuery,
        response: { 200: FcAgentList, ...fcErrors },
      },
    },
    async (req) => {
      const { before, tenant } = req.query;
      const query = { ...(before !== undefined ? { before: Number(before) } : {}), tenant };
      return listAgents(app.firecrawl, query, req, req.caller);
    },
  );
  app.get(
    '/v2/agent/threads/:threadId',
    {
      schema: {
        tags,
        summary: "A thread's runs",
        params: ThreadIdParams,
        querystring: FcAgentThreadQuery,
        response: { 200: FcAgentThread, ...fcErrors },
      },
    },
    async (req) =>
      agentThread(app.firecrawl, req.params.threadId, req.query.includeData === 'true', req.caller),
  );
  app.get(
    '/v2/agent/:id',
    {
      schema: {
        tags,
        summary: "An agent run's status and result",
        params: JobIdParams,
        response: { 200: FcAgentStatus, ...fcErrors },
      },
    },
    async (req) => agentStatus(app.firecrawl, req.params.id, req.caller),
  );
  app.get(
    '/v2/agent/:id/trace',
    {
      schema: {
        tags,
        summary: "An agent run's events: each tool call with its arguments, duration and outcome",
        params: JobIdParams,
        querystring: FcAgentTraceQuery,
        response: { 200: FcAgentTrace, ...fcErrors },
      },
    },
    async (req) => agentTrace(app.firecrawl, req.params.id, req.caller, req.query.liveView === 'true'),
  );
  app.delete(
    '/v2/agent/:id',
    {
      schema: {
        tags,
        summary: 'Cancel an agent run',
        params: JobIdParams,
        response: { 200: Type.Object({ success: Type.Literal(true) }), ...fcErrors },
      },
    },
    async (req) => cancelAgent(app.firecrawl, req.params.id, req.caller),
  );
};

export default route;
