import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toAppError } from '../errors.js';
import { validate } from '../lib/validate.js';
import type { Tool } from '../operations/services.js';
import type { Caller } from '../tenants/tenant.js';

/** A result longer than `max` characters is cut, with a note on how to ask for less or page through it. */
export function withinBudget(text: string, max: number): string {
  if (text.length <= max) return text;
  return (
    `${text.slice(0, max)}\n\n[Cut at ${max} of ${text.length} characters (MCP_MAX_CHARS). Ask for less: ` +
    'fewer formats, onlyMainContent, a smaller limit; read a job page by page with check_crawl_status skip/limit.]'
  );
}

/**
 * The MCP server: one tool per operation (the services' tools), with the HTTP routes' schemas as input schemas
 * and the same services behind them. A failure is a tool error (`isError`) carrying the service's code and message,
 * never a protocol error, so an agent reads it and can correct its call.
 */
export function createMcpServer(operations: Tool[], maxChars: number, caller: Caller): Server {
  const server = new Server({ name: 'pagewright', version: '0.1.0' }, { capabilities: { tools: {} } });
  const tools = operations.map((o) => ({
    name: o.name,
    description: o.description,
    // TypeBox schemas are JSON Schema; the round trip drops TypeBox's own symbols.
    inputSchema: JSON.parse(JSON.stringify(o.schema)) as { type: 'object' },
  }));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const operation = operations.find((o) => o.name === request.params.name);
    if (!operation) {
      return { isError: true, content: [{ type: 'text', text: `Unknown tool '${request.params.name}'` }] };
    }
    try {
      const input = validate<never>(operation.schema, structuredClone(request.params.arguments ?? {}));
      const result = await operation.run(input, extra.signal, caller);
      return { content: [{ type: 'text', text: withinBudget(JSON.stringify(result, null, 2), maxChars) }] };
    } catch (err) {
      const e = toAppError(err);
      return { isError: true, content: [{ type: 'text', text: `${e.code}: ${e.message}` }] };
    }
  });
  return server;
}
