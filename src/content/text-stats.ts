const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;

/** ASCII classes for countWords: 1 a letter or digit, 2 a joiner inside a word (`'`, `-`, `_`), 0 neither. */
const ASCII_WORD = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  ASCII_WORD[c] = /[A-Za-z0-9]/.test(ch) ? 1 : ch === "'" || ch === '-' || ch === '_' ? 2 : 0;
}

/**
 * Words in the text: runs of letters/digits (with inner apostrophes, hyphens and underscores);
 * each Han/kana character counts as one word, as CJK readers count them. ASCII is classified
 * from a table, without regexes, which keeps this linear and cheap on long pages. Counting stops at `atMost`.
 */
export function countWords(text: string, atMost = Number.POSITIVE_INFINITY): number {
  if (atMost <= 0) return 0;
  let count = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let word: boolean;
    if (c < 128) {
      const kind = ASCII_WORD[c]!;
      word = kind === 1 || (inWord && kind === 2);
    } else {
      const ch = String.fromCodePoint(text.codePointAt(i)!);
      if (ch.length === 2) i++;
      if (CJK.test(ch)) {
        if (++count >= atMost) return count;
        inWord = false;
        continue;
      }
      word = WORD_CHAR.test(ch) || (inWord && ch === '’');
    }
    if (word && !inWord && ++count >= atMost) return count;
    inWord = word;
  }
  return count;
}

/**
 * The words a reader sees in the Markdown (countWords of withoutUrls) up to `atMost`: read a run of
 * paragraphs at a time (a link's target never spans a blank line), so a long page is read only as far as
 * needed.
 */
export function countWordsUpTo(markdown: string, atMost: number): number {
  let count = 0;
  for (let start = 0; start < markdown.length && count < atMost;) {
    const blank = markdown.indexOf('\n\n', start + WORDS_CHUNK);
    const end = blank < 0 ? markdown.length : blank;
    count += countWords(withoutUrls(markdown.slice(start, end)), atMost - count);
    start = end;
  }
  return count;
}
const WORDS_CHUNK = 2000;

/** Minutes at 200 words per minute, rounded up; 0 only for an empty page. */
export function readingTime(words: number): number {
  return Math.ceil(words / 200);
}

/** Markdown without link targets and image URLs, so counting words counts only what a reader sees. */
export function withoutUrls(markdown: string): string {
  return markdown.replace(/\]\((?:[^()\s]|\([^()]*\))*\)/g, ']');
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
  // Block by block from the start (the first paragraph of prose usually comes early): no split of the whole.
  const breaks = /\n{2,}/g;
  for (let start = 0; start <= markdown.length;) {
    const found = breaks.exec(markdown);
    const end = found ? found.index : markdown.length;
    const block = markdown.slice(start, end);
    start = found ? breaks.lastIndex : markdown.length + 1;
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
