import { challengeOf } from '../engines/challenge.js';
import type { ChallengeSignal } from '../engines/challenge.js';
import { CookieJarHandle } from '../engines/cookie-jar.js';
import type { Engine, FetchRequest, FetchedPage, PassedChallenge } from '../engines/types.js';
import { TargetChallengeError, toAppError } from '../errors.js';
import type { Deadline } from '../lib/deadline.js';
import { SerialByKey } from '../lib/serial-by-key.js';

/** What a job learnt of one host's challenge. */
interface HostPass {
  /** Challenges the browser passed for the host: a fetch made before the latest carried an older clearance. */
  solves: number;
  /** What gave the challenge away, as the browser saw it. */
  signal: string;
  /** The User-Agent the clearance is bound to: the browser's. */
  userAgent: string | null;
  /** The target lets the browser through and refuses the http engine, clearance or not: pages go to the browser. */
  browserOnly: boolean;
  /** The challenge the browser did not get past: the host's later challenged pages fail with it at once. */
  failed: string | null;
}

/**
 * The anti-bot challenges of one job (a crawl, a batch, a lone scrape), passed once per host and reused: a
 * page the http engine gets a challenge for is rendered in the browser, which waits the challenge out
 * (engines/browser-clearance.ts); the cookies it ends with go to the job's cookie jar (the profile's when the
 * job has one, so `saveChanges` keeps them) and the job's later requests to that host carry them, with the
 * browser's User-Agent, over the http engine. One page of a host passes the challenge at a time; the job's
 * other pages of the host wait for it and then try again with its clearance.
 */
export class ChallengePasses {
  readonly jar: CookieJarHandle;
  private readonly hosts = new Map<string, HostPass>();
  private readonly solving = new SerialByKey('challenge pass', Number.POSITIVE_INFINITY);

  constructor(private readonly profile?: CookieJarHandle) {
    this.jar = profile ?? new CookieJarHandle();
  }

  /** The cookies a request to `url` carries: the profile's, else the job's once the host had a challenge. */
  cookiesFor(url: URL): CookieJarHandle | undefined {
    return this.profile ?? (this.hosts.has(url.host) ? this.jar : undefined);
  }

  /**
   * `http` passing challenges through `browser`; without one (engine "http", or no browser engine), a sure
   * challenge is a TargetChallengeError saying `why`, and a hint of one is the page it is.
   */
  through(http: Engine, browser: Engine | null, why: string): Engine {
    return {
      name: http.name,
      fetchPage: (request, deadline) => this.fetch(http, browser, why, request, deadline),
    };
  }

  private async fetch(
    http: Engine,
    browser: Engine | null,
    why: string,
    request: FetchRequest,
    deadline: Deadline,
  ): Promise<FetchedPage> {
    const host = request.url.host;
    const known = this.hosts.get(host);
    if (known?.browserOnly && browser) return this.rendered(browser, request, deadline, known);
    const solves = known?.solves ?? 0;
    const page = await http.fetchPage(this.dressed(request), deadline);
    const signal = challengeOf(page);
    if (!signal) return known && solves > 0 ? withClearance(page, known) : page;
    if (known?.failed) throw new TargetChallengeError(known.failed);
    // A hint on a host with a clearance is a plain refusal of this page: the clearance went with it.
    if (!signal.sure && (!browser || known)) return page;
    if (!browser) {
      throw new TargetChallengeError(
        `${page.url} is behind an anti-bot challenge (${signal.reason}): ${why}`,
      );
    }
    try {
      return await this.solving.run(
        host,
        () => this.solve(http, browser, request, deadline, signal, solves),
        deadline.signal,
      );
    } catch (err) {
      // The deadline ran out while another page of the host was passing the challenge.
      if (deadline.expired && toAppError(err).code === 'BUSY') {
        throw deadline.timeoutError('waiting for another page to pass an anti-bot challenge');
      }
      throw err;
    }
  }

  /** Run alone for its host: passes the challenge, or uses the clearance another page got meanwhile. */
  private async solve(
    http: Engine,
    browser: Engine,
    request: FetchRequest,
    deadline: Deadline,
    signal: ChallengeSignal,
    solvesBefore: number,
  ): Promise<FetchedPage> {
    const known = this.hosts.get(request.url.host);
    if (known?.failed) throw new TargetChallengeError(known.failed);
    if (known && known.solves !== solvesBefore) {
      const again = await http.fetchPage(this.dressed(request), deadline);
      if (!challengeOf(again)) return withClearance(again, known);
    }
    if (known && known.solves > 0) {
      // The latest clearance went with this page and the target challenged it all the same.
      known.browserOnly = true;
      return this.rendered(browser, request, deadline, known);
    }
    const entry: HostPass = known ?? {
      solves: 0,
      signal: signal.reason,
      userAgent: null,
      browserOnly: false,
      failed: null,
    };
    let page: FetchedPage;
    try {
      page = await browser.fetchPage({ ...request, cookies: this.jar }, deadline);
    } catch (err) {
      const e = toAppError(err);
      if (e instanceof TargetChallengeError)
        this.hosts.set(request.url.host, { ...entry, failed: e.message });
      throw e;
    }
    if (page.challenge) {
      this.hosts.set(request.url.host, {
        ...entry,
        solves: entry.solves + 1,
        signal: page.challenge.signal,
        userAgent: page.challenge.userAgent,
      });
      return page;
    }
    // No challenge for the browser: the target refuses the http engine itself.
    if (page.status < 400) {
      this.hosts.set(request.url.host, { ...entry, solves: entry.solves + 1, browserOnly: true });
      return { ...page, challenge: { signal: signal.reason, by: 'browser', userAgent: null } };
    }
    return page; // refused in the browser too, and no challenge: a 403 page is a page
  }

  /** A page of a host only the browser gets. */
  private async rendered(
    browser: Engine,
    request: FetchRequest,
    deadline: Deadline,
    known: HostPass,
  ): Promise<FetchedPage> {
    const page = await browser.fetchPage({ ...request, cookies: this.jar }, deadline);
    return page.challenge ? page : { ...page, challenge: { ...passed(known), by: 'browser' } };
  }

  /** The request with the host's clearance: the job's cookies and the browser's User-Agent. */
  private dressed(request: FetchRequest): FetchRequest {
    const known = this.hosts.get(request.url.host);
    if (!known) return request;
    const ownAgent = Object.keys(request.headers).some((name) => name.toLowerCase() === 'user-agent');
    const headers =
      known.userAgent && !ownAgent ? { ...request.headers, 'user-agent': known.userAgent } : request.headers;
    return { ...request, headers, cookies: this.jar };
  }
}

const passed = (known: HostPass): PassedChallenge => ({
  signal: known.signal,
  by: 'clearance',
  userAgent: known.userAgent,
});

const withClearance = (page: FetchedPage, known: HostPass): FetchedPage => ({
  ...page,
  challenge: passed(known),
});

/** A page's `detectionReason` with the challenge it was behind. */
export function challengeNote(reason: string | null, challenge: PassedChallenge): string {
  const note =
    challenge.by === 'browser'
      ? `anti-bot challenge (${challenge.signal}): passed in the browser engine`
      : `fetched with the clearance of an anti-bot challenge (${challenge.signal}) the browser engine passed`;
  return reason && challenge.by === 'clearance' ? `${reason}; ${note}` : note;
}
