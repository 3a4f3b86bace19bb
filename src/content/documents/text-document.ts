import { escapeText } from 'entities';
import type { MediaKind } from '../parse/media-type.js';
import { countWords, excerptOf, readingTime } from '../text-stats.js';

export interface TextContent {
  markdown: string;
  html: string;
  wordCount: number;
  readingTime: number;
  excerpt: string | null;
}

const PRETTY_PRINT_LIMIT = 2 * 1024 * 1024;

function fence(text: string, language: string): string {
  const longest = Math.max(2, ...(text.match(/`{3,}/g) ?? []).map((run) => run.length));
  const marks = '`'.repeat(longest + 1);
  return `${marks}${language}\n${text.replace(/\s+$/, '')}\n${marks}`;
}

/** Non-HTML text responses as Markdown: JSON and XML fenced (JSON pretty-printed), plain text and Markdown as-is. */
export function textDocument(text: string, kind: Exclude<MediaKind, 'html' | 'binary'>): TextContent {
  let markdown: string;
  if (kind === 'json') {
    let pretty = text;
    if (text.length <= PRETTY_PRINT_LIMIT) {
      try {
        pretty = JSON.stringify(JSON.parse(text), null, 2);
      } catch {
        // Not valid JSON despite the header: show it as served.
      }
    }
    markdown = fence(pretty, 'json');
  } else if (kind === 'xml') {
    markdown = fence(text, 'xml');
  } else {
    markdown = text.replace(/\r\n?/g, '\n').trim();
  }
  const words = countWords(text);
  return {
    markdown,
    html: `<pre>${escapeText(text)}</pre>`,
    wordCount: words,
    readingTime: readingTime(words),
    excerpt: excerptOf(text.replace(/\s+/g, ' ').trim()),
  };
}
