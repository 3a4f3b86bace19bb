import { ERRORS } from '../../src/errors.js';
import type { ErrorCode, ErrorSpec } from '../../src/errors.js';

const CODES = (Object.entries(ERRORS) as [ErrorCode, ErrorSpec][]).sort(
  ([a, x], [b, y]) => x.status - y.status || a.localeCompare(b),
);

/** A whole request's codes with their HTTP status; per-item codes are never an HTTP answer, so without. */
function table(codes: [ErrorCode, ErrorSpec][], status: boolean): string[] {
  return status
    ? [
        '| HTTP | `code` | When |',
        '| --- | --- | --- |',
        ...codes.map(([code, spec]) => `| ${spec.status} | \`${code}\` | ${spec.doc} |`),
      ]
    : ['| `code` | When |', '| --- | --- |', ...codes.map(([code, spec]) => `| \`${code}\` | ${spec.doc} |`)];
}

/** Markdown of docs/reference/errors.md, from the error table (src/errors.ts); prettier aligns it. */
export function renderErrors(): string {
  const whole = CODES.filter(([, spec]) => !spec.perItem);
  const perItem = CODES.filter(([, spec]) => spec.perItem);
  return [
    '# Errors',
    '',
    '<!-- Generated from the error table in src/errors.ts by `npm run docs`: edit the table, not this page. -->',
    '',
    'Every failure of a whole request is `{"success": false, "code": "...", "error": "..."}`; `error` is a',
    'sentence that names the offending field or target. `code` is stable: it is never renamed.',
    '',
    ...table(whole, true),
    '',
    "Firecrawl's routes (`/v1/...`, `/v2/...`) answer the 502 codes with status 500, as Firecrawl does: its SDK",
    'retries a 502 three times, fetching the failing page again. The `code` is the same.',
    '',
    "Inside batches (extract results, crawl `error` events, search results' `error`), per-item failures use the",
    'same codes, plus these, which only ever appear per item:',
    '',
    ...table(perItem, false),
    '',
    "**Unknown fields are rejected** with a 400 naming them (`unknown field 'onlyMaincontent'`), so typos never",
    "pass silently. The only exceptions are `origin` and `integration`, which Firecrawl's SDKs put in every body;",
    "they are accepted and ignored. On the Firecrawl routes every field of Firecrawl's API is known: the ones this",
    'server cannot serve are 400s naming them',
    '([Firecrawl compatibility](firecrawl.md#refused-and-no-effect-fields-at-a-glance) lists both kinds). Types',
    'are not coerced (`"timeout": "1000"` is a 400).',
    '',
  ].join('\n');
}
