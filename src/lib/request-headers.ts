import { BadRequestError } from '../errors.js';

/** Headers a caller may not set: they control framing, routing or the connection itself. */
const FORBIDDEN = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-authorization',
  'proxy-connection',
  'accept-encoding',
]);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const SAFE_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Validates caller-supplied headers for the target request (names, values, forbidden names). */
export function checkCallerHeaders(
  headers: Record<string, string> | undefined,
  field = 'headers',
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase();
    if (!TOKEN.test(name))
      throw new BadRequestError(`${field}: '${name.slice(0, 100)}' is not a valid header name`);
    if (!SAFE_VALUE.test(value)) {
      throw new BadRequestError(
        `${field}.${name}: header value contains control characters (CR/LF are not allowed)`,
      );
    }
    if (FORBIDDEN.has(lower) || lower.startsWith('proxy-')) {
      throw new BadRequestError(`${field}.${name}: this header cannot be set by callers`);
    }
    out[lower] = value;
  }
  return out;
}
