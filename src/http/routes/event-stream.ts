import { once } from 'node:events';
import type { FastifyReply } from 'fastify';
import { toAppError } from '../../errors.js';

const HEARTBEAT_MS = 15_000;

/**
 * Streams events as Server-Sent Events (`data: <json>` lines). The first event is awaited before the
 * headers go out, so input errors still become ordinary JSON error responses. Honours backpressure
 * (waits for 'drain'), sends a comment heartbeat so proxies keep long streams open, and stops the
 * producer when the client goes away.
 */
export async function writeEventStream(
  reply: FastifyReply,
  events: AsyncGenerator<unknown>,
  gone: AbortSignal,
): Promise<void> {
  const first = await events.next();
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), HEARTBEAT_MS);
  try {
    let next = first;
    while (!next.done && !gone.aborted) {
      if (!res.write(`data: ${JSON.stringify(next.value)}\n\n`)) {
        await once(res, 'drain', { signal: gone }).catch(() => undefined);
      }
      next = await events.next();
    }
  } catch (err) {
    if (!gone.aborted) {
      // The same mapping as the error handler: internal messages never reach the client.
      const e = toAppError(err);
      if (e.status >= 500) reply.log.error({ err }, e.code);
      const error = e.code === 'INTERNAL' ? 'Internal error' : e.message;
      res.write(`data: ${JSON.stringify({ type: 'error', url: '', code: e.code, error })}\n\n`);
    }
  } finally {
    clearInterval(heartbeat);
    await events.return(undefined);
    res.end();
  }
}
