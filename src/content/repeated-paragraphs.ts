import type { PageKind } from './page-kind.js';

/**
 * Main content of a forum thread, a product or a service page says a sentence once: a paragraph found twice
 * word for word is a copy (a reply quoting an earlier post, the mobile and desktop copies of a product
 * description), and the second is left out. A paragraph found three times or more is a field every item of
 * the page repeats (each variant's one description) and stays. Articles, docs and listings keep every repeat:
 * a meal plan's repeated servings, a procedure's repeated step, two items with one summary.
 * Only plain paragraphs and quotes of a sentence's length are compared; headings, list items, tables, code and
 * indented continuations are structure and always stay. Linear in the Markdown.
 */
export function withoutRepeatedParagraphs(markdown: string, kind: PageKind): string {
  if (!COPIES_REPEAT.has(kind)) return markdown;
  const blocks = blocksOf(markdown);
  const count = new Map<string, number>();
  for (const { key } of blocks) if (key !== null) count.set(key, (count.get(key) ?? 0) + 1);
  const seen = new Set<string>();
  const kept = blocks.filter(({ key }) => {
    if (key === null || count.get(key) !== 2) return true;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return kept.length === blocks.length ? markdown : kept.map((b) => b.text).join('\n\n');
}

const COPIES_REPEAT = new Set<PageKind>(['forum', 'product', 'other']);
/** Shorter than a sentence ("Join date: Aug 2008", "Add to cart") is a label, which rightly repeats. */
const MIN_SENTENCE = 40;

/** The Markdown's blocks (split at blank lines outside code fences), each with its comparable text. */
function blocksOf(markdown: string): { text: string; key: string | null }[] {
  const blocks: { text: string; key: string | null }[] = [];
  let lines: string[] = [];
  let fence: string | null = null;
  let holdsCode = false;
  const flush = (): void => {
    if (lines.length > 0) blocks.push({ text: lines.join('\n'), key: holdsCode ? null : comparable(lines) });
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
  const text = lines
    .join(' ')
    .replace(/(^|\s)>(?=\s|$)/g, ' ')
    .replace(/\]\([^)]*\)/g, ']')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length >= MIN_SENTENCE ? text : null;
}

/** Headings, list items, tables and indented lines (a list item's continuation, indented code). */
const STRUCTURE = /^(\s|#|[-*+] |\d+[.)] |\|)/;
