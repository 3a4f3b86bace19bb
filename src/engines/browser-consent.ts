import type { Page } from 'playwright-core';
import { inPage } from './browser-capture.js';
import { ACCEPT_LABEL } from '../lib/consent-words.js';

/**
 * Consent walls (a cookie or privacy notice laid over the page, with a button to accept) are not the page's
 * content: they are found by what makes them one, not by vendor, and removed before the page is captured.
 * A candidate is fixed or sticky, covers a third of the viewport or spans its width at the top or bottom,
 * speaks about cookies, consent or privacy, holds a button that accepts or agrees, and has little text and no
 * main, article or h1 (the page's own content, even when it sits in a fixed layer, has those).
 */
function removeConsentWallsInPage(args: { maxText: number; accept: string }): number {
  const accept = new RegExp(args.accept, 'i');
  const topic =
    /cookie|consent|privacy|gdpr|tracking|personal data|datenschutz|dsgvo|confidentialité|vie privée|privacidad|rgpd|riservatezza|privacidade|partners|vendors/i;
  const width = window.innerWidth;
  const height = window.innerHeight;
  const walls: Element[] = [];
  for (const el of Array.from(document.querySelectorAll('body *'))) {
    const style = getComputedStyle(el);
    if (style.position !== 'fixed' && style.position !== 'sticky') continue;
    if (style.display === 'none' || style.visibility === 'hidden') continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    const covers = (box.width * box.height) / (width * height) >= 0.3;
    const docked = box.width >= width * 0.8 && (box.top <= 1 || box.bottom >= height - 1);
    if (!covers && !docked) continue;
    if (el.querySelector('main, article, h1')) continue;
    const text = (el as HTMLElement).innerText ?? '';
    if (text.length > args.maxText || !topic.test(text)) continue;
    const controls = Array.from(
      el.querySelectorAll('button, a, [role="button"], input[type="button"], input[type="submit"]'),
    );
    const label = (c: Element): string =>
      (
        (c as HTMLElement).innerText ||
        (c as HTMLInputElement).value ||
        c.getAttribute('aria-label') ||
        ''
      ).trim();
    if (!controls.some((c) => label(c).length < 40 && accept.test(label(c)))) continue;
    walls.push(el);
  }
  let removed = 0;
  for (const wall of walls) {
    if (walls.some((other) => other !== wall && other.contains(wall))) continue;
    wall.remove();
    removed++;
  }
  // A wall usually stops the page from scrolling; the page underneath is for reading again.
  if (removed > 0) for (const el of [document.documentElement, document.body]) el.style.overflow = '';
  return removed;
}

/** Removes consent walls from the page; answers how many were removed. */
export async function removeConsentWalls(page: Page): Promise<number> {
  return (await page
    .evaluate(inPage(removeConsentWallsInPage, { maxText: 3000, accept: ACCEPT_LABEL.source }))
    .catch(() => 0)) as number;
}
