import { ScrapeSslError, TargetCertificateError } from '../errors.js';

/** Firecrawl's message for a certificate failure: programs may show or match it. */
const SSL_MESSAGE =
  'An SSL/TLS certificate error occurred while trying to establish a secure connection to this website. This ' +
  'usually happens when a website has an expired, self-signed, or misconfigured SSL certificate. If you trust ' +
  'this website and are not submitting sensitive data, you can bypass this error by setting ' +
  '`skipTlsVerification: true` in your scrape request. Note: Only do this for trusted sites as it disables ' +
  'certificate validation.';

/**
 * A scrape's failure as Firecrawl names it: a certificate failure is SCRAPE_SSL_ERROR (a 400 here, where
 * Firecrawl answers 500: the same request fails the same way, and no client should retry it); anything else
 * is answered as it is.
 */
export function firecrawlScrapeError(err: unknown): unknown {
  if (err instanceof TargetCertificateError) {
    return new ScrapeSslError(SSL_MESSAGE, { cause: err });
  }
  return err;
}
