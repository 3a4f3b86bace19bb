import type { AnyNode, Element } from '../parse/dom.js';
import { collapseWhiteSpace, isTag } from '../parse/dom.js';
import { isBlockElement } from '../parse/elements.js';
import { imageSource, isDataUri } from '../images.js';
import { renderTable } from './markdown-table.js';
import { isInvisible } from '../parse/visibility.js';
import { absoluteUrl } from '../parse/urls.js';

export interface MarkdownOptions {
  base: URL;
  removeBase64Images: boolean;
  /** Elements to leave out with their subtree (excludeTags, main-content boilerplate). */
  skip?: (el: Element) => boolean;
  /** Concealed elements to render anyway (main content the author collapsed: accordions, tabs). */
  reveal?: ReadonlySet<Element>;
}

const HEADINGS: Record<string, number> = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };
/**
 * Lists and quotes nested deeper than this render flush with their parent instead of indenting further:
 * every line of a nested block carries its containers' prefixes, so without a cap the output of a page of
 * N lines nested D deep grows as N x D (a hostile page of 150,000 items 250 lists deep gave 74 MB).
 */
const MAX_INDENTED_NESTING = 10;
/** Private-use markers around a code block's nonce and index; the code is swapped back in at the end. */
const CODE_OPEN = '\uE001';
const CODE_CLOSE = '\uE002';

/**
 * Renders DOM subtrees as GitHub-flavoured Markdown: ATX headings, fenced code with language,
 * GFM tables, nested lists, absolute link and image URLs. Reads the tree; never mutates it.
 */
export function toMarkdown(roots: AnyNode[], options: MarkdownOptions): string {
  const renderer = new MarkdownRenderer(options);
  const body = roots.map((root) => renderer.block(renderer.node(root))).join('\n\n');
  return renderer.finish(body);
}

export class MarkdownRenderer {
  /** Whether the text emitted last ended in white space (so the next leading space is dropped). */
  private spaced = true;
  /** Whether nothing has been written on the current line yet (line-start markers need escaping). */
  private lineStart = true;
  /** Inside <a> or a table cell: blocks flatten to spaces, headings lose their #. */
  private inlineOnly = 0;
  /** Inside a link's text: its own brackets would end the link text early for many Markdown readers. */
  private inLink = 0;
  private readonly codeBlocks: string[] = [];
  /** Part of every code block's marker: a page's own text cannot spell a marker and be swapped for code. */
  private readonly nonce = Math.random().toString(36).slice(2, 10);
  /** Lists and quotes open around the current node. */
  private nesting = 0;

  constructor(private readonly options: MarkdownOptions) {}

  private hidden(el: Element): boolean {
    return isInvisible(el) && !this.options.reveal?.has(el);
  }

  finish(markdown: string): string {
    const lines = stripTrailingBlanks(markdown);
    const text = lines.includes('\n\n\n') ? lines.replace(/\n{3,}/g, '\n\n') : lines;
    if (this.codeBlocks.length === 0) return text.trim();
    const marker = `${CODE_OPEN}${this.nonce}:(\\d+)${CODE_CLOSE}`;
    return text
      .replace(
        new RegExp(`^([ >]*)(- |\\d+\\. )?${marker}`, 'gm'),
        (_, lead: string, item = '', i: string) => {
          // Code inside a list item or quote keeps that container's indentation on every line.
          const indent = lead + ' '.repeat(item.length);
          return lead + item + this.codeBlocks[Number(i)]!.replace(/\n/g, `\n${indent}`);
        },
      )
      .replace(new RegExp(marker, 'g'), (_, i: string) => `\n${this.codeBlocks[Number(i)]!}\n`)
      .trim();
  }

  children(node: AnyNode): string {
    if (!('children' in node)) return '';
    let out = '';
    for (const child of node.children) out += this.node(child);
    return out;
  }

  /** Wraps finished block content in paragraph breaks (or a space when only inline output is allowed). */
  block(content: string): string {
    this.spaced = true;
    this.lineStart = true;
    const text = trimWhitespace(content);
    if (text === '') return '';
    return this.inlineOnly > 0 ? ` ${text.replace(/\s*\n\s*/g, ' ')} ` : `\n\n${text}\n\n`;
  }

  node(node: AnyNode): string {
    if (node.type === 'text') return this.text(node.data);
    if (!isTag(node)) return 'children' in node ? this.children(node) : '';
    if (this.hidden(node) || this.options.skip?.(node)) return '';
    return this.element(node);
  }

  private text(data: string): string {
    let text = collapseWhiteSpace(data);
    if (this.spaced && text.startsWith(' ')) text = text.slice(1);
    if (text === '') return '';
    const atLineStart = this.lineStart;
    this.spaced = text.endsWith(' ');
    this.lineStart = false;
    return escapeMarkdown(this.inLink > 0 ? text.replace(/[[\]]/g, '') : text, atLineStart);
  }

  private element(el: Element): string {
    const name = el.name;
    const level = HEADINGS[name];
    if (level !== undefined) return this.heading(el, level);
    switch (name) {
      case 'br':
        this.spaced = true;
        this.lineStart = true;
        return this.inlineOnly > 0 ? ' ' : '\n';
      case 'hr':
        return this.inlineOnly > 0 ? ' ' : this.block('---');
      case 'pre':
        return this.codeBlock(el);
      case 'code':
      case 'kbd':
      case 'samp':
      case 'tt':
        return this.inlineCode(el);
      case 'a':
        return this.link(el);
      case 'img':
        return this.image(el);
      case 'strong':
      case 'b':
        return this.wrap(el, '**');
      case 'em':
      case 'i':
      case 'cite':
      case 'dfn':
        return this.wrap(el, '*');
      case 'del':
      case 's':
      case 'strike':
        return this.wrap(el, '~~');
      case 'ul':
      case 'ol':
        return this.list(el);
      case 'li':
        return this.block(this.children(el));
      case 'blockquote':
        return this.blockquote(el);
      case 'table':
        return this.inlineOnly > 0 ? this.block(this.children(el)) : this.block(renderTable(el, this));
      case 'td':
      case 'th':
        return ` ${this.children(el)} `;
      default:
        return isBlockElement(el) ? this.block(this.children(el)) : this.children(el);
    }
  }

  /**
   * A list item's content as `block(content).trim()` gives it: trimWhitespace already removes all that trim()
   * would, so the blank lines block() puts around it are not added and taken off again.
   */
  private itemBlock(content: string): string {
    this.spaced = true;
    this.lineStart = true;
    return trimWhitespace(content);
  }

  /** Renders a subtree flattened to one line (table cells, link text). */
  inline(el: AnyNode): string {
    this.inlineOnly++;
    this.spaced = true;
    try {
      return collapseWhiteSpace(this.children(el)).trim();
    } finally {
      this.inlineOnly--;
    }
  }

  private heading(el: Element, level: number): string {
    const text = this.inline(el);
    if (this.inlineOnly > 0) return ` ${text} `;
    return this.block(text ? `${'#'.repeat(level)} ${text}` : '');
  }

  private wrap(el: Element, mark: string): string {
    const content = this.children(el);
    // Index scans, not a regex: a lazy match before trailing white space is quadratic in long runs of spaces.
    let start = 0;
    let end = content.length;
    while (start < end && /\s/.test(content[start]!)) start++;
    while (end > start && /\s/.test(content[end - 1]!)) end--;
    const inner = content.slice(start, end);
    if (inner === '' || inner.includes('\n')) return content;
    return `${content.slice(0, start)}${mark}${inner}${mark}${content.slice(end)}`;
  }

  private inlineCode(el: Element): string {
    if (el.parent && isTag(el.parent) && el.parent.name === 'pre') return this.children(el);
    const code = rawText(el).replace(/\s+/g, ' ');
    if (code.trim() === '') return '';
    this.spaced = false;
    this.lineStart = false;
    const fence = code.includes('`') ? '``' : '`';
    const pad = fence.length > 1 || code.startsWith('`') || code.endsWith('`') ? ' ' : '';
    return `${fence}${pad}${code}${pad}${fence}`;
  }

  private codeBlock(el: Element): string {
    const code = rawText(el).replace(/^\n/, '').replace(/\s+$/, '');
    if (code === '') return '';
    if (this.inlineOnly > 0) return ` ${code.replace(/\s+/g, ' ')} `;
    const longest = Math.max(2, ...(code.match(/`{3,}/g) ?? []).map((run) => run.length));
    const fence = '`'.repeat(longest + 1);
    this.codeBlocks.push(`${fence}${codeLanguage(el)}\n${code}\n${fence}`);
    return this.block(`${CODE_OPEN}${this.nonce}:${this.codeBlocks.length - 1}${CODE_CLOSE}`);
  }

  private link(el: Element): string {
    const href = absoluteUrl(el.attribs.href, this.options.base);
    const linked = href !== null && !href.startsWith('javascript:');
    if (linked) this.inLink++;
    const text = this.inline(el);
    if (linked) this.inLink--;
    this.spaced = false;
    this.lineStart = false;
    if (text === '' || !linked) return text;
    return `[${text}](${escapeUrl(href)})`;
  }

  private image(el: Element): string {
    const src = imageSource(el);
    if (!src) return '';
    if (isDataUri(src) && this.options.removeBase64Images) return '';
    const url = isDataUri(src) ? src : absoluteUrl(src, this.options.base);
    if (!url) return '';
    const alt = (el.attribs.alt ?? '').replace(/\s+/g, ' ').replace(/[[\]]/g, '').trim();
    this.spaced = false;
    this.lineStart = false;
    return `![${alt}](${escapeUrl(url)})`;
  }

  private list(el: Element): string {
    if (this.inlineOnly > 0) return ` ${this.children(el)} `;
    this.nesting++;
    try {
      return this.listItems(el);
    } finally {
      this.nesting--;
    }
  }

  private listItems(el: Element): string {
    const flush = this.nesting > MAX_INDENTED_NESTING;
    const ordered = el.name === 'ol';
    let number = Number.parseInt(el.attribs.start ?? '1', 10);
    if (!Number.isFinite(number)) number = 1;
    const items: string[] = [];
    for (const child of el.children) {
      if (!isTag(child) || this.hidden(child) || this.options.skip?.(child)) continue;
      const content =
        child.name === 'li'
          ? this.itemBlock(this.children(child))
          : child.name === 'ul' || child.name === 'ol'
            ? this.list(child).trim()
            : this.block(this.node(child)).trim();
      if (content === '') continue;
      if (child.name === 'ul' || child.name === 'ol') {
        // A list directly inside a list (invalid but common): nest it under the previous item.
        const pad = flush ? '' : '  ';
        const nested = flush ? content : content.replace(/\n/g, '\n  ');
        items.push(items.length > 0 ? `${items.pop()}\n${pad}${nested}` : nested);
        continue;
      }
      const marker = ordered ? `${number++}. ` : '- ';
      if (!content.includes('\n')) {
        items.push(marker + content);
        continue;
      }
      // A nested list right after the item's text stays tight; other paragraphs keep their blank line.
      const tight = content.replace(/\n\n(?=- |\d+\. )/g, '\n');
      items.push(marker + (flush ? tight : tight.replace(/\n/g, `\n${' '.repeat(marker.length)}`)));
    }
    return this.block(items.join('\n'));
  }

  private blockquote(el: Element): string {
    this.nesting++;
    let content: string;
    try {
      content = this.block(this.children(el)).trim();
    } finally {
      this.nesting--;
    }
    if (this.inlineOnly > 0) return ` ${content} `;
    if (this.nesting >= MAX_INDENTED_NESTING) return this.block(content);
    return this.block(content.replace(/^/gm, '> ').replace(/^> $/gm, '>'));
  }
}

/** Text of a subtree exactly as written (for code), skipping invisible elements. */
function rawText(node: AnyNode): string {
  if (node.type === 'text') return node.data;
  if (isTag(node)) {
    if (node.name === 'br') return '\n';
    if (isInvisible(node)) return '';
  }
  if (!('children' in node)) return '';
  let out = '';
  for (const child of node.children) out += rawText(child);
  return out;
}

const LANGUAGE_CLASS = /(?:^|\s)(?:language-|lang-|highlight-source-|highlight-|brush:\s*)([\w+#.-]+)/i;

function codeLanguage(pre: Element): string {
  const candidates: Element[] = [pre];
  for (const child of pre.children) if (isTag(child) && child.name === 'code') candidates.unshift(child);
  for (const el of candidates) {
    const explicit = el.attribs['data-lang'] ?? el.attribs['data-language'];
    if (explicit && /^[\w+#.-]+$/.test(explicit)) return explicit.toLowerCase();
    const match = LANGUAGE_CLASS.exec(el.attribs.class ?? '');
    if (match && match[1] !== 'none' && match[1] !== 'plaintext') return match[1]!.toLowerCase();
  }
  return '';
}

/** Escapes characters that would otherwise change the Markdown structure of plain text. */
const NEEDS_ESCAPE = /[\\`*_\]]/;

function escapeMarkdown(text: string, atLineStart: boolean): string {
  const escaped = !NEEDS_ESCAPE.test(text)
    ? text
    : text
        .replace(/([\\`*])/g, '\\$1')
        .replace(/(^|\s)_|_(?=\s|$)/g, (m) => m.replace('_', '\\_'))
        .replace(/\](?=\()/g, '\\]');
  if (!atLineStart) return escaped;
  // Text starting with a printable character that is no marker (a letter, most often) has nothing to escape.
  const first = escaped.charCodeAt(0);
  if (first > 32 && first < 127 && !isMarkStart(first)) return escaped;
  return escaped.replace(/^(\s*)([#>+-]|\d+\.)(?=\s|$)/, (_, ws: string, mark: string) =>
    mark.endsWith('.') ? `${ws}${mark.slice(0, -1)}\\.` : `${ws}\\${mark}`,
  );
}

/** The first characters of the line-start markers escapeMarkdown escapes: `# > + -` and digits. */
const isMarkStart = (code: number): boolean =>
  code === 35 || code === 62 || code === 43 || code === 45 || (code >= 48 && code <= 57);

/**
 * Drops spaces and tabs at the end of every line. A regex (`[ \t]+(?=\n|$)`) retries from each space of
 * a run and is quadratic in a long run of spaces; this is one pass per line.
 */
function stripTrailingBlanks(text: string): string {
  if (!hasTrailingBlank(text)) return text;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    let end = line.length;
    while (end > 0 && (line.charCodeAt(end - 1) === 32 || line.charCodeAt(end - 1) === 9)) end--;
    if (end !== line.length) lines[i] = line.slice(0, end);
  }
  return lines.join('\n');
}

/**
 * Whether a line ends in a space or tab. Read from each line break found by `indexOf`, which skips a line's
 * text in a few instructions a character where a regex for a blank before a break stops at every space.
 */
function hasTrailingBlank(text: string): boolean {
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
    const before = text.charCodeAt(i - 1);
    if (before === 32 || before === 9) return true;
  }
  const last = text.charCodeAt(text.length - 1);
  return last === 32 || last === 9;
}

/**
 * String trim of white space (no-break and the other Unicode spaces, and the zero-width space, word joiner
 * and byte-order mark that pages put in "empty" paragraphs to hold them open), without a regex scan of the
 * whole string: a block of nothing else renders nothing.
 */
function trimWhitespace(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

function isSpace(code: number): boolean {
  if (code <= 160) return code === 32 || (code >= 9 && code <= 13) || code === 160;
  return (
    (code >= 0x2000 && code <= 0x200b) ||
    code === 0x1680 ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x2060 ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

function escapeUrl(url: string): string {
  if (!URL_NEEDS_ESCAPE.test(url)) return url;
  return url.replace(/ /g, '%20').replace(/\(/g, '%28').replace(/\)/g, '%29');
}
const URL_NEEDS_ESCAPE = /[ ()]/;
