import type { PageKind } from './page-kind.js';

/**
 * Main content of a forum thread, a product, a listing or a service page says a thing once; two kinds of copy
 * are left out, both found word for word:
 * - a run of blocks (a heading and its paragraph, up to four blocks) repeated right after itself: a carousel's
 *   cloned slides, a section printed once per screen size;
 * - a paragraph found exactly twice anywhere (forums, products and `other` pages): a reply quoting an earlier
 *   post, the mobile and desktop copies of a product description. A paragraph found three times or more
 *   apart is a field every item of the page repeats (each variant's one description) and stays.
 * Articles and docs keep every repeat: a meal plan's repeated servings, the same sentence under each
 * language's tab. Only text of a sentence's length is compared; code always stays, and only plain paragraphs
 * and quotes count as paragraphs (headings, list items, tables and indented continuations are structure).
 * Linear in the Markdown.
 */
export function withoutRepeatedParagraphs(markdown: string, kind: PageKind): string {
  if (!COPIES_REPEAT.has(kind)) return markdown;
  const all = blocksOf(markdown);
  const blocks = withoutRepeatedRuns(all);
  const count = new Map<string, number>();
  if (PARAGRAPHS_ONCE.has(kind))
    for (const { key } of blocks) if (key !== null) count.set(key, (count.get(key) ?? 0) + 1);
  const seen = new Set<string>();
  const kept = blocks.filter(({ key }) => {
    if (key === null || count.get(key) !== 2) return true;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return kept.length === all.length ? markdown : kept.map((b) => b.text).join('\n\n');
}

interface Block {
  text: string;
  /** Its text as a paragraph, or null when it is structure or code. */
  key: string | null;
  /** Its text whatever it is (heading and list marks left out), or null for code. */
  run: string | null;
}

/** The longest run of blocks compared with the run right before it. */
const MAX_RUN = 4;

/** Each run of blocks that repeats the run right before it, left out (so only the first copy stays). */
function withoutRepeatedRuns(blocks: Block[]): Block[] {
  const kept: Block[] = [];
  for (const block of blocks) {
    kept.push(block);
    for (let size = 1; size <= MAX_RUN && 2 * size <= kept.length; size++) {
      let length = 0;
      let same = true;
      for (let i = kept.length - size; i < kept.length && same; i++) {
        const run = kept[i]!.run;
        same = run !== null && run === kept[i - size]!.run;
        length += run?.length ?? 0;
      }
      if (same && length >= MIN_SENTENCE) {
        kept.length -= size;
        break;
      }
    }
  }
  return kept;
}

const COPIES_REPEAT = new Set<PageKind>(['forum', 'product', 'listing', 'other']);
const PARAGRAPHS_ONCE = new Set<PageKind>(['forum', 'product', 'other']);
/** Shorter than a sentence ("Join date: Aug 2008", "Add to cart") is a label, which rightly repeats. */
const MIN_SENTENCE = 40;

/** The Markdown's blocks (split at blank lines outside code fences), each with its comparable text. */
function blocksOf(markdown: string): Block[] {
  const blocks: Block[] = [];
  let lines: string[] = [];
  let fence: string | null = null;
  let holdsCode = false;
  const flush = (): void => {
    if (lines.length > 0)
      blocks.push({
        text: lines.join('\n'),
        key: holdsCode ? null : comparable(lines),
        run: holdsCode ? null : words(lines.map((line) => line.replace(MARKS, '')).join(' ')),
      });
    lines = [];
    holdsCode = false;
  };
  for (const line of markdown.split('\n')) {
    if (fence !== null) {
      lines.push(line);
      if (line.trimStart().startsWith(fence)) fence = null;
      continue;
    }
    const opens = /^\s*(`{3,}|~{3,})/.exec(line);
    if (opens) {
      fence = opens[1]!;
      holdsCode = true;
    }
    if (line.trim() === '' && !opens) flush();
    else lines.push(line);
  }
  flush();
  return blocks;
}

/** The block's words without quote marks and link targets, or null when it is structure, not a paragraph. */
function comparable(lines: string[]): string | null {
  if (STRUCTURE.test(lines[0]!)) return null;
  const text = words(lines.join(' '));
  return text.length >= MIN_SENTENCE ? text : null;
}

/** Text without quote marks, link targets and runs of whitespace. */
const words = (text: string): string =>
  text
    .replace(/(^|\s)>(?=\s|$)/g, ' ')
    .replace(/\]\([^)]*\)/g, ']')
    .replace(/\s+/g, ' ')
    .trim();

/** Headings, list items, tables and indented lines (a list item's continuation, indented code). */
const STRUCTURE = /^(\s|#|[-*+] |\d+[.)] |\|)/;
/** Heading and list marks at a line's start, so a slide's copy compares equal whatever its markup. */
const MARKS = /^\s*(#{1,6}|[-*+]|\d+[.)])\s/;
