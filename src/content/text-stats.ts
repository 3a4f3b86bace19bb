const WORD = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[\p{L}\p{N}][\p{L}\p{N}\p{M}'’_-]*/gu;

/** Words in the text; each Han/kana character counts as one word, as CJK readers count them. */
export function countWords(text: string): number {
  let count = 0;
  WORD.lastIndex = 0;
  while (WORD.exec(text) !== null) count++;
  return count;
}

/** Minutes at 200 words per minute, rounded up; 0 only for an empty page. */
export function readingTime(words: number): number {
  return Math.ceil(words / 200);
}

/** Markdown reduced to the words a reader sees: no link targets, images, code fences or markup. */
export function markdownToPlainText(markdown: string): string {
  return markdown
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^```.*$/gm, ' ')
    .replace(/^\s*(?:#{1,6}|>|[-*+]|\d+\.)\s+/gm, '')
    .replace(/^\|?[\s|:-]+\|[\s|:-]*$/gm, ' ')
    .replace(/[*~`\\]+/g, '')
    .replace(/\|/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * A short summary: the first paragraph of the Markdown that reads like prose (not a heading, list,
 * table or link row), cut to ~200 characters; else the start of the whole text; null when empty.
 */
export function markdownExcerpt(markdown: string): string | null {
  for (const block of markdown.split(/\n{2,}/)) {
    if (/^(?:#|- |\d+\. |\||>|```|!\[)/.test(block.trimStart())) continue;
    const text = markdownToPlainText(block);
    if (text.length >= 60 && /[.!?。！？]/.test(text)) return excerptOf(text);
  }
  return excerptOf(markdownToPlainText(markdown));
}

/** The first ~200 characters of the text, cut at a word boundary; null when there is no text. */
export function excerptOf(text: string, max = 200): string | null {
  if (text === '') return null;
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
