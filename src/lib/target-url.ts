import { BadRequestError } from '../errors.js';

/** Parses a caller-supplied target URL; anything but an absolute http(s) URL is a 400 naming the field. */
export function parseTargetUrl(raw: string, field = 'url'): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new BadRequestError(`${field} must be an absolute http or https URL, got '${raw.slice(0, 200)}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new BadRequestError(`${field} scheme '${url.protocol}' is not supported: use http or https`);
  }
  if (url.username || url.password) {
    throw new BadRequestError(`${field} must not contain credentials; send an Authorization header instead`);
  }
  if (!url.hostname) throw new BadRequestError(`${field} has no host`);
  return url;
}
