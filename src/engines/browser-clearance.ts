import type { Page, Response } from 'playwright-core';
import { TargetChallengeError } from '../errors.js';
import type { Deadline } from '../lib/deadline.js';
import { TINY_PAGE_BYTES, challengeOf, worthALook } from './challenge.js';
import type { ChallengeSignal } from './challenge.js';
import type { PassedChallenge } from './types.js';

/** How often a challenge page is looked at again when it neither navigates nor loads. */
const POLL_MS = 250;

/** Elements of a page past which a 2xx answer is content, whatever it says: interstitials are tiny. */
const TINY_PAGE_ELEMENTS = 150;

/** Part of what is left of the deadline kept for reading the page once the challenge let it through. */
const RESERVE_SHARE = 0.2;
const MAX_RESERVE_MS = 3000;

/** A page's way past a challenge it opens on. */
export interface ClearanceWatch {
  /**
   * Waits, when the page opened on a challenge (`first`: the answer of its navigation), until the page has
   * moved on to content (the challenge's script reloaded it with a clearance cookie, or navigated), and gives
   * the answer the page now shows with the challenge passed; a page without a challenge comes back at once.
   * A challenge still there when the deadline (less a reserve to read the page) runs out is a
   * TargetChallengeError naming it: a CAPTCHA waits for a person, and none is solved here.
   */
  pass(
    first: Response | null,
    deadline: Deadline,
  ): Promise<{ response: Response | null; challenge: PassedChallenge | null }>;
}

/** Starts watching `page`'s main-frame navigations: call before its first navigation. */
export function watchClearance(page: Page): ClearanceWatch {
  let latest: Response | null = null;
  let wake: (() => void) | null = null;
  // What the refusals among the navigations were: a challenge may be passed before the page is first read.
  const refusals: Promise<ChallengeSignal | null>[] = [];
  page.on('response', (r) => {
    if (!r.request().isNavigationRequest() || r.frame() !== page.mainFrame()) return;
    const status = r.status();
    if (status >= 300 && status < 400) return; // a redirect's hop: its target's answer follows
    latest = r;
    const headers = r.headers();
    if (worthALook(status, headers, Number.POSITIVE_INFINITY)) {
      const body = r.body().catch(() => Buffer.alloc(0));
      refusals.push(body.then((b) => challengeOf({ status, headers, body: b })));
    }
    wake?.();
  });
  const passedBefore = async (): Promise<ChallengeSignal | undefined> =>
    (await Promise.all(refusals)).find((signal) => signal?.sure) ?? undefined;
  const agentOf = async (): Promise<string | null> =>
    (await latest?.request().headerValue('user-agent')) ?? null;
  const next = (ms: number): Promise<void> =>
    new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      wake = done;
    });
  return {
    async pass(first, deadline) {
      const reserve = Math.min(MAX_RESERVE_MS, deadline.remainingMs() * RESERVE_SHARE);
      const stopAt = Date.now() + deadline.remainingMs() - reserve;
      const settled = async (): Promise<void> => {
        await next(Math.min(POLL_MS, Math.max(0, stopAt - Date.now())));
        await page.waitForLoadState('load', { timeout: Math.max(1, stopAt - Date.now()) }).catch(() => {});
      };
      // A page already navigating away (its challenge passed at once) is read once it has loaded.
      let signal = await signalOf(page, latest ?? first);
      while (signal === undefined && Date.now() < stopAt) {
        await settled();
        signal = await signalOf(page, latest ?? first);
      }
      if (!signal?.sure) {
        const met = await passedBefore();
        const challenge = met
          ? { signal: met.reason, by: 'browser' as const, userAgent: await agentOf() }
          : null;
        return { response: latest ?? first, challenge };
      }
      for (;;) {
        if (Date.now() >= stopAt) {
          throw new TargetChallengeError(
            `${page.url()} stayed behind an anti-bot challenge (${signal.reason}) that the browser did not get past within the page's deadline: a CAPTCHA or a block`,
          );
        }
        await settled();
        const now = await signalOf(page, latest ?? first);
        if (now !== undefined && !now?.sure) {
          const challenge = { signal: signal.reason, by: 'browser' as const, userAgent: await agentOf() };
          return { response: latest ?? first, challenge };
        }
      }
    },
  };
}

/**
 * The challenge the page shows now, from its navigation's answer and, when that calls for it, its DOM;
 * undefined while the page cannot be read (it is navigating).
 */
async function signalOf(page: Page, response: Response | null): Promise<ChallengeSignal | null | undefined> {
  const status = response?.status() ?? 200;
  try {
    const headers = response ? await response.allHeaders() : {};
    const length = Number(headers['content-length']);
    if (!worthALook(status, headers, Number.isFinite(length) ? length : 0)) return null;
    // A 2xx page is read only when it is tiny: counting its elements costs nothing, serializing it would.
    const html = await page.evaluate(
      ([success, elements, bytes]) => {
        if (success && document.getElementsByTagName('*').length > elements) return null;
        return document.documentElement.outerHTML.slice(0, bytes);
      },
      [status < 300, TINY_PAGE_ELEMENTS, 4 * TINY_PAGE_BYTES] as const,
    );
    if (html === null) return null;
    return challengeOf({ status, headers, body: Buffer.from(html, 'utf8') });
  } catch {
    return undefined;
  }
}
