import { escapeAttribute, escapeText } from 'entities';
import type { AnyNode, Element } from './parse/dom.js';
import { isTag } from './parse/dom.js';
import { imageSource, isDataUri } from './images.js';
import { isInvisible } from './parse/visibility.js';
import { absoluteSrcset, absoluteUrl } from './parse/urls.js';

export interface CleanHtmlOptions {
  base: URL;
  removeBase64Images: boolean;
  skip?: (el: Element) => boolean;
  /** Concealed elements to serialize anyway (main content the author collapsed). */
  reveal?: ReadonlySet<Element>;
}

const VOID = new Set(['area', 'br', 'col', 'hr', 'img', 'source', 'track', 'wbr']);
const URL_ATTRIBUTES = new Set(['href', 'src', 'poster', 'cite', 'action', 'longdesc']);

/**
 * Serializes subtrees as cleaned HTML: no scripts, styles, comments, hidden or skipped elements,
 * event-handler attributes or inline styles; every URL absolute.
 */
export function toCleanHtml(roots: AnyNode[], options: CleanHtmlOptions): string {
  let out = '';
  const write = (node: AnyNode): void => {
    if (node.type === 'text') {
      out += escapeText(node.data);
      return;
    }
    if (!isTag(node)) {
      if ('children' in node) node.children.forEach(write);
      return;
    }
    if ((isInvisible(node) && !options.reveal?.has(node)) || options.skip?.(node)) return;
    if (node.name === 'img') {
      const src = imageSource(node);
      if (!src || (options.removeBase64Images && isDataUri(src))) return;
    }
    out += `<${node.name}${attributes(node, options)}>`;
    if (VOID.has(node.name)) return;
    node.children.forEach(write);
    out += `</${node.name}>`;
  };
  roots.forEach(write);
  return out.trim();
}

function attributes(el: Element, options: CleanHtmlOptions): string {
  let out = '';
  for (const [name, raw] of Object.entries(el.attribs)) {
    if (name.startsWith('on') || name === 'style') continue;
    let value = raw;
    if (el.name === 'img' && name === 'src') value = imageSource(el) ?? raw;
    if (URL_ATTRIBUTES.has(name) && !(name === 'src' && isDataUri(value))) {
      value = absoluteUrl(value, options.base) ?? '';
      if (value === '') continue;
    } else if (name === 'srcset') {
      value = absoluteSrcset(value, options.base);
    }
    out += value === '' ? ` ${name}` : ` ${name}="${escapeAttribute(value)}"`;
  }
  return out;
}
