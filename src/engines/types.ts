import type { ActionOutputs } from './browser-actions.js';
import type { Deadline } from '../lib/deadline.js';

/** What a caller wants fetched; engines never see formats or Markdown. */
export interface FetchRequest {
  url: URL;
  headers: Record<string, string>;
  skipTlsVerification: boolean;
  /** As a phone: a mobile User-Agent (and, in the browser, a phone's viewport and touch). */
  mobile?: boolean;
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
  /** What the browser actions produced (screenshots, scrapes, script results, PDFs), when any was asked. */
  actions?: ActionOutputs;
}

export interface Engine {
  readonly name: 'http' | 'browser';
  fetchPage(request: FetchRequest, deadline: Deadline): Promise<FetchedPage>;
}
