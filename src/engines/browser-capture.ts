import type { Frame, Page } from 'playwright-core';
import { SHADOW_HOST_ATTRIBUTE } from '../content/parse/shadow-roots.js';

/**
 * What the content pipeline sees of a rendered page: the live DOM, with what `page.content()` leaves out
 * put back where it stands. Open shadow roots are flattened in place (slots filled with the nodes assigned to
 * them), and iframe documents, same-origin or not, are inlined where their frame stands (depth 2, 20 frames).
 */

export interface CaptureOptions {
  /** Inline iframe documents (off when the request excludes the iframe tag). */
  iframes: boolean;
  /** Longest HTML captured (chars); a larger page falls back to `page.content()`. */
  maxChars: number;
}

/** Frames inlined at most, and how deep (a frame's frame is depth 2). */
const MAX_FRAMES = 20;
const MAX_FRAME_DEPTH = 2;

/** The attribute that ties an iframe element to the frame whose document replaces it. */
const FRAME_ATTRIBUTE = 'data-pagewright-frame';

/**
 * Serializes a document (or its body only) in the page. Runs in the browser, so it is self-contained:
 * elements with an open shadow root give their shadow tree's content, a slot gives the nodes assigned to it
 * (its fallback content when none are), and an iframe marked with FRAME_ATTRIBUTE is followed by a comment
 * standing for its document. Returns null when the page has neither shadow roots nor marked frames (then
 * `page.content()` says the same, faster), or when the text passes `maxChars`.
 */
function serializeInPage(args: {
  bodyOnly: boolean;
  maxChars: number;
  attribute: string;
  hostAttribute: string;
}): string | null {
  const { bodyOnly, maxChars, attribute, hostAttribute } = args;
  const all = document.querySelectorAll('*');
  let needed = bodyOnly;
  for (let i = 0; i < all.length && !needed; i++) {
    const el = all[i]!;
    if (el.shadowRoot || el.hasAttribute(attribute)) needed = true;
  }
  if (!needed) return null;
  const VOID = new Set([
    'area',
    'base',
    'br',
    'col',
    'embed',
    'hr',
    'img',
    'input',
    'link',
    'meta',
    'source',
    'track',
    'wbr',
  ]);
  const RAW = new Set(['script', 'style', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript', 'plaintext']);
  const text = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const quoted = (s: string): string => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  const out: string[] = [];
  let length = 0;
  const push = (s: string): void => {
    out.push(s);
    length += s.length;
    if (length > maxChars) throw new Error('too large');
  };
  const childrenOf = (el: Element): ArrayLike<Node> => {
    if (el.shadowRoot) return el.shadowRoot.childNodes;
    if (el.localName === 'slot') {
      const assigned = (el as HTMLSlotElement).assignedNodes({ flatten: true });
      if (assigned.length > 0) return assigned;
    }
    if (el.localName === 'template') return (el as HTMLTemplateElement).content.childNodes;
    return el.childNodes;
  };
  const visit = (node: Node, raw: boolean): void => {
    if (node.nodeType === Node.TEXT_NODE) return push(raw ? (node as Text).data : text((node as Text).data));
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    const el = node as Element;
    const tag = el.localName;
    // A flattened shadow root's slots are not elements of the page's content: their nodes take their place.
    const transparent = tag === 'slot';
    if (!transparent) {
      push(`<${tag}`);
      for (const a of Array.from(el.attributes)) push(` ${a.name}="${quoted(a.value)}"`);
      push(el.shadowRoot ? ` ${hostAttribute}="">` : '>');
    }
    if (VOID.has(tag)) return;
    const children = childrenOf(el);
    for (let i = 0; i < children.length; i++) visit(children[i]!, RAW.has(tag));
    if (!transparent) push(`</${tag}>`);
    const frame = el.getAttribute(attribute);
    if (tag === 'iframe' && frame) push(`<!--${attribute}:${frame}-->`);
  };
  try {
    if (bodyOnly) {
      // A frame's body children only: its document becomes a block of the page, not a second body.
      const children = document.body?.childNodes ?? [];
      for (let i = 0; i < children.length; i++) visit(children[i]!, false);
    } else {
      if (document.doctype) push(`<!DOCTYPE ${document.doctype.name}>`);
      visit(document.documentElement, false);
    }
  } catch {
    return null;
  }
  return out.join('');
}

/**
 * A function and its argument as a script for `evaluate`. Run from source (tsx), functions carry calls to
 * esbuild's `__name` helper, which the page does not have: the script defines it as a no-op.
 */
export function inPage<A>(fn: (arg: A) => unknown, arg: A): string {
  return `(() => { const __name = (f) => f; return (${fn.toString()})(${JSON.stringify(arg)}); })()`;
}

/** Child frames to inline, breadth first, within MAX_FRAMES and MAX_FRAME_DEPTH, each marked in its parent. */
async function markFrames(page: Page): Promise<Map<Frame, string>> {
  const ids = new Map<Frame, string>();
  let level: Frame[] = [page.mainFrame()];
  for (let depth = 1; depth <= MAX_FRAME_DEPTH && level.length > 0; depth++) {
    const next: Frame[] = [];
    for (const parent of level) {
      for (const child of parent.childFrames()) {
        if (ids.size >= MAX_FRAMES || child.isDetached()) continue;
        const id = String(ids.size + 1);
        const element = await child.frameElement().catch(() => null);
        if (!element) continue;
        await element.evaluate(
          (el, [name, value]) => (el as Element).setAttribute(name!, value!),
          [FRAME_ATTRIBUTE, id],
        );
        ids.set(child, id);
        next.push(child);
      }
    }
    level = next;
  }
  return ids;
}

/** The page's HTML for the content pipeline (see the top of this file). */
export async function captureHtml(page: Page, options: CaptureOptions): Promise<string> {
  const frames = options.iframes ? await markFrames(page).catch(() => new Map<Frame, string>()) : new Map();
  const serialize = (frame: Frame, bodyOnly: boolean): Promise<string | null> =>
    frame
      .evaluate(
        inPage(serializeInPage, {
          bodyOnly,
          maxChars: options.maxChars,
          attribute: FRAME_ATTRIBUTE,
          hostAttribute: SHADOW_HOST_ATTRIBUTE,
        }),
      )
      .catch(() => null) as Promise<string | null>;
  const main = await serialize(page.mainFrame(), false);
  if (main === null) return page.content();
  const bodies = new Map<string, { src: string; html: string }>();
  for (const [frame, id] of frames) {
    const html = await serialize(frame, true);
    if (html !== null) bodies.set(id, { src: frame.url(), html });
  }
  const marker = new RegExp(`<!--${FRAME_ATTRIBUTE}:(\\d+)-->`, 'g');
  // A frame's document comes in where its iframe stands; its own frames' documents within it.
  const inline = (html: string, depth: number): string =>
    depth > MAX_FRAME_DEPTH
      ? html
      : html.replace(marker, (_all, id: string) => {
          const body = bodies.get(id);
          if (!body) return '';
          const src = body.src.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
          return `<div ${FRAME_ATTRIBUTE}="${src}">${inline(body.html, depth + 1)}</div>`;
        });
  return inline(main, 1);
}
