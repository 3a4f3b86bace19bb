import type { Locator, Page } from 'playwright-core';
import { CommandError } from './command-error.js';

/**
 * A ref as agent-browser writes it (`@e3`, `ref=e3`, or bare `e3`), without its prefix; null when the argument
 * is a selector.
 */
export function parseRef(arg: string): string | null {
  const m = /^(?:@|ref=)?(e\d+)$/.exec(arg.trim());
  return m ? m[1]! : null;
}

/** A page's refs: the last snapshot's, keyed by the ref shown (`e7`), valued by Playwright's own (`f2e5`). */
interface PageRefs {
  current: Map<string, string>;
  /** The number the next ref shown gets; numbers are never reused on a page, so an old ref never names a new element. */
  next: number;
  /** `next` when the main frame last navigated: every ref below it belonged to a document that is gone. */
  navigatedAt: number | null;
}

const pages = new WeakMap<Page, PageRefs>();

function refsOf(page: Page): PageRefs {
  let refs = pages.get(page);
  if (!refs) {
    const state: PageRefs = { current: new Map(), next: 1, navigatedAt: null };
    page.on('framenavigated', (frame) => {
      if (frame !== page.mainFrame() || state.current.size === 0) return;
      state.current.clear();
      state.navigatedAt = state.next;
    });
    pages.set(page, state);
    refs = state;
  }
  return refs;
}

/**
 * Starts a snapshot's refs on `page` (the previous snapshot's stop working); the function returned gives the
 * ref to show for each element Playwright's AI snapshot gave a ref to. Playwright keeps the elements behind its
 * refs in the page (its `aria-ref=` selector), so they work in a later call on the same page.
 */
export function startRefs(page: Page): (playwrightRef: string) => string {
  const refs = refsOf(page);
  refs.current.clear();
  return (playwrightRef) => {
    const shown = `e${refs.next++}`;
    refs.current.set(shown, playwrightRef);
    return shown;
  };
}

/**
 * The element an argument names: a ref from the page's last snapshot, or a selector (CSS, or any Playwright
 * selector such as `text=Sign in`), its first match when several match, as agent-browser does.
 */
export async function locate(page: Page, arg: string): Promise<Locator> {
  const ref = parseRef(arg);
  if (ref === null) return page.locator(arg).first();
  const refs = refsOf(page);
  const playwrightRef = refs.current.get(ref);
  if (playwrightRef === undefined) throw new CommandError(staleRefMessage(ref, refs));
  const locator = page.locator(`aria-ref=${playwrightRef}`);
  // An element removed since the snapshot: say so instead of waiting for it until the deadline.
  if ((await locator.count().catch(() => 0)) === 0) {
    throw new CommandError(
      `Ref @${ref} is gone: the element left the page since the snapshot; take a new snapshot`,
    );
  }
  return locator;
}

function staleRefMessage(ref: string, refs: PageRefs): string {
  const n = Number(/\d+$/.exec(ref)![0]);
  if (n >= refs.next) {
    return `Unknown ref @${ref}: take a snapshot first (snapshot -i) and use the refs it lists`;
  }
  if (refs.navigatedAt !== null && n < refs.navigatedAt) {
    return `Ref @${ref} is gone: the page navigated since that snapshot; take a new snapshot`;
  }
  return `Ref @${ref} is from an earlier snapshot: use the refs of the last snapshot`;
}
