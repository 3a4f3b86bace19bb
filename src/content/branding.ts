/** Colour maths for the branding format: CSS colours as the browser computes them, read and compared. */

export interface Rgba {
  r: number;
  g: number;
  b: number;
  /** 0..1 */
  a: number;
}

const clampByte = (n: number): number => Math.max(0, Math.min(255, Math.round(n)));

/** A channel of rgb(): a number 0..255 or a percentage. */
function channel(text: string): number | null {
  const value = Number.parseFloat(text);
  if (!Number.isFinite(value)) return null;
  return clampByte(text.trim().endsWith('%') ? (value / 100) * 255 : value);
}

/** An alpha: a number 0..1 or a percentage. */
function alphaOf(text: string | undefined): number | null {
  if (text === undefined) return 1;
  const value = Number.parseFloat(text);
  if (!Number.isFinite(value)) return null;
  return Math.max(0, Math.min(1, text.trim().endsWith('%') ? value / 100 : value));
}

/**
 * `rgb()`, `rgba()` (comma or space separated, `/ alpha`), `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa` and
 * `transparent`; null for anything else (named colours and other colour spaces are turned into rgb() by the
 * page script before they come here).
 */
export function parseColor(value: string): Rgba | null {
  const text = value.trim().toLowerCase();
  if (text === 'transparent') return { r: 0, g: 0, b: 0, a: 0 };
  const hex = /^#([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/.exec(text)?.[1];
  if (hex) {
    const digits = hex.length <= 4 ? [...hex].map((d) => d + d) : (hex.match(/../g) ?? []);
    const [r, g, b, a] = digits.map((d) => Number.parseInt(d, 16));
    return { r: r!, g: g!, b: b!, a: a === undefined ? 1 : a / 255 };
  }
  const fn = /^rgba?\(([^)]*)\)$/.exec(text)?.[1];
  if (!fn) return null;
  const [colour, alpha] = fn.split('/');
  const parts = colour!.includes(',') ? colour!.split(',') : colour!.trim().split(/\s+/);
  const rgb = parts.slice(0, 3).map(channel);
  const a = alphaOf(alpha ?? parts[3]);
  if (rgb.length !== 3 || rgb.some((c) => c === null) || a === null) return null;
  return { r: rgb[0]!, g: rgb[1]!, b: rgb[2]!, a };
}

/** `#RRGGBB`, upper case (the alpha is dropped: callers blend or skip translucent colours first). */
export function toHex(c: Rgba): string {
  return `#${[c.r, c.g, c.b].map((n) => clampByte(n).toString(16).padStart(2, '0')).join('')}`.toUpperCase();
}

/** `over` painted on `under` (an opaque result when `under` is opaque). */
export function blend(over: Rgba, under: Rgba): Rgba {
  const a = over.a + under.a * (1 - over.a);
  if (a === 0) return { r: 0, g: 0, b: 0, a: 0 };
  const mix = (o: number, u: number): number => (o * over.a + u * under.a * (1 - over.a)) / a;
  return { r: mix(over.r, under.r), g: mix(over.g, under.g), b: mix(over.b, under.b), a };
}

/** Mostly see-through: a colour no one sees as the element's own. */
export const isTransparent = (c: Rgba): boolean => c.a < 0.1;

/**
 * White, black and greys, tinted ones included: a colour whose channels differ by less than 10% of the range
 * carries no hue a brand would be recognised by.
 */
export function isNeutral(c: Rgba): boolean {
  return Math.max(c.r, c.g, c.b) - Math.min(c.r, c.g, c.b) < 26;
}

/** WCAG relative luminance, 0 (black) to 1 (white). */
export function luminance(c: Rgba): number {
  const linear = (n: number): number => {
    const s = n / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(c.r) + 0.7152 * linear(c.g) + 0.0722 * linear(c.b);
}

/**
 * Dark when the text is lighter than the background it stands on; without text to compare, when the
 * background is darker than mid grey.
 */
export function colorSchemeOf(background: Rgba, text: Rgba | null): 'light' | 'dark' {
  const bg = luminance(background);
  if (text && Math.abs(luminance(text) - bg) > 0.05) return luminance(text) > bg ? 'dark' : 'light';
  return bg < 0.18 ? 'dark' : 'light';
}

/** Weights summed per colour (hex), heaviest first: what a page shows most of a kind of colour. */
export class ColorTally {
  private readonly weights = new Map<string, number>();

  add(hex: string, weight: number): void {
    if (weight > 0) this.weights.set(hex, (this.weights.get(hex) ?? 0) + weight);
  }

  ranked(): string[] {
    return [...this.weights.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([c]) => c);
  }
}
