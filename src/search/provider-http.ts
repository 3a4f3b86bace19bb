import { request } from 'undici';
import type { Deadline } from '../lib/deadline.js';
import type { ProxyRoute } from '../lib/proxy-route.js';
import { SearchProviderError } from '../errors.js';

/**
 * GETs a provider URL within the deadline, through `via` (PROXY_ALL's route) when given; any failure becomes a
 * SearchProviderError naming the provider.
 */
export async function getFromProvider(
  provider: string,
  url: URL,
  headers: Record<string, string>,
  deadline: Deadline,
  via: ProxyRoute | null = null,
): Promise<string> {
  let response;
  try {
    const options = {
      method: 'GET' as const,
      headers: { 'user-agent': 'Mozilla/5.0 (compatible; Pagewright/0.1)', ...headers },
      signal: deadline.signal,
      headersTimeout: Math.max(1, deadline.remainingMs()),
      bodyTimeout: Math.max(1, deadline.remainingMs()),
    };
    response = via ? await via.request(url, { ...options, session: provider }) : await request(url, options);
  } catch {
    if (deadline.expired) throw deadline.timeoutError(`the ${provider} search`);
    throw new SearchProviderError(`Search provider ${provider} could not be reached`);
  }
  const body = await response.body.text();
  if (response.statusCode === 429)
    throw new SearchProviderError(`Search provider ${provider} is rate limiting (HTTP 429)`);
  if (response.statusCode >= 400) {
    throw new SearchProviderError(`Search provider ${provider} answered HTTP ${response.statusCode}`);
  }
  return body;
}

export function parseJson(provider: string, body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw new SearchProviderError(`Search provider ${provider} answered something that is not JSON`);
  }
}
