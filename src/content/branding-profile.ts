import type { BrandingProfile } from '../schemas/branding.js';
import { ColorTally, blend, colorSchemeOf, isNeutral, isTransparent, parseColor, toHex } from './branding.js';
import type { Rgba } from './branding.js';

/** A font as the page computes it for an element. */
export interface FontSample {
  /** The font-family stack, as CSS gives it. */
  family: string;
  size: string;
  weight: string;
  lineHeight: string;
}

/** A clickable element: a link (`a`) or anything that looks pressed (`button`: buttons, role=button, inputs). */
export interface ControlSample {
  tag: 'a' | 'button';
  background: string;
  color: string;
  borderColor: string;
  borderWidth: number;
  borderRadius: string;
  /** Visible area in CSS pixels², at most the viewport's. */
  area: number;
}

/** What the page script (engines/browser-branding.ts) reads of a rendered page: raw computed values. */
export interface BrandingSample {
  title: string;
  /** og:site_name, else application-name. */
  siteName: string | null;
  ogImage: string | null;
  icons: { href: string; rel: string; sizes: string }[];
  /** The body's background, then the root element's. */
  backgrounds: string[];
  bodyColor: string;
  /** Running text's colours with the characters set in them (links, buttons and headings left out). */
  textColors: { color: string; chars: number }[];
  controls: ControlSample[];
  fonts: Record<'body' | 'h1' | 'h2' | 'h3' | 'code', FontSample | null>;
  logo: { src: string; alt: string } | null;
}

const WHITE: Rgba = { r: 255, g: 255, b: 255, a: 1 };

/** A font-family stack as its names, quotes removed. */
export function fontStack(family: string): string[] {
  return (family.match(/"[^"]*"|'[^']*'|[^,]+/g) ?? [])
    .map((name) => name.trim().replace(/^["']|["']$/g, ''))
    .filter((name) => name !== '');
}

/** Characters of the title looked at for the site's name: the page sets its title, and a name is short. */
const MAX_TITLE_CHARS = 300;

/** The title's part that names the site: the one the host name contains, else the first ("Acme | Pricing"). */
function nameFromTitle(title: string, pageUrl: URL): string | undefined {
  const parts = title
    .slice(0, MAX_TITLE_CHARS)
    .split(/\s+[|–—·:-]\s+/)
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const host = pageUrl.hostname.toLowerCase().replace(/[^a-z0-9]/g, '');
  const inHost = parts.find((p) => {
    const letters = p.toLowerCase().replace(/[^a-z0-9]/g, '');
    return letters.length >= 3 && host.includes(letters);
  });
  return inHost ?? parts[0];
}

/** Favicon: rel="icon" (or "shortcut icon"), the largest given; else an apple-touch-icon. */
function iconsOf(icons: BrandingSample['icons']): { favicon: string | null; touch: string | null } {
  const size = (sizes: string): number => Number.parseInt(sizes, 10) || 0;
  const bySize = (list: BrandingSample['icons']) => [...list].sort((a, b) => size(b.sizes) - size(a.sizes));
  const touch = bySize(icons.filter((i) => i.rel.includes('apple-touch-icon')))[0]?.href ?? null;
  const plain = bySize(icons.filter((i) => !i.rel.includes('apple-touch-icon')))[0]?.href ?? null;
  return { favicon: plain ?? touch, touch };
}

type Button = NonNullable<NonNullable<BrandingProfile['components']>['buttonPrimary']>;

interface Control extends ControlSample {
  /** The background painted over the page's, when the element has one of its own. */
  fill: Rgba | null;
}

function buttonOf(control: Control, page: Rgba): Button {
  const border = parseColor(control.borderColor);
  const text = parseColor(control.color);
  const background = toHex(control.fill!);
  return {
    background,
    ...(text ? { textColor: toHex(blend(text, control.fill!)) } : {}),
    borderColor: control.borderWidth > 0 && border ? toHex(blend(border, page)) : background,
    borderRadius: control.borderRadius,
  };
}

/** A pixel length over a pixel size as a ratio ("24px" / "16px" = 1.5); undefined for "normal". */
function ratioOf(length: string | undefined, size: string | undefined): number | undefined {
  const l = Number.parseFloat(length ?? '');
  const s = Number.parseFloat(size ?? '');
  return length?.endsWith('px') && s > 0 && Number.isFinite(l) ? Math.round((l / s) * 100) / 100 : undefined;
}

/** Drops undefined values and objects left empty, so absent means "the page does not show it". */
function compact<T extends Record<string, unknown>>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(o)) {
    const kept =
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? compact(value as Record<string, unknown>)
        : value;
    if (kept === undefined) continue;
    if (kept !== null && typeof kept === 'object' && !Array.isArray(kept) && Object.keys(kept).length === 0)
      continue;
    out[key] = kept;
  }
  return out as T;
}

/**
 * The branding profile of a page from its sample: the page's background and most used text colour give the
 * scheme; the brand colours are the non-neutral colours of its buttons and links, weighed by the area they
 * cover (a button's fill, an outline button's border at half weight, a link's text); the link colour is the
 * one most links have; the primary button is the largest one filled with the primary colour.
 */
export function brandingProfile(sample: BrandingSample, pageUrl: URL): BrandingProfile {
  const page = [...sample.backgrounds, 'rgb(255, 255, 255)']
    .map(parseColor)
    .find((c): c is Rgba => c !== null && !isTransparent(c))!;
  const background = blend(page, WHITE);
  const texts = new ColorTally();
  for (const { color, chars } of sample.textColors) {
    const c = parseColor(color);
    if (c && !isTransparent(c)) texts.add(toHex(blend(c, background)), chars);
  }
  const textPrimary = texts.ranked()[0] ?? toHex(blend(parseColor(sample.bodyColor) ?? WHITE, background));

  const brand = new ColorTally();
  const links = new ColorTally();
  const controls: Control[] = sample.controls.map((c) => {
    const fill = parseColor(c.background);
    return { ...c, fill: fill && !isTransparent(fill) ? blend(fill, background) : null };
  });
  for (const c of controls) {
    const color = parseColor(c.color);
    const border = parseColor(c.borderColor);
    const looksPressed = c.tag === 'button' || c.fill !== null;
    if (c.fill) {
      if (!isNeutral(c.fill)) brand.add(toHex(c.fill), c.area);
    } else if (looksPressed && c.borderWidth > 0 && border && !isTransparent(border) && !isNeutral(border)) {
      brand.add(toHex(blend(border, background)), c.area / 2);
    }
    if (!looksPressed && color && !isTransparent(color)) {
      const hex = toHex(blend(color, background));
      links.add(hex, 1);
      if (!isNeutral(color)) brand.add(hex, c.area);
    }
  }
  const [primary, secondary, accent] = brand.ranked();
  const link = links.ranked()[0];
  const textSecondary = texts.ranked().find((c) => c !== textPrimary && c !== link && c !== primary);

  const largest = (list: Control[]) => [...list].sort((a, b) => b.area - a.area)[0];
  const filled = controls.filter((c) => c.fill !== null && (c.tag === 'button' || !isNeutral(c.fill)));
  const primaryButton = largest(filled.filter((c) => toHex(c.fill!) === primary));
  const pageHex = toHex(background);
  const secondaryButton = largest(
    filled.filter((c) => c !== primaryButton && ![primary, pageHex].includes(toHex(c.fill!))),
  );

  const { body, h1, h2, h3, code } = sample.fonts;
  const heading = h1 ?? h2 ?? h3;
  const stacks = { primary: body, heading, code };
  const family = (font: FontSample | null) => (font ? fontStack(font.family)[0] : undefined);
  const families = [...new Set([family(body), family(heading), family(code)])].filter(
    (f): f is string => f !== undefined,
  );
  const { favicon, touch } = iconsOf(sample.icons);
  const logo = sample.logo?.src ?? touch ?? favicon;

  return compact({
    colorScheme: colorSchemeOf(background, parseColor(textPrimary)),
    brandName: sample.siteName ?? nameFromTitle(sample.title, pageUrl),
    logo,
    fonts: families.map((f) => ({ family: f })),
    colors: { primary, secondary, accent, background: pageHex, textPrimary, textSecondary, link },
    typography: {
      fontFamilies: { primary: family(body), heading: family(heading), code: family(code) },
      fontStacks: {
        primary: stacks.primary ? fontStack(stacks.primary.family) : undefined,
        heading: stacks.heading ? fontStack(stacks.heading.family) : undefined,
        body: body ? fontStack(body.family) : undefined,
        code: code ? fontStack(code.family) : undefined,
      },
      fontSizes: { h1: h1?.size, h2: h2?.size, h3: h3?.size, body: body?.size },
      lineHeights: {
        heading: ratioOf(heading?.lineHeight, heading?.size),
        body: ratioOf(body?.lineHeight, body?.size),
      },
      fontWeights: {
        regular: body ? Number(body.weight) || undefined : undefined,
        bold: heading ? Number(heading.weight) || undefined : undefined,
      },
    },
    spacing: { borderRadius: primaryButton?.borderRadius },
    components: {
      buttonPrimary: primaryButton ? buttonOf(primaryButton, background) : undefined,
      buttonSecondary: secondaryButton ? buttonOf(secondaryButton, background) : undefined,
    },
    images: { logo, favicon, ogImage: sample.ogImage },
  });
}
