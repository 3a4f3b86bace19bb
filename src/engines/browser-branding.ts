import type { Page } from 'playwright-core';
import type { BrandingSample } from '../content/branding-profile.js';
import { inPage } from './browser-capture.js';

/**
 * What the branding format reads in the rendered page: computed styles, not stylesheets, so colours and
 * fonts are the ones the page shows whatever CSS framework set them. The script reads at most
 * MAX_ELEMENTS elements per kind (controls, text, logo candidates) and returns raw values; choosing the
 * palette is pure code (content/branding-profile.ts).
 */

/** Elements read per kind at most: a page of a hundred thousand links is sampled, not walked. */
const MAX_ELEMENTS = 2000;
/** Longest inline SVG logo returned (as a data: URL); a larger one is left out. */
const MAX_SVG_CHARS = 20_000;

/** Runs in the page: self-contained (see inPage). */
function sampleInPage(args: { maxElements: number; maxSvgChars: number }): BrandingSample {
  const { maxElements, maxSvgChars } = args;
  const viewportArea = Math.max(1, window.innerWidth * window.innerHeight);
  // Colours in spaces other than sRGB's rgb() (oklch(), color()) are read back through a canvas pixel.
  const canvas = document.createElement('canvas');
  canvas.width = 1;
  canvas.height = 1;
  const context = canvas.getContext('2d', { willReadFrequently: true });
  const known = new Map<string, string>();
  const rgb = (value: string): string => {
    if (value === '' || value.startsWith('rgb') || !context) return value;
    const cached = known.get(value);
    if (cached !== undefined) return cached;
    context.clearRect(0, 0, 1, 1);
    context.fillStyle = 'rgba(0, 0, 0, 0)';
    context.fillStyle = value;
    context.fillRect(0, 0, 1, 1);
    const [r, g, b, a] = context.getImageData(0, 0, 1, 1).data;
    const read = `rgba(${r}, ${g}, ${b}, ${(a ?? 0) / 255})`;
    known.set(value, read);
    return read;
  };
  const visible = (el: Element, style: CSSStyleDeclaration): boolean =>
    el.getClientRects().length > 0 && style.visibility !== 'hidden' && style.opacity !== '0';
  const meta = (selector: string): string | null =>
    document.querySelector(selector)?.getAttribute('content')?.trim() || null;
  const absolute = (href: string | null): string | null => {
    if (!href) return null;
    try {
      return new URL(href, document.baseURI).href;
    } catch {
      return null;
    }
  };

  const controls: BrandingSample['controls'] = [];
  const clickable = document.querySelectorAll(
    'button, [role=button], a[href], input[type=submit], input[type=button]',
  );
  for (let i = 0; i < clickable.length && i < maxElements; i++) {
    const el = clickable[i]!;
    const style = getComputedStyle(el);
    if (!visible(el, style)) continue;
    const rect = el.getBoundingClientRect();
    controls.push({
      tag: el.localName === 'a' && el.getAttribute('role') !== 'button' ? 'a' : 'button',
      background: rgb(style.backgroundColor),
      color: rgb(style.color),
      borderColor: rgb(style.borderTopColor),
      borderWidth: Number.parseFloat(style.borderTopWidth) || 0,
      borderRadius: style.borderTopLeftRadius,
      area: Math.min(viewportArea, Math.round(rect.width * rect.height)),
    });
  }

  // Text colours by the characters set in them: running text, so links and buttons (the controls') and
  // headings (often set apart in a colour of their own) are left out.
  const textColors = new Map<string, number>();
  const walker = document.createTreeWalker(
    document.body ?? document.documentElement,
    NodeFilter.SHOW_ELEMENT,
  );
  // Elements visited at most: ten for every one read (most elements hold no text of their own).
  for (let visited = 0, read = 0; visited < maxElements * 10 && read < maxElements; visited++) {
    const el = walker.nextNode() as Element | null;
    if (!el) break;
    let chars = 0;
    for (let n = el.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === Node.TEXT_NODE) chars += (n.textContent ?? '').trim().length;
    }
    if (chars === 0 || el.closest('a, button, h1, h2, h3, h4, h5, h6, script, style, noscript, template'))
      continue;
    read++;
    const style = getComputedStyle(el);
    if (!visible(el, style)) continue;
    const color = rgb(style.color);
    textColors.set(color, (textColors.get(color) ?? 0) + Math.min(chars, 1000));
  }

  const fontOf = (selector: string): BrandingSample['fonts']['body'] => {
    const found = document.querySelectorAll(selector);
    for (let i = 0; i < found.length && i < 50; i++) {
      const style = getComputedStyle(found[i]!);
      if (!visible(found[i]!, style)) continue;
      return {
        family: style.fontFamily,
        size: style.fontSize,
        weight: style.fontWeight,
        lineHeight: style.lineHeight,
      };
    }
    return null;
  };

  // The logo: an image or drawing in the page's header that says it is one, else one the page names so.
  const says = (el: Element | null): boolean =>
    !!el &&
    /logo|brand/i.test(
      [
        el.getAttribute('alt'),
        el.getAttribute('src'),
        el.getAttribute('class'),
        el.id,
        el.getAttribute('aria-label'),
      ]
        .filter(Boolean)
        .join(' '),
    );
  const logoOf = (el: Element): BrandingSample['logo'] => {
    if (el.localName === 'img') {
      const img = el as HTMLImageElement;
      const src = img.currentSrc || img.src;
      return src ? { src, alt: img.alt } : null;
    }
    const svg = el.outerHTML;
    if (svg.length > maxSvgChars) return null;
    const xml = svg.includes('xmlns=') ? svg : svg.replace('<svg', '<svg xmlns="http://www.w3.org/2000/svg"');
    return { src: `data:image/svg+xml,${encodeURIComponent(xml)}`, alt: el.getAttribute('aria-label') ?? '' };
  };
  let logo: BrandingSample['logo'] = null;
  const banner = document.querySelector('header, [role=banner]') ?? document.querySelector('nav');
  for (const scope of [banner, document.body]) {
    const images = scope ? scope.querySelectorAll('img, svg') : [];
    for (let i = 0; i < images.length && i < maxElements && !logo; i++) {
      const el = images[i]!;
      if (says(el) || says(el.parentElement) || says(el.parentElement?.parentElement ?? null))
        logo = logoOf(el);
    }
    if (logo) break;
  }

  const icons = Array.from(document.querySelectorAll('link[rel][href]'))
    .slice(0, 50)
    .filter((l) => /icon/i.test(l.getAttribute('rel') ?? ''))
    .map((l) => ({
      href: absolute(l.getAttribute('href')) ?? '',
      rel: (l.getAttribute('rel') ?? '').toLowerCase(),
      sizes: l.getAttribute('sizes') ?? '',
    }))
    .filter((l) => l.href !== '');

  const html = getComputedStyle(document.documentElement);
  const body = document.body ? getComputedStyle(document.body) : html;
  return {
    title: document.title,
    siteName: meta('meta[property="og:site_name"]') ?? meta('meta[name="application-name"]'),
    ogImage: absolute(meta('meta[property="og:image"]')),
    icons,
    backgrounds: [rgb(body.backgroundColor), rgb(html.backgroundColor)],
    bodyColor: rgb(body.color),
    textColors: [...textColors.entries()].map(([color, chars]) => ({ color, chars })),
    controls,
    fonts: {
      body: fontOf('body'),
      h1: fontOf('h1'),
      h2: fontOf('h2'),
      h3: fontOf('h3'),
      code: fontOf('code, pre, kbd, samp'),
    },
    logo,
  };
}

/** The page's branding sample, or null when the page could not be read (it navigated away, it crashed). */
export async function readBranding(page: Page): Promise<BrandingSample | null> {
  const script = inPage(sampleInPage, { maxElements: MAX_ELEMENTS, maxSvgChars: MAX_SVG_CHARS });
  return (await page.evaluate(script).catch(() => null)) as BrandingSample | null;
}
