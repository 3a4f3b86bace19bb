import type { ActionOutputs } from './browser-actions.js';
import type { Deadline } from '../lib/deadline.js';
import type { ProxyTier } from '../lib/proxy-pool.js';
import type { CookieJarHandle } from './cookie-jar.js';
import type { BrandingSample } from '../content/branding-profile.js';

/** What a caller wants fetched; engines never see formats or Markdown. */
export interface FetchRequest {
  url: URL;
  headers: Record<string, string>;
  skipTlsVerification: boolean;
  /** As a phone: a mobile User-Agent (and, in the browser, a phone's viewport and touch). */
  mobile?: boolean;
  /** Which proxies carry the request (PROXY_URLS or STEALTH_PROXY_URLS; a tier without any: directly). */
  proxy?: ProxyTier;
  /**
   * The sticky key of proxy rotation: a job's id (a crawl, a batch), so that a host keeps its proxy for the
   * whole job; unset, the request is a session of its own.
   */
  session?: string;
  /**
   * The cookies of the scrape's or job's profile: the http engine sends the ones matching each hop and keeps
   * every Set-Cookie in it; the browser starts from its state and gives back what the page left.
   */
  cookies?: CookieJarHandle;
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
  /** The page's computed styles for the branding format (browser engine, when asked); null when unreadable. */
  branding?: BrandingSample | null;
  /** The tier that carried the page when a block sent it on from its first (proxy "auto": stealth). */
  proxy?: ProxyTier;
  /** The anti-bot challenge in front of the page, when one was passed (engines/challenge.ts). */
  challenge?: PassedChallenge;
}

/** How a challenge in front of a page was passed. */
export interface PassedChallenge {
  /** What gave the challenge away. */
  signal: string;
  /** `browser`: a browser rendered the page and waited the challenge out; `clearance`: the request carried the clearance a browser got earlier in the job. */
  by: 'browser' | 'clearance';
  /** The User-Agent the browser sent, to which a clearance is commonly bound; null when unknown. */
  userAgent: string | null;
}

export interface Engine {
  readonly name: 'http' | 'browser';
  fetchPage(request: FetchRequest, deadline: Deadline): Promise<FetchedPage>;
}
