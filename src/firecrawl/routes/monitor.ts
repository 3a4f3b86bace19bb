import { listedOwner, ownerOf } from '../../tenants/tenant.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type {
  CheckStatus,
  MonitorRecord,
  PageStatus,
} from '../../jobs/stores/monitor-state/monitor-store.js';
import type { MonitorConfig } from '../../monitors/monitor-config.js';
import { monitorInputOf, updatedInput } from '../monitors/request.js';
import { checkView, monitorView, nextPageUrl, pageView, pagination } from '../monitors/views.js';
import {
  CheckIdParams,
  FcMonitorCheckQuery,
  FcMonitorChecksQuery,
  FcMonitorCreateBody,
  FcMonitorListQuery,
  FcMonitorPagedReply,
  FcMonitorReply,
  FcMonitorUpdateBody,
  MonitorIdParams,
} from '../schemas/monitor.js';
import { fcErrors } from './job-routes.js';

const LIST_DEFAULT = 20;
const LIST_MAX = 100;
const PAGES_DEFAULT = 100;
const PAGES_MAX = 1000;

const numberOr = (value: string | undefined, fallback: number, max: number): number =>
  value === undefined ? fallback : Math.min(max, Number(value));

const inputOf = (m: MonitorRecord) => ({
  name: m.name,
  status: m.status,
  cron: m.cron,
  timezone: m.timezone,
  retentionDays: m.retentionDays,
  config: m.config as unknown as MonitorConfig,
});

/**
 * Firecrawl's monitors: scheduled checks that report how each page changed since the last one. Each key
 * reaches its tenant's monitors only (another tenant's is a 404, as an unknown id); an operator key, every one.
 */
const route: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['firecrawl-v2'];
  const fc = app.firecrawl;
  const reply = { 200: FcMonitorReply, ...fcErrors };
  const paged = { 200: FcMonitorPagedReply, ...fcErrors };
  app.post(
    '/v2/monitor',
    { schema: { tags, summary: 'Create a monitor', body: FcMonitorCreateBody, response: reply } },
    async (req) => ({
      success: true as const,
      data: monitorView(await fc.monitors.create(await monitorInputOf(req.body, fc, req.tenant), req.tenant)),
    }),
  );
  app.get(
    '/v2/monitor',
    { schema: { tags, summary: 'Monitors, oldest first', querystring: FcMonitorListQuery, response: paged } },
    async (req) => {
      const limit = numberOr(req.query.limit, LIST_DEFAULT, LIST_MAX);
      const offset = numberOr(req.query.offset, 0, Number.MAX_SAFE_INTEGER);
      const owner = listedOwner(req.caller, req.query.tenant) ?? null;
      const { monitors, total } = await fc.monitors.list(owner, offset, limit);
      return {
        success: true as const,
        data: monitors.map(monitorView),
        pagination: pagination(offset, limit, total),
      };
    },
  );
  app.get(
    '/v2/monitor/:id',
    { schema: { tags, summary: 'A monitor', params: MonitorIdParams, response: reply } },
    async (req) => ({
      success: true as const,
      data: monitorView(await fc.monitors.get(req.params.id, req.caller)),
    }),
  );
  app.patch(
    '/v2/monitor/:id',
    {
      schema: {
        tags,
        summary: 'Change a monitor (status "paused" stops its checks)',
        params: MonitorIdParams,
        body: FcMonitorUpdateBody,
        response: reply,
      },
    },
    async (req) => {
      const current = await fc.monitors.get(req.params.id, req.caller);
      const next = await updatedInput(inputOf(current), req.body, fc, ownerOf(current));
      const updated = await fc.monitors.update(req.params.id, req.caller, (m) => ({
        ...m,
        name: next.name,
        status: next.status,
        cron: next.cron,
        timezone: next.timezone,
        retentionDays: next.retentionDays,
        config: next.config as unknown as Record<string, unknown>,
      }));
      return { success: true as const, data: monitorView(updated) };
    },
  );
  app.delete(
    '/v2/monitor/:id',
    {
      schema: { tags, summary: 'Delete a monitor with its checks', params: MonitorIdParams, response: reply },
    },
    async (req) => {
      await fc.monitors.delete(req.params.id, req.caller);
      return { success: true as const, data: { id: req.params.id, deleted: true } };
    },
  );
  app.post(
    '/v2/monitor/:id/run',
    { schema: { tags, summary: 'Run a check now', params: MonitorIdParams, response: reply } },
    async (req) => ({
      success: true as const,
      data: checkView(await fc.monitors.run(req.params.id, req.caller)),
    }),
  );
  app.get(
    '/v2/monitor/:id/checks',
    {
      schema: {
        tags,
        summary: "A monitor's checks, newest first",
        params: MonitorIdParams,
        querystring: FcMonitorChecksQuery,
        response: paged,
      },
    },
    async (req) => {
      const limit = numberOr(req.query.limit, LIST_DEFAULT, LIST_MAX);
      const offset = numberOr(req.query.offset, 0, Number.MAX_SAFE_INTEGER);
      const { checks, total } = await fc.monitors.checks(
        req.params.id,
        req.caller,
        offset,
        limit,
        req.query.status as CheckStatus | undefined,
      );
      return {
        success: true as const,
        data: checks.map(checkView),
        pagination: pagination(offset, limit, total),
      };
    },
  );
  app.get(
    '/v2/monitor/:id/checks/:checkId',
    {
      schema: {
        tags,
        summary: 'A check with its pages: diffs and judgments',
        params: CheckIdParams,
        querystring: FcMonitorCheckQuery,
        response: paged,
      },
    },
    async (req) => {
      const { id, checkId } = req.params;
      const check = await fc.monitors.check(id, checkId, req.caller);
      const limit = numberOr(req.query.limit, PAGES_DEFAULT, PAGES_MAX);
      const skip = numberOr(req.query.skip, 0, Number.MAX_SAFE_INTEGER);
      const status = req.query.status as PageStatus | undefined;
      const { pages, total } = await fc.monitors.pages(checkId, skip, limit, status);
      const next = nextPageUrl(req, id, checkId, skip, limit, total, status);
      return {
        success: true as const,
        data: { ...checkView(check), pages: pages.map(pageView), next: next ?? null },
        pagination: { skip, limit, total },
        ...(next ? { next } : {}),
      };
    },
  );
};

export default route;
