/**
 * Quotes from a page's own text: the page's Markdown as plain sentences, and where quotes someone (an LLM) gave
 * occur among them, compared after normalizing case, white space, quote marks and dashes. Pure and linear.
 */

/** One sentence of the page: its text without Markdown, and the block (paragraph, item, row) it is part of. */
export interface PageSentence {
  text: string;
  block: number;
}

/** A quote that was not placed in the page, and why. */
export interface DroppedQuote {
  quote: string;
  reason: string;
}

/** Sentences of a page read at most; quotes placed at most and the characters of one. */
const MAX_SENTENCES = 20_000;
const MAX_QUOTES = 100;
const MAX_QUOTE_CHARS = 5000;
/** A quote shorter than this must be a whole sentence (a heading): shorter fragments occur anywhere. */
const MIN_FRAGMENT_CHARS = 20;

/** Text as compared: NFKC, lowercase, straight quotes and hyphens, no emphasis marks, white space collapsed. */
export function normalizeForMatch(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2018\u2019\u201a\u201b\u2032]/g, "'")
    .replace(/[\u201c\u201d\u201e\u201f\u2033]/g, '"')
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/\u2026/g, '...')
    .replace(/[*_`]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * One line of Markdown as the text a reader sees: no heading, quote, list or table marks, links as their text.
 * A page's line can be long: each pattern stops at the next delimiter of its kind (link text holds no bracket,
 * a link's URL no parenthesis, as the Markdown converter writes them), so none rescans the rest of the line
 * from every opening mark.
 */
function plainLine(line: string): string {
  return line
    .replace(/^\s{0,3}(#{1,6}\s+|>\s?)+/, '')
    .replace(/^\s*([-*+]|\d{1,9}[.)])\s+(\[[ xX]\]\s+)?/, '')
    .replace(/!\[([^[\]]*)\]\([^()]*\)/g, '$1')
    .replace(/\[([^[\]]*)\]\([^()]*\)/g, '$1')
    .replace(/\*\*(?=\S)([^*]*?\S)\*\*/g, '$1')
    .replace(/__(?=\S)([^_]*?\S)__/g, '$1')
    .replace(/(^|[^\w*])[*_](?=\S)([^*_]*?\S)[*_](?=[^\w*]|$)/g, '$1$2')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\\([\\`*_{}[\]()#+\-.!|>~])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A table's header rule (`| --- | :-: |`): only pipes, colons, dashes and spaces, with a run of dashes. */
const isTableRule = (line: string): boolean => /^[\s|:-]*$/.test(line) && line.includes('--');
const startsOwnBlock = (line: string): boolean => /^\s{0,3}(#{1,6}\s|[-*+]\s|\d{1,9}[.)]\s|\|)/.test(line);

/**
 * The sentences of a page's Markdown: headings, list items and table rows are blocks of their own, paragraphs are
 * split after `.`, `!` or `?` followed by a capital, digit or quote, code blocks give one sentence per line.
 */
export function sentencesOf(markdown: string): PageSentence[] {
  const sentences: PageSentence[] = [];
  let block = 0;
  let paragraph: string[] = [];
  const push = (text: string, splitSentences: boolean): void => {
    const parts = splitSentences ? text.split(/(?<=[.!?\u2026]["'\u201d\u2019)]?)\s+(?=[^a-z\s])/) : [text];
    for (const part of parts) {
      const trimmed = part.trim();
      if (trimmed && sentences.length < MAX_SENTENCES) sentences.push({ text: trimmed, block });
    }
    block++;
  };
  const flush = (): void => {
    if (paragraph.length > 0) push(paragraph.join(' '), true);
    paragraph = [];
  };
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const marker = /^\s{0,3}(```|~~~)/.exec(line)?.[1];
    if (fence !== null) {
      if (marker === fence) {
        fence = null;
        block++;
      } else if (line.trim() && sentences.length < MAX_SENTENCES)
        sentences.push({ text: line.trim(), block });
      continue;
    }
    if (marker) {
      flush();
      fence = marker;
      continue;
    }
    if (!line.trim()) {
      flush();
      continue;
    }
    if (isTableRule(line)) continue;
    if (startsOwnBlock(line)) {
      flush();
      const row = /^\s*\|/.test(line);
      const text = row
        ? line
            .trim()
            .replace(/^\||\|$/g, '')
            .split('|')
            .map(plainLine)
            .filter(Boolean)
            .join(' | ')
        : plainLine(line);
      push(text, !row && !/^\s{0,3}#/.test(line));
      continue;
    }
    paragraph.push(plainLine(line));
  }
  flush();
  return sentences;
}

/**
 * Where quotes occur among the page's sentences: a quote equal to a sentence is that sentence; a longer
 * fragment found in the page's text brings every sentence it touches (so what is kept is the page's own
 * wording). Quotes not found are dropped with their reason.
 */
export function placeQuotes(
  sentences: PageSentence[],
  quotes: string[],
): { indices: number[]; dropped: DroppedQuote[] } {
  const exact = new Map<string, number>();
  const starts: number[] = [];
  const ends: number[] = [];
  let full = '';
  sentences.forEach((s, i) => {
    const normalized = normalizeForMatch(s.text);
    if (!exact.has(normalized)) exact.set(normalized, i);
    if (i > 0) full += ' ';
    starts.push(full.length);
    full += normalized;
    ends.push(full.length);
  });
  const indices = new Set<number>();
  const dropped: DroppedQuote[] = [];
  for (const quote of quotes.slice(0, MAX_QUOTES)) {
    const normalized = normalizeForMatch(quote.slice(0, MAX_QUOTE_CHARS))
      .replace(/^["']|["']$/g, '')
      .trim();
    const whole = exact.get(normalized);
    if (whole !== undefined) {
      indices.add(whole);
      continue;
    }
    if (normalized.length < MIN_FRAGMENT_CHARS) {
      dropped.push({ quote, reason: 'not a sentence of the page, and too short to place as part of one' });
      continue;
    }
    const at = full.indexOf(normalized);
    if (at < 0) {
      dropped.push({ quote, reason: 'does not occur in the page' });
      continue;
    }
    const end = at + normalized.length;
    for (let i = 0; i < sentences.length && starts[i]! < end; i++) if (ends[i]! > at) indices.add(i);
  }
  if (quotes.length > MAX_QUOTES)
    dropped.push({
      quote: `(${quotes.length - MAX_QUOTES} more)`,
      reason: `past the first ${MAX_QUOTES} quotes`,
    });
  return { indices: [...indices].sort((a, b) => a - b), dropped };
}

/** Sentences in page order: those of one block joined by a space, blocks by a blank line. */
export function joinSentences(sentences: PageSentence[], indices: number[]): string {
  let out = '';
  let previous: PageSentence | null = null;
  for (const i of indices) {
    const s = sentences[i];
    if (!s) continue;
    out += previous === null ? s.text : previous.block === s.block ? ` ${s.text}` : `\n\n${s.text}`;
    previous = s;
  }
  return out;
}
