import type { BrowserContext, Page } from 'playwright-core';
import type { BrowserHost } from './host/browser-host.js';

/** How long an ending session's browser work (saving its profile, closing its contexts) may take. */
const CLOSE_GRACE_MS = 5000;

/** A session's current page: the last one open in its context, or a new one when all were closed. */
export async function currentPage(context: BrowserContext): Promise<Page> {
  return (
    context
      .pages()
      .filter((p) => !p.isClosed())
      .at(-1) ?? (await context.newPage())
  );
}

/** `work`'s value, or a rejection once CLOSE_GRACE_MS has passed without it (a hung or dead browser). */
export async function bounded<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('the browser did not answer in time')), CLOSE_GRACE_MS);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Closes an ended session's contexts in a shared browser (those its clients created too); false when they did
 * not close within the grace period. A browser of the session's own is closed whole by its release instead.
 */
export async function closeSession(
  host: BrowserHost,
  context: BrowserContext,
  extra: ReadonlySet<string>,
): Promise<boolean> {
  if (host.isolated) return true;
  const work = (async () => {
    for (const browserContextId of extra) {
      await host.mux.command('Target.disposeBrowserContext', { browserContextId }).catch(() => undefined);
    }
    await context.close();
  })();
  return bounded(work).then(
    () => true,
    () => false,
  );
}
