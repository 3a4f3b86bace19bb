import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { CrawlError, CrawlPage } from '../../schemas/crawl.js';
import type { CrawlEvent } from '../../schemas/crawl.js';

/**
 * The native crawl's answer (`{"success":true,"data":[...],"errors":[...]}`) written as the crawl runs: each
 * page is serialized by the schema's own serializer (the bytes Fastify would write for the whole reply) and
 * sent as it comes, with backpressure from the socket, so memory holds a few pages whatever `limit` is, never
 * the whole answer. The first event is awaited before the status goes out, so input errors are still ordinary
 * JSON error answers; a failure after that ends the connection without closing the JSON, never as a valid
 * but partial answer.
 */
export async function sendCrawlAnswer(
  reply: FastifyReply,
  events: AsyncGenerator<CrawlEvent>,
): Promise<FastifyReply> {
  const first = await events.next();
  const page = reply.compileSerializationSchema(CrawlPage as unknown as Record<string, unknown>);
  const error = reply.compileSerializationSchema(CrawlError as unknown as Record<string, unknown>);
  async function* body(): AsyncGenerator<string> {
    const errors: string[] = [];
    let pages = 0;
    try {
      yield '{"success":true,"data":[';
      for (let next = first; !next.done; next = await events.next()) {
        const event = next.value;
        if (event.type === 'document') yield (pages++ === 0 ? '' : ',') + page(event.data);
        else if (event.type === 'error')
          errors.push(
            error({ url: event.url, code: event.code, error: event.error, attempts: event.attempts }),
          );
      }
      yield `],"errors":[${errors.join(',')}]}`;
    } finally {
      await events.return(undefined);
    }
  }
  return reply.type('application/json; charset=utf-8').send(Readable.from(body(), { objectMode: false }));
}
