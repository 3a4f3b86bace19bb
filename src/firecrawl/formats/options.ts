import { BadRequestError } from '../../errors.js';
import { ATTRIBUTE_LIMITS, selectorProblem } from '../../extract/attributes.js';
import type { AttributeQuery } from '../../extract/attributes.js';
import type { PageExtras } from '../page-extras.js';

/**
 * Firecrawl's formats written beside the page document (the SDK's QuestionFormat, HighlightsFormat, QueryFormat,
 * AttributesFormat, and `product` and `menu`), their options checked before anything is fetched.
 */

/** Each format and the fields it takes beside `type`. */
export const EXTRA_FORMAT_FIELDS: Record<string, string[]> = {
  question: ['question'],
  highlights: ['query'],
  query: ['prompt', 'mode'],
  attributes: ['selectors'],
  product: [],
  menu: [],
};

/** Formats only an LLM can write: without one they are refused. */
export const LLM_ONLY_FORMATS = ['question', 'highlights', 'query'];

/** Formats that need a media tool (a video page's audio or video file): this server has none. */
export const MEDIA_FORMATS = new Set(['audio', 'video']);

/** Characters of a question, query or prompt (Firecrawl's own bound). */
const MAX_QUESTION_CHARS = 10_000;

const bad = (field: string, why: string): never => {
  throw new BadRequestError(`${field}: ${why}`);
};

function textOf(value: unknown, field: string): string {
  if (typeof value !== 'string' || !value.trim()) bad(field, 'must be a non-empty string');
  if ((value as string).length > MAX_QUESTION_CHARS)
    bad(field, `must be at most ${MAX_QUESTION_CHARS} characters`);
  return (value as string).trim();
}

/** `selectors: [{selector, attribute}]`, bounded, each selector one css-select can run (checked without a page). */
function selectorsOf(value: unknown, field: string): AttributeQuery[] {
  if (!Array.isArray(value) || value.length === 0)
    bad(field, 'must be a non-empty list of {selector, attribute}');
  const list = value as unknown[];
  if (list.length > ATTRIBUTE_LIMITS.selectors) bad(field, `at most ${ATTRIBUTE_LIMITS.selectors} selectors`);
  return list.map((entry, j) => {
    const at = `${field}[${j}]`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry))
      bad(at, 'must be {selector, attribute}');
    const { selector, attribute, ...rest } = entry as Record<string, unknown>;
    for (const key of Object.keys(rest)) bad(`${at}.${key}`, 'unknown field');
    if (typeof selector !== 'string' || !selector.trim()) bad(`${at}.selector`, 'must be a non-empty string');
    if ((selector as string).length > ATTRIBUTE_LIMITS.selectorChars)
      bad(`${at}.selector`, `must be at most ${ATTRIBUTE_LIMITS.selectorChars} characters`);
    const problem = selectorProblem(selector as string);
    if (problem) bad(`${at}.selector`, `not a CSS selector this server can run (${problem})`);
    if (typeof attribute !== 'string' || !/^[^\s"'<>/=]+$/.test(attribute))
      bad(`${at}.attribute`, 'must be an attribute name');
    if ((attribute as string).length > ATTRIBUTE_LIMITS.attributeChars)
      bad(`${at}.attribute`, `must be at most ${ATTRIBUTE_LIMITS.attributeChars} characters`);
    return { selector: selector as string, attribute: attribute as string };
  });
}

/**
 * Adds one of these formats to the page's extras. `question` and `query` both answer in `answer`, so only one
 * of them may be asked for; each format at most once.
 */
export function addExtraFormat(
  name: string,
  spec: Record<string, unknown>,
  field: string,
  extras: PageExtras,
): void {
  const once = (given: unknown): void => {
    if (given !== undefined)
      bad(field, `${name} is asked for twice (or beside question/query, which also write answer)`);
  };
  switch (name) {
    case 'question':
      once(extras.answer);
      extras.answer = { question: textOf(spec.question, `${field}.question`), mode: 'freeform' };
      return;
    case 'query': {
      once(extras.answer);
      const mode = spec.mode ?? 'freeform';
      if (mode !== 'freeform' && mode !== 'directQuote')
        bad(`${field}.mode`, 'must be "freeform" or "directQuote"');
      extras.answer = {
        question: textOf(spec.prompt, `${field}.prompt`),
        mode: mode as 'freeform' | 'directQuote',
      };
      return;
    }
    case 'highlights':
      once(extras.highlights);
      extras.highlights = { query: textOf(spec.query, `${field}.query`) };
      return;
    case 'attributes':
      once(extras.attributes);
      extras.attributes = selectorsOf(spec.selectors, `${field}.selectors`);
      return;
    case 'product':
    case 'menu':
      once(extras[name]);
      extras[name] = true;
  }
}
