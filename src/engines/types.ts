import type { Deadline } from '../lib/deadline.js';

/** What a caller wants fetched; engines never see formats or Markdown. */
export interface FetchRequest {
  url: URL;
  headers: Record<string, string>;
  skipTlsVerification: boolean;
}

/** Bytes and headers as the target served them, after redirects and content decoding. */
export interface FetchedPage {
  /** Final URL after redirects. */
  url: string;
  status: number;
  /** Lower-cased header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  /** Every URL visited before the final one, in order. */
  redirects: string[];
  /** data: URL of a screenshot (browser engine, when asked for). */
  screenshot?: string;
}

export interface Engine {
  readonly name: 'http' | 'browser';
  fetchPage(request: FetchRequest, deadline: Deadline): Promise<FetchedPage>;
}
