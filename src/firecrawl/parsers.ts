import type { DocumentLayoutOption } from '../schemas/document-layout.js';
import { refuseAt } from './field-errors.js';
import type { FcScrapeOptions } from './schemas/jobs.js';

/** The fields of Firecrawl's PDF parser object. */
const PDF_FIELDS = ['type', 'mode', 'maxPages', 'pages', 'pageMarkdown', 'blocks', 'pageMarkers'];
const LAYOUT_FIELDS = ['pages', 'pageMarkdown', 'blocks', 'pageMarkers'] as const;
/** The most pages a PDF parser may ask for, as Firecrawl bounds `maxPages`. */
const MAX_PDF_PAGES = 10_000;

/**
 * Firecrawl's `parsers`: `"pdf"` or `{type: "pdf", mode, maxPages, pages, pageMarkdown, blocks, pageMarkers}`,
 * and `"image"` or `{type: "image"}` (accepted; named in the `warning` by noEffectFields). A PDF is parsed
 * from its text layer unless a list without "pdf" is given (page-options.ts `parsesPdf`); a PDF parser sets
 * the page limit and what comes besides the Markdown (`pageMarkdown` is Firecrawl's older name of `pages`). `mode` `fast` and `auto` both
 * read the text layer; `ocr` is a 400, as this server has no OCR.
 *
 * An entry that is none of these is a 400 whose `details` point at the entry (`["parsers", i]`), as
 * Firecrawl reports a value that matches no member of its union, with this server's reason as the message.
 */
export function documentParsingOf(
  o: FcScrapeOptions,
  prefix: string,
): { maxPages?: number; layout?: DocumentLayoutOption } {
  let maxPages: number | undefined;
  const layout: DocumentLayoutOption = {};
  for (const [i, parser] of (o.parsers ?? []).entries()) {
    const field = `${prefix}parsers[${i}]`;
    const bad = (why: string): never => refuseAt(prefix, ['parsers', i], 'invalid_union', `${field}${why}`);
    if (parser === 'pdf' || parser === 'image') continue;
    if (typeof parser !== 'object' || parser === null || Array.isArray(parser))
      bad(': must be "pdf", "image", {type: "pdf", ...} or {type: "image"}');
    const p = parser as Record<string, unknown>;
    if (p.type !== 'pdf' && p.type !== 'image') bad('.type: unknown parser: "pdf" or "image"');
    const fields = p.type === 'pdf' ? PDF_FIELDS : ['type'];
    for (const key of Object.keys(p)) if (!fields.includes(key)) bad(`.${key}: unknown field`);
    if (p.mode === 'ocr') {
      const message = `${field}.mode: ocr is not available: this server has no OCR; use fast or auto`;
      refuseAt(prefix, ['parsers', i, 'mode'], 'custom', message);
    }
    if (p.mode !== undefined && p.mode !== 'fast' && p.mode !== 'auto')
      bad('.mode: must be "fast" or "auto" ("ocr" is not available here)');
    if (p.maxPages !== undefined) {
      const n = p.maxPages;
      if (!Number.isInteger(n) || (n as number) < 1 || (n as number) > MAX_PDF_PAGES)
        bad(`.maxPages: must be an integer from 1 to ${MAX_PDF_PAGES}`);
      maxPages = n as number;
    }
    for (const key of LAYOUT_FIELDS) {
      if (p[key] === undefined) continue;
      if (typeof p[key] !== 'boolean') bad(`.${key}: must be a boolean`);
      if (p[key]) layout[key === 'pageMarkdown' ? 'pages' : key] = true;
    }
  }
  return { maxPages, ...(Object.keys(layout).length > 0 ? { layout } : {}) };
}
