import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CookieJarHandle } from '../../src/engines/cookie-jar.js';
import type { Engine, FetchRequest, FetchedPage } from '../../src/engines/types.js';
import { TargetChallengeError } from '../../src/errors.js';
import { Deadline } from '../../src/lib/deadline.js';
import { ChallengePasses } from '../../src/pipeline/challenge-pass.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const AGENT = 'Browser/1';

const answer = (
  url: URL,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): FetchedPage => ({
  url: url.href,
  status,
  headers: { 'content-type': 'text/html', ...headers },
  body: Buffer.from(body),
  redirects: [],
});
const interstitial = (url: URL) =>
  answer(url, 403, '<title>Just a moment...</title>', { 'cf-mitigated': 'challenge' });
const content = (url: URL) => answer(url, 200, `<title>${url.pathname}</title><p>words</p>`);

/**
 * A stand-in WAF over fake engines: http answers the interstitial unless the request carries the clearance
 * cookie and the browser's User-Agent (or always, with `httpNeverPasses`); the browser passes it and sets the
 * cookie, or fails like a CAPTCHA.
 */
function engines(options: { captcha?: boolean; httpNeverPasses?: boolean } = {}) {
  const calls = { http: 0, browser: 0 };
  const http: Engine = {
    name: 'http',
    async fetchPage(req: FetchRequest) {
      calls.http++;
      await sleep(5);
      const cleared =
        (req.cookies?.cookieHeader(req.url) ?? '').includes('clear=1') && req.headers['user-agent'] === AGENT;
      return cleared && !options.httpNeverPasses ? content(req.url) : interstitial(req.url);
    },
  };
  const browser: Engine = {
    name: 'browser',
    async fetchPage(req: FetchRequest) {
      calls.browser++;
      await sleep(30);
      if (options.captcha)
        throw new TargetChallengeError(`${req.url.href} stayed behind an anti-bot challenge`);
      req.cookies!.keep(req.url, 'clear=1; Path=/');
      return {
        ...content(req.url),
        challenge: { signal: 'cf-mitigated: challenge', by: 'browser' as const, userAgent: AGENT },
      };
    },
  };
  return { http, browser, calls };
}

const request = (url: string): FetchRequest => ({
  url: new URL(url),
  headers: {},
  skipTlsVerification: false,
});

describe('challenge passes of a job', () => {
  test('pages of a host met at once: one browser solve, the others wait and go over http with its clearance', async () => {
    const { http, browser, calls } = engines();
    const passes = new ChallengePasses();
    const engine = passes.through(http, browser, 'no browser');
    const deadline = Deadline.after(5000);
    const pages = await Promise.all(
      Array.from({ length: 6 }, (_, i) => engine.fetchPage(request(`http://a.test/p/${i}`), deadline)),
    );
    assert.deepEqual(
      pages.map((p) => p.status),
      [200, 200, 200, 200, 200, 200],
    );
    assert.equal(calls.browser, 1);
    assert.deepEqual(pages.map((p) => p.challenge?.by).sort(), [
      'browser',
      'clearance',
      'clearance',
      'clearance',
      'clearance',
      'clearance',
    ]);
    // Later pages go straight over http with the clearance; another host passes its own challenge.
    const later = await engine.fetchPage(request('http://a.test/p/9'), deadline);
    assert.equal(later.challenge?.by, 'clearance');
    assert.equal(calls.browser, 1);
    assert.equal(calls.http, 6 + 5 + 1);
    await engine.fetchPage(request('http://b.test/'), deadline);
    assert.equal(calls.browser, 2);
    assert.ok(passes.cookiesFor(new URL('http://a.test/x')), 'the jar goes with a cleared host');
    assert.equal(passes.cookiesFor(new URL('http://c.test/')), undefined, 'and with no other');
  });

  test("the clearance goes to the job's profile", async () => {
    const { http, browser } = engines();
    const profile = new CookieJarHandle();
    const engine = new ChallengePasses(profile).through(http, browser, 'no browser');
    await engine.fetchPage(request('http://a.test/'), Deadline.after(5000));
    assert.deepEqual(
      profile.state().cookies.map((c) => [c.domain, c.name]),
      [['a.test', 'clear']],
    );
  });

  test('a challenge the browser does not pass fails its page, and the later pages of the host at once', async () => {
    const { http, browser, calls } = engines({ captcha: true });
    const engine = new ChallengePasses().through(http, browser, 'no browser');
    const deadline = Deadline.after(5000);
    const results = await Promise.allSettled(
      [1, 2, 3].map((i) => engine.fetchPage(request(`http://a.test/p/${i}`), deadline)),
    );
    for (const r of results) {
      assert.equal(r.status, 'rejected');
      assert.ok(r.reason instanceof TargetChallengeError);
    }
    await assert.rejects(engine.fetchPage(request('http://a.test/p/4'), deadline), TargetChallengeError);
    assert.equal(calls.browser, 1);
  });

  test('without a browser a challenge is an error saying why; a hint of one is a page', async () => {
    const { http, calls } = engines();
    const engine = new ChallengePasses().through(http, null, 'engine "http" does not pass challenges');
    await assert.rejects(
      engine.fetchPage(request('http://a.test/'), Deadline.after(5000)),
      /anti-bot challenge \(cf-mitigated: challenge\): engine "http" does not pass challenges/,
    );
    const refusing: Engine = {
      name: 'http',
      fetchPage: async (req) => answer(req.url, 403, '<title>Forbidden</title>', { server: 'cloudflare' }),
    };
    const page = await new ChallengePasses()
      .through(refusing, null, 'no browser')
      .fetchPage(request('http://a.test/'), Deadline.after(5000));
    assert.equal(page.status, 403);
    assert.equal(calls.http, 1);
  });

  test('a target that refuses http even with the clearance: the host goes to the browser without more solves', async () => {
    const { http, browser, calls } = engines({ httpNeverPasses: true });
    const engine = new ChallengePasses().through(http, browser, 'no browser');
    const deadline = Deadline.after(5000);
    for (let i = 0; i < 4; i++) await engine.fetchPage(request(`http://a.test/p/${i}`), deadline);
    // One solve, one http try with its clearance, then the browser alone.
    assert.equal(calls.http, 2);
    assert.equal(calls.browser, 4);
  });
});
