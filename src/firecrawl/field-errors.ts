import { BadRequestError } from '../errors.js';
import type { AppError } from '../errors.js';

/** The kinds of failed check Firecrawl answers as a bare "Bad Request" (the specifics are in `details`). */
const BARE = new Set(['invalid_type', 'invalid_value', 'invalid_union']);

/**
 * An error as Firecrawl answers it: `{success: false, code, error}`, and for a request that failed a check by
 * field, `details: [{code, path, message}]` as Firecrawl's zod issues are. `error` then follows Firecrawl: the
 * check's own message for a check across fields (`custom`), "Bad Request" for a wrong type, value or union
 * member; other failures (a range, a length, a pattern, an unknown field) keep this server's sentence, which
 * names the field.
 */
export function firecrawlErrorBody(e: AppError): Record<string, unknown> {
  const details = e instanceof BadRequestError ? e.details : null;
  if (!details || details.length === 0) return { success: false, code: e.code, error: e.message };
  const first = details[0]!;
  const error = first.code === 'custom' ? first.message : BARE.has(first.code) ? 'Bad Request' : e.message;
  return { success: false, code: e.code, error, details };
}

/**
 * A 400 for one field, with where it is (`path` below `prefix`, such as `scrapeOptions.`) and the kind of
 * check for Firecrawl's `details`; `message` is what the native surface and the `details` entry say.
 */
export function refuseAt(prefix: string, path: (string | number)[], code: string, message: string): never {
  const full = [...prefix.split('.').filter((part) => part !== ''), ...path];
  throw new BadRequestError(message, { details: [{ code, path: full, message }] });
}
