import { compile, selectAll } from 'css-select';
import type { AnyNode, Element } from '../content/parse/dom.js';

/** One attribute asked for: the value of `attribute` on every element `selector` matches. */
export interface AttributeQuery {
  selector: string;
  attribute: string;
}

export interface AttributeValues extends AttributeQuery {
  values: string[];
}

/** Bounds of an attributes request: selectors, their length, values per selector and characters per value. */
export const ATTRIBUTE_LIMITS = {
  selectors: 50,
  selectorChars: 1000,
  attributeChars: 256,
  values: 1000,
  valueChars: 10_000,
} as const;

/** Why css-select cannot run this selector, or null when it can (compiled without any page: cheap). */
export function selectorProblem(selector: string): string | null {
  try {
    compile(selector);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * The values of each attribute asked for, in document order, from the elements that carry it: at most
 * ATTRIBUTE_LIMITS.values per selector, each cut at ATTRIBUTE_LIMITS.valueChars. What the bounds left out is
 * named in `capped`. A selector css-select cannot run gets no values and is named there too.
 */
export function selectAttributes(
  root: AnyNode,
  queries: AttributeQuery[],
): { attributes: AttributeValues[]; capped: string[] } {
  const capped: string[] = [];
  const attributes = queries.slice(0, ATTRIBUTE_LIMITS.selectors).map(({ selector, attribute }) => {
    let matches: Element[];
    try {
      matches = selectAll<AnyNode, Element>(selector, root);
    } catch (err) {
      capped.push(`'${selector}' could not be run: ${(err as Error).message}`);
      return { selector, attribute, values: [] };
    }
    const name = attribute.toLowerCase();
    const values: string[] = [];
    let cut = 0;
    let over = 0;
    for (const el of matches) {
      const value = el.attribs[name];
      if (value === undefined) continue;
      if (values.length >= ATTRIBUTE_LIMITS.values) {
        over++;
        continue;
      }
      if (value.length > ATTRIBUTE_LIMITS.valueChars) cut++;
      values.push(value.slice(0, ATTRIBUTE_LIMITS.valueChars));
    }
    if (over > 0)
      capped.push(
        `'${selector}' ${attribute}: ${over} values past the first ${ATTRIBUTE_LIMITS.values} left out`,
      );
    if (cut > 0)
      capped.push(
        `'${selector}' ${attribute}: ${cut} values cut at ${ATTRIBUTE_LIMITS.valueChars} characters`,
      );
    return { selector, attribute, values };
  });
  return { attributes, capped };
}
